package io.jofi.provider.shm;

import java.nio.ByteBuffer;

/**
 * The protocol record being handled, decoded once and handed to its handler as one object:
 * where its header lies in the ring, its kind and flags, and where its payload is (inline
 * after the header, or in a bounce slot of this endpoint's region); the header's words are
 * read by the names of {@link ShmRecordDescriptor}, which holds the layout.
 *
 * <p>One instance per endpoint, rewrapped for every record by {@link ShmRingReader} (aeron's
 * {@code Header} flyweight): nothing is allocated per record. Valid only during the handler's
 * call; the words are read from shared memory, so a handler validates each before use.
 */
final class ShmRecord {
    private ByteBuffer ring;
    private int at;
    private int kindFlags;
    /** A compact MSG record ({@link ShmRecordDescriptor#COMPACT}): the words below come from where it has them. */
    private boolean compact;
    /** Compact: where the tag is (TAGGED) and where the remote CQ data is (HAS_DATA). */
    private int compactTagAt;
    private int compactDataAt;
    private ByteBuffer payload;
    private int payloadAt;
    private int payloadLength;

    /** Points this flyweight at the record whose header is at {@code at} of {@code ring}. */
    void wrap(ByteBuffer ring, int at, int kindFlags) {
        this.ring = ring;
        this.at = at;
        this.kindFlags = kindFlags;
        this.compact = (kindFlags & ShmRecordDescriptor.COMPACT) != 0;
        if (compact) {
            compactTagAt = at + ShmRecordDescriptor.COMPACT_HEADER;
            compactDataAt = compactTagAt + ((kindFlags & ShmRecordDescriptor.TAGGED) != 0 ? 8 : 0);
        }
    }

    /** Where the record's payload is ({@code length} bytes from {@code at} of {@code buf}). */
    void payload(ByteBuffer buf, int at, int length) {
        this.payload = buf;
        this.payloadAt = at;
        this.payloadLength = length;
    }

    /** Kind (bits 0..7) and flags (bits 8..31). */
    int kindFlags() {
        return kindFlags;
    }

    int kind() {
        return ShmRecordDescriptor.kind(kindFlags);
    }

    /** Whether the record carries {@code flag} (one of {@link ShmRecordDescriptor}'s flags). */
    boolean has(int flag) {
        return (kindFlags & flag) != 0;
    }

    /** The buffer holding the payload (the ring or the bounce slots). */
    ByteBuffer payloadBuffer() {
        return payload;
    }

    /** The payload's absolute offset in {@link #payloadBuffer()}. */
    int payloadAt() {
        return payloadAt;
    }

    /** The payload's length in bytes. */
    int payloadLength() {
        return payloadLength;
    }

    /** STATUS: 0 or a positive errno (answers), the bounce payload length, the CMA iovec count. */
    int status() {
        return ring.getInt(at + ShmRecordDescriptor.STATUS);
    }

    /** The initiator's operation; 0 for a compact record (which nobody answers). */
    long token() {
        return compact ? 0 : ring.getLong(at + ShmRecordDescriptor.TOKEN);
    }

    long tag() {
        if (compact) {
            return has(ShmRecordDescriptor.TAGGED) ? ring.getLong(compactTagAt) : 0;
        }
        return ring.getLong(at + ShmRecordDescriptor.MSG_TAG);
    }

    /** MSG: the remote CQ data. */
    long messageData() {
        if (compact) {
            return has(ShmRecordDescriptor.HAS_DATA) ? ring.getLong(compactDataAt) : 0;
        }
        return ring.getLong(at + ShmRecordDescriptor.MSG_DATA);
    }

    /** The whole message's or transfer's length; a compact record's is its payload's. */
    long totalLength() {
        return compact ? payloadLength : ring.getLong(at + ShmRecordDescriptor.TOTAL_LENGTH);
    }

    /** Where this fragment's payload goes; a compact record is the whole message (0). */
    long fragmentOffset() {
        return compact ? 0 : ring.getLong(at + ShmRecordDescriptor.FRAGMENT_OFFSET);
    }

    long rmaKey() {
        return ring.getLong(at + ShmRecordDescriptor.RMA_KEY);
    }

    long rmaAddr() {
        return ring.getLong(at + ShmRecordDescriptor.RMA_ADDR);
    }

    /** WRITE, NOTIFY: the remote CQ data. */
    long rmaData() {
        return ring.getLong(at + ShmRecordDescriptor.RMA_DATA);
    }

    long atomicOperand() {
        return ring.getLong(at + ShmRecordDescriptor.ATOMIC_OPERAND);
    }

    long atomicCompare() {
        return ring.getLong(at + ShmRecordDescriptor.ATOMIC_COMPARE);
    }

    int atomicOp() {
        return (int) ring.getLong(at + ShmRecordDescriptor.ATOMIC_OP);
    }

    long atomicOld() {
        return ring.getLong(at + ShmRecordDescriptor.ATOMIC_OLD);
    }

    long probeAddress() {
        return ring.getLong(at + ShmRecordDescriptor.PROBE_ADDRESS);
    }

    long probeValue() {
        return ring.getLong(at + ShmRecordDescriptor.PROBE_VALUE);
    }

    /** MSG | CMA: the address of the sender's {@code i}th buffer (an iovec of the payload). */
    long cmaAddress(int i) {
        return payload.getLong(payloadAt + i * ShmRecordDescriptor.CMA_IOV);
    }

    /** MSG | CMA: the length of the sender's {@code i}th buffer. */
    long cmaLength(int i) {
        return payload.getLong(payloadAt + i * ShmRecordDescriptor.CMA_IOV + 8);
    }
}
