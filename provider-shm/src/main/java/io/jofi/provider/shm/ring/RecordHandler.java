package io.jofi.provider.shm.ring;

import java.nio.ByteBuffer;

/**
 * Receives the published records of an {@link MpscRing} on the consumer's thread. The payload
 * is valid only during the call (the ring zeroes it once the batch ends); the header fields
 * passed in were validated by the ring, the payload's content was not.
 */
@FunctionalInterface
public interface RecordHandler {

    /** The record is consumed; continue with the next one. */
    int CONTINUE = 0;
    /** The record is consumed; end this read. */
    int BREAK = 1;
    /** The record is NOT consumed (it is delivered again by the next read); end this read. */
    int ABORT = 2;
    /** The payload is corrupt: the ring is declared failed ({@link MpscRing#FAILED}). */
    int CORRUPT = 3;

    /**
     * @param type          the record type (positive)
     * @param sender        the sender index written by the producer (unvalidated)
     * @param aux           the aux word written by the producer (unvalidated)
     * @param buffer        the ring buffer (little-endian, absolute offsets; do not change its
     *                      position or limit)
     * @param payloadOffset where the payload starts in {@code buffer}
     * @param payloadLength bytes of payload, {@code >= 0}, inside the ring
     * @return {@link #CONTINUE}, {@link #BREAK}, {@link #ABORT} or {@link #CORRUPT}
     */
    int onRecord(int type, int sender, int aux, ByteBuffer buffer, int payloadOffset, int payloadLength);
}
