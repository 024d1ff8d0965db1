package io.jofi.spi.util.rxm;

/**
 * The sizes an {@link RxmEndpoint} is built with: one object, fixed at open.
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
 */
public record RxmSettings(int eagerLimit, int receiveBuffers, int transmitOps, int receiveQueueSize,
                          long maxUnexpectedBytes, int maxUnexpectedMessages, int msgCqSize,
                          boolean rendezvousByWrite) {

    /** rxm's defaults where it has one (eager limit 16 KiB), sizes fit for tests and benchmarks otherwise. */
    public static RxmSettings defaults() {
        return new RxmSettings(RxmWireDescriptor.DEFAULT_EAGER_LIMIT, 32, 256, 1024, 64L << 20, 4096, 16384, false);
    }

    public RxmSettings {
        if (eagerLimit < 1 || receiveBuffers < 1 || transmitOps < 1 || receiveQueueSize < 1 || msgCqSize < 1) {
            throw new IllegalArgumentException("rxm settings must be positive");
        }
    }

    /** The same with another eager limit. */
    public RxmSettings withEagerLimit(int limit) {
        return new RxmSettings(limit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize, rendezvousByWrite);
    }

    /** The same with rendezvous by write ({@code true}) or by read. */
    public RxmSettings withRendezvousByWrite(boolean byWrite) {
        return new RxmSettings(eagerLimit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize, byWrite);
    }
}
