package io.jofi.provider.rxm;

/**
 * The sizes an rxm endpoint is built with: one object, fixed at open.
 *
 * @param eagerLimit           largest payload sent whole in one packet; larger ones go by
 *                             rendezvous. Both sides of a connection must agree (rxm refuses
 *                             another value): libfabric's default is 16384 ({@code FI_OFI_RXM_BUFFER_SIZE})
 * @param receiveBuffers       receive buffers of {@code 64 + eagerLimit} bytes posted on each MSG connection
 * @param transmitOps          transmits in flight at most (the RDM transmit queue size)
 * @param receiveQueueSize     posted receives of each kind (untagged, tagged) at most
 * @param maxUnexpectedBytes   bytes of unexpected messages held at most
 * @param maxUnexpectedMessages unexpected messages held at most
 * @param msgCqSize            size of the internal CQ all MSG connections share
 * @param rendezvousByWrite    rendezvous by RMA write (the receiver offers its buffers, the
 *                             sender writes) instead of by read; both sides must agree, as
 *                             libfabric's {@code FI_OFI_RXM_USE_RNDV_WRITE} (default off: read)
 * @param sarLimit             largest message sent in segments of {@code eagerLimit} bytes
 *                             (rxm's segmentation, each segment its own packet); larger ones go by
 *                             rendezvous. At most {@code eagerLimit} (so it is, when smaller): no
 *                             segments, as libfabric's rxm over MSG providers with dynamic receive
 *                             buffers (tcp); over verbs rxm's default is 8 × the eager limit
 *                             ({@code FI_OFI_RXM_SAR_LIMIT}). At most half the transmit queue
 *                             in segments (it is lowered to that). Only the sender's choice:
 *                             every receiver takes segments
 * @param creditFlowControl    offer rxm's credit flow control on each connection ({@link RxmCredits}):
 *                             used where both sides offer it, as libfabric's rxm over verbs
 *                             (whose MSG endpoints without a shared receive queue offer it);
 *                             libfabric's tcp does not, nor does JOFI's tcp by default
 * @param avRemoveCleanup      {@code fi_av_remove} of a peer also closes the connection to it (what
 *                             waits on it ends with {@code ECANCELED}, the peer sees it reset), as
 *                             libfabric's {@code FI_AV_REMOVE_CLEANUP=1}; off (libfabric's default):
 *                             the connection stays, and the peer, inserted again, is reached over it
 */
public record RxmSettings(int eagerLimit, int receiveBuffers, int transmitOps, int receiveQueueSize,
                          long maxUnexpectedBytes, int maxUnexpectedMessages, int msgCqSize,
                          boolean rendezvousByWrite, long sarLimit, boolean creditFlowControl,
                          boolean avRemoveCleanup) {

    /** rxm's defaults where it has one (eager limit 16 KiB), sizes fit for tests and benchmarks otherwise. */
    public static RxmSettings defaults() {
        return new RxmSettings(RxmWireDescriptor.DEFAULT_EAGER_LIMIT, 32, 256, 1024, 64L << 20, 4096, 16384, false,
                RxmWireDescriptor.DEFAULT_EAGER_LIMIT, false, false);
    }

    public RxmSettings {
        if (eagerLimit < 1 || receiveBuffers < 1 || transmitOps < 1 || receiveQueueSize < 1 || msgCqSize < 1) {
            throw new IllegalArgumentException("rxm settings must be positive");
        }
        // a segmented message takes at most half the transmit queue, so it can always be sent
        sarLimit = Math.max(eagerLimit, Math.min(sarLimit, (long) eagerLimit * Math.max(1, transmitOps / 2)));
    }

    /** The settings before {@code avRemoveCleanup}: a removed peer's connection stays (libfabric's default). */
    public RxmSettings(int eagerLimit, int receiveBuffers, int transmitOps, int receiveQueueSize,
                       long maxUnexpectedBytes, int maxUnexpectedMessages, int msgCqSize, boolean rendezvousByWrite,
                       long sarLimit, boolean creditFlowControl) {
        this(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes, maxUnexpectedMessages,
                msgCqSize, rendezvousByWrite, sarLimit, creditFlowControl, false);
    }

    /** The settings before {@code creditFlowControl}: none offered. */
    public RxmSettings(int eagerLimit, int receiveBuffers, int transmitOps, int receiveQueueSize,
                       long maxUnexpectedBytes, int maxUnexpectedMessages, int msgCqSize, boolean rendezvousByWrite,
                       long sarLimit) {
        this(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes, maxUnexpectedMessages,
                msgCqSize, rendezvousByWrite, sarLimit, false);
    }

    /** The settings before {@code sarLimit}: no segments. */
    public RxmSettings(int eagerLimit, int receiveBuffers, int transmitOps, int receiveQueueSize,
                       long maxUnexpectedBytes, int maxUnexpectedMessages, int msgCqSize, boolean rendezvousByWrite) {
        this(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes, maxUnexpectedMessages,
                msgCqSize, rendezvousByWrite, eagerLimit, false);
    }

    /** The same with another eager limit. */
    public RxmSettings withEagerLimit(int limit) {
        return new RxmSettings(limit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize, rendezvousByWrite, sarLimit, creditFlowControl, avRemoveCleanup);
    }

    /** The same with rendezvous by write ({@code true}) or by read. */
    public RxmSettings withRendezvousByWrite(boolean byWrite) {
        return new RxmSettings(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize, byWrite, sarLimit, creditFlowControl, avRemoveCleanup);
    }

    /** The same with another SAR limit (at most the eager limit: no segments). */
    public RxmSettings withSarLimit(long limit) {
        return new RxmSettings(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize, rendezvousByWrite, limit, creditFlowControl, avRemoveCleanup);
    }

    /** The same offering credit flow control ({@code true}) or not. */
    public RxmSettings withCreditFlowControl(boolean offer) {
        return new RxmSettings(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize, rendezvousByWrite, sarLimit, offer, avRemoveCleanup);
    }

    /** The same closing a removed peer's connection ({@code true}, {@code FI_AV_REMOVE_CLEANUP=1}) or keeping it. */
    public RxmSettings withAvRemoveCleanup(boolean cleanup) {
        return new RxmSettings(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize, rendezvousByWrite, sarLimit, creditFlowControl, cleanup);
    }

    /** The segments a message of at most {@link #sarLimit} bytes takes at most. */
    int maxSegments() {
        return (int) ((sarLimit + eagerLimit - 1) / eagerLimit);
    }
}
