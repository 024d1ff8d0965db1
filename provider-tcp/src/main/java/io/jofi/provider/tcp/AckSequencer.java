package io.jofi.provider.tcp;

/**
 * Keeps a connection's acknowledgements in the order the messages that asked for them arrived.
 * An ack on the wire names no message (docs/TCP-WIRE.md: op 0, op_data 2, nothing else), so the sender
 * pairs acks with its sends first-in-first-out; with tagged matching a later message can be
 * ready for its ack (placed, or buffered for {@code FI_DELIVERY_COMPLETE}) before an earlier
 * one (waiting unexpected for {@code FI_MATCH_COMPLETE}). Each message that asks gets a
 * sequence number on arrival; {@link #ready} marks it; {@link #drain} releases the acks of the
 * ready prefix. A bit ring, so nothing is allocated. Not thread-safe: the endpoint's lock.
 */
final class AckSequencer {
    private static final int BITS = 1 << 17;
    private final long[] words = new long[BITS / 64];
    /** Next sequence number to hand out. */
    private long next;
    /** First sequence number whose ack has not been released. */
    private long released;

    /**
     * A message that asks for an ack arrived.
     *
     * @return its sequence number, or -1 when too many acks are held back (the peer exceeded
     *         any sane queue depth: the connection is torn down)
     */
    long assign() {
        if (next - released >= BITS) {
            return -1;
        }
        return next++;
    }

    /** The message {@code seq} may be acked now (placed, buffered or matched, R11). */
    void ready(long seq) {
        int bit = (int) (seq & (BITS - 1));
        words[bit >>> 6] |= 1L << (bit & 63);
    }

    /** @return how many acks became sendable (the ready prefix), consuming them */
    int drain() {
        int n = 0;
        while (released < next) {
            int bit = (int) (released & (BITS - 1));
            long mask = 1L << (bit & 63);
            if ((words[bit >>> 6] & mask) == 0) {
                break;
            }
            words[bit >>> 6] &= ~mask;
            released++;
            n++;
        }
        return n;
    }

    /** Forgets everything (the connection ended). */
    void reset() {
        java.util.Arrays.fill(words, 0L);
        next = 0;
        released = 0;
    }
}
