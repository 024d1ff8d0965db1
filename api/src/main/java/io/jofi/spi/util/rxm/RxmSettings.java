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
 */
public record RxmSettings(int eagerLimit, int receiveBuffers, int transmitOps, int receiveQueueSize,
                          long maxUnexpectedBytes, int maxUnexpectedMessages, int msgCqSize) {

    /** rxm's defaults where it has one (eager limit 16 KiB), sizes fit for tests and benchmarks otherwise. */
    public static RxmSettings defaults() {
        return new RxmSettings(RxmWireDescriptor.DEFAULT_EAGER_LIMIT, 32, 256, 1024, 64L << 20, 4096, 16384);
    }

    public RxmSettings {
        if (eagerLimit < 1 || receiveBuffers < 1 || transmitOps < 1 || receiveQueueSize < 1 || msgCqSize < 1) {
            throw new IllegalArgumentException("rxm settings must be positive");
        }
    }

    /** The same with another eager limit. */
    public RxmSettings withEagerLimit(int limit) {
        return new RxmSettings(limit, receiveBuffers, transmitOps, receiveQueueSize, maxUnexpectedBytes,
                maxUnexpectedMessages, msgCqSize);
    }
}
