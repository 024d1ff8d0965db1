package io.jofi.provider.tcp;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.ReceivePosting;
import io.jofi.spi.util.ReceiveQueue;
import java.nio.ByteBuffer;

/**
 * A tcp endpoint's receive posts ({@code fi_recv}, {@code fi_recvmsg}, {@code fi_trecv},
 * {@code fi_trecvmsg} as {@link io.jofi.spi.util.UtilEndpoint} checked them, and
 * {@code fi_cancel}) into the util {@link ReceiveQueue} its connections deliver into — one
 * connection for an MSG endpoint, every peer's for an RDM endpoint — and the endpoint options
 * ({@code FI_OPT_MIN_MULTI_RECV}, {@code FI_OPT_CM_DATA_SIZE}). Posts take the endpoint's lock.
 */
final class TcpReceiveSide {
    /** What the endpoint says about posting a receive now. */
    interface Owner {
        /** 0, or the negative errno of the endpoint's fid state (closed, departed, failed). */
        int postState();

        /**
         * Whether receives may be posted: enabled, and (MSG) the connection not ended with
         * nothing left to receive; else {@code -EOPBADSTATE}.
         */
        boolean receiving();

        /** A receive was queued: a connection whose message waited for one reads on. */
        void receivePosted();
    }

    private final Object lock;
    private final Owner owner;
    private final DataPathBindings bound;
    private final ReceiveQueue queue;
    /** Posting, peek/claim and FI_OPT_MIN_MULTI_RECV: util's, as every provider's. */
    private final ReceivePosting posting;

    /** The endpoint's post counters, counted inside {@link #lock} (several threads may post at once). */
    private final io.jofi.spi.util.EndpointCounters posts;

    TcpReceiveSide(Object lock, Owner owner, DataPathBindings bound, ReceiveQueue queue,
                   io.jofi.spi.util.EndpointCounters posts) {
        this.lock = lock;
        this.posts = posts;
        this.owner = owner;
        this.bound = bound;
        this.queue = queue;
        this.posting = new ReceivePosting(queue);
    }

    /** The receive queue of an endpoint opened with {@code info}: its size, the provider's unexpected limits, FI_SOURCE. */
    static ReceiveQueue newQueue(Info info, TcpProvider provider, io.jofi.spi.util.EndpointCounters posts) {
        ReceiveQueue queue = new ReceiveQueue(TcpEndpoint.queueSize(info), TcpProvider.IOV_LIMIT,
                provider.unexpectedMessages(), provider.unexpectedBytes());
        long caps = info.caps();
        boolean source = (caps & Fi.FI_SOURCE) != 0;
        queue.completion().reportSource(source, source && (caps & Fi.FI_SOURCE_ERR) != 0);
        queue.completion().countIn(posts.group());
        return queue;
    }

    /** After each {@code bind}: the receive queue completes into the receive CQ and counter. Under lock. */
    void bound() {
        queue.completion().bind(bound.rxCq(), bound.selectiveRx(), bound.recvCntr());
    }

    /**
     * Posts a receive the endpoint checked ({@link io.jofi.spi.util.UtilEndpoint#postRecv}:
     * caps, arguments, flags, the buffers' writability and size, the CQ). Untagged receives
     * with {@code FI_MULTI_RECV} are multi-receive buffers: messages are placed one after
     * another, each completion points into it with {@code buf}/{@code bufOffset}; the
     * completion that leaves less than {@code FI_OPT_MIN_MULTI_RECV} bytes carries
     * {@code FI_MULTI_RECV} and releases it.
     */
    int postRecv(ByteBuffer buf, Msg msg, long srcAddr, boolean tagged, long tag, long ignore, long flags,
                 Object context) {
        synchronized (lock) {
            int rc = postable();
            if (rc == 0) {
                rc = posting.post(bound.rxCq(), buf, msg, srcAddr, tagged, tag, ignore, flags, context);
            }
            if (rc == 0) {
                owner.receivePosted(); // a connection whose message waited for a receive reads on
            }
            return posts.receive(rc, tagged);
        }
    }

    /**
     * {@code fi_trecvmsg} with {@code FI_PEEK} (and {@code FI_CLAIM} / {@code FI_DISCARD}):
     * looks at the unexpected messages without receiving — a completion with len/tag/data of
     * the first match, or an error completion {@code ENOMSG}; with {@code FI_CLAIM} alone
     * receives the message a peek claimed for the same context ({@code -ENOMSG} when there is
     * none); {@code FI_CLAIM|FI_DISCARD} drops it. A peek or claim posts nothing: not counted.
     */
    int postPeek(TaggedMsg msg, long flags) {
        synchronized (lock) {
            int rc = postable();
            return rc != 0 ? rc : posting.peekOrClaim(bound.rxCq(), msg, msg.addr(), flags);
        }
    }

    /** Under the lock: 0 when a receive may be posted now, else its negative errno. */
    private int postable() {
        int rc = owner.postState();
        if (rc != 0) {
            return rc;
        }
        if (!owner.receiving()) {
            // After the connection ended, only messages that had arrived can still be received.
            return -Errno.EOPBADSTATE;
        }
        return bound.rxCq() == null ? -Errno.ENOCQ : 0;
    }

    /**
     * {@code fi_cancel}: a pending receive with this context completes with {@code ECANCELED}
     * (R13).
     *
     * @return 0, or {@code -ENOENT} when no such receive is pending
     */
    int cancel(Object context) {
        synchronized (lock) {
            int rc = owner.postState();
            if (rc != 0) {
                return rc;
            }
            return queue.cancel(context);
        }
    }

    /**
     * {@code fi_getopt}: {@code FI_OPT_CM_DATA_SIZE} (256), {@code FI_OPT_MIN_MULTI_RECV}.
     *
     * @throws FabricException {@code ENOPROTOOPT} for other levels/options
     */
    long getOpt(int level, int name) throws FabricException {
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            return TcpProvider.CM_DATA_SIZE;
        }
        if (ReceivePosting.isMinMultiRecv(level, name)) {
            return posting.minMultiRecv();
        }
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + name + " at level " + level
                + " is not supported (FI_OPT_CM_DATA_SIZE is)");
    }

    /**
     * {@code fi_setopt}: {@code FI_OPT_CM_DATA_SIZE} may be set to at most 256 (the wire's
     * limit); {@code FI_OPT_MIN_MULTI_RECV} applies to multi-receive buffers posted afterwards.
     *
     * @throws FabricException {@code EINVAL} for a larger size; {@code ENOPROTOOPT} for other options
     */
    void setOpt(int level, int name, long value) throws FabricException {
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            if (value < 0 || value > TcpProvider.CM_DATA_SIZE) {
                throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_CM_DATA_SIZE " + value + " is outside 0..256");
            }
            return;
        }
        if (ReceivePosting.isMinMultiRecv(level, name)) {
            posting.minMultiRecv(value); // applies to multi-receive buffers posted from now on
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "setOpt: option " + name + " at level " + level + " is not supported");
    }
}
