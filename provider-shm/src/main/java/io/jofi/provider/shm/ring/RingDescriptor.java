package io.jofi.provider.shm.ring;

/**
 * The layout of one record in the MPSC ring ({@link MpscRing}). Offsets are relative to the
 * record start; records start at multiples of {@link #ALIGNMENT}.
 *
 * <pre>
 *  0 +----------------------------+----------------------------+
 *    | length (int)               | type (int)                 |
 *  8 +----------------------------+----------------------------+
 *    | sender (int)               | aux (int), free for the    |
 *    |                            | record's user              |
 * 16 +----------------------------+----------------------------+
 *    | payload: length - 16 bytes ...                          |
 *    +---------------------------------------------------------+  padded to a multiple of 8
 * </pre>
 *
 * <b>length</b> is the record length in bytes (header plus payload, not aligned) and the
 * publication word: 0 = nothing claimed here yet (or claimed, not yet marked); negative =
 * claimed by the producer named in <b>sender</b>, not yet published (-length); positive =
 * published, written last with release semantics after everything else. The consumer reads
 * it with acquire semantics and validates it before touching anything else.
 * <p>
 * <b>type</b> {@link #TYPE_PADDING} (0) is the padding record a producer writes when a claim
 * does not fit before the end of the ring: it covers exactly the bytes up to the end. User
 * record types are positive; a negative type is corrupt. <b>sender</b> is the producer's
 * index (chosen by the provider; the ring uses it only to ask {@link SenderLiveness} about a
 * stalled claim). <b>aux</b> is free for the user (e.g. a bounce slot index).
 */
public final class RingDescriptor {

    public static final int LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = 4;
    public static final int SENDER_OFFSET = 8;
    public static final int AUX_OFFSET = 12;
    /** Bytes of the record header; the payload starts here. */
    public static final int HEADER_LENGTH = 16;
    /** Records start at multiples of 8 (so the length word and 8-byte payload fields are aligned). */
    public static final int ALIGNMENT = 8;
    /** The padding record that fills the end of the ring before a wrap. */
    public static final int TYPE_PADDING = 0;
    /** The sender passed to {@link SenderLiveness} when a stalled claim carries no sender yet. */
    public static final int SENDER_UNKNOWN = -1;

    private RingDescriptor() {
    }

    /** @return the bytes a record of {@code length} (header + payload) occupies in the ring */
    public static int alignedLength(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** @return the largest payload a ring of {@code capacity} bytes accepts: capacity/8 - header */
    public static int maxPayloadLength(int capacity) {
        return capacity / 8 - HEADER_LENGTH;
    }
}
