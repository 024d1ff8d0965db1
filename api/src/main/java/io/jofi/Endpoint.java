package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An active endpoint ({@code fi_endpoint}): messages, tagged messages, RMA and atomics.
 * An operation the endpoint's caps do not cover returns {@code -ENOSYS}; one that would
 * exceed the transmit/receive queue or the CQ's room returns {@code -EAGAIN} (the caller
 * drives progress and retries).
 *
 * <p><b>Close.</b> {@link #close()} discards the operations still pending on the endpoint
 * without any completion, successful or in error (fi_endpoint(3) fi_close: "Discarded
 * operations will silently be dropped, with no completions reported"), gives back the CQ room
 * they had reserved (R6), and releases what was bound to it, so that its CQs, EQ, counters and
 * AV then close (R9). Completions already on a CQ stay there. An application that wants every
 * receive back cancels it first ({@link #cancel}, R13) or shuts the connection down
 * ({@link #shutdown}, R14); a provider's departure completes pending operations with
 * {@code ECANCELED} (R15).
 */
@ProviderType
public interface Endpoint extends Fid, MsgOps, TaggedOps, RmaOps, AtomicOps {
    /**
     * {@code fi_ep_bind}. A CQ with {@code FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION};
     * an EQ; an AV; a counter with {@code FI_SEND | FI_RECV | FI_READ | FI_WRITE |
     * FI_REMOTE_READ | FI_REMOTE_WRITE}.
     */
    void bind(Fid fid, long flags) throws FabricException;

    /** {@code fi_enable}. */
    void enable() throws FabricException;

    /** {@code fi_getname}: for an enabled RDM endpoint a concrete address (never a wildcard). */
    byte[] getName() throws FabricException;

    /** {@code fi_getpeer}. */
    byte[] getPeer() throws FabricException;

    /** {@code fi_connect} (MSG) with connection data of at most {@code FI_OPT_CM_DATA_SIZE} bytes. */
    void connect(byte[] addr, byte[] param) throws FabricException;

    /** {@code fi_accept} (MSG), on an endpoint opened with the {@code FI_CONNREQ} event's info. */
    void accept(byte[] param) throws FabricException;

    /** {@code fi_shutdown} (MSG): both sides get {@code FI_SHUTDOWN}, exactly once (R14). */
    void shutdown(long flags) throws FabricException;

    /**
     * {@code fi_cancel}: a pending operation with this context completes with an
     * {@code ECANCELED} error (R13).
     *
     * @return 0, or {@code -ENOENT} when no such operation is pending
     */
    int cancel(Object context);

    /** {@code fi_getopt}: {@code FI_OPT_MIN_MULTI_RECV}, {@code FI_OPT_CM_DATA_SIZE}, ... */
    long getOpt(int level, int name) throws FabricException;

    /** {@code fi_setopt}. */
    void setOpt(int level, int name, long value) throws FabricException;
}
