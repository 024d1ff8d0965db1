package io.jofi.provider.tcp;

import io.jofi.provider.tcp.wire.MessageHeader;
import java.nio.ByteOrder;

/**
 * The frame a tcp connection is reading, as one object: its decoded header, what its payload
 * is for and where it goes, how much of it is placed or discarded, and its ack. The
 * {@link TcpReceiver} drives it; the RMA target and initiator point its payload at regions
 * and responses. One per connection, reused frame after frame (no allocation); guarded by the
 * connection's lock.
 */
final class InboundFrame {
    /** {@link #state}: the next header is due. */
    static final int HEADER = 0;
    /** {@link #state}: the payload goes into {@link #sink}. */
    static final int PAYLOAD = 1;
    /** {@link #state}: the payload goes into the unexpected message {@link #unexpected}. */
    static final int UNEXPECTED = 2;
    /** {@link #state}: {@link #discardLeft} bytes of the payload find no room (R12). */
    static final int DISCARD = 3;
    /** {@link #state}: no receive and no unexpected room: reading waits for a posted receive. */
    static final int PAUSED = 4;
    /** {@link #state}: a read or atomic request waits for room in the transmit queue for its response. */
    static final int BLOCKED = 5;

    /** {@link #kind}: a message for a posted receive or the unexpected queue. */
    static final int MSG = 0;
    /** {@link #kind}: an RMA write into registered regions. */
    static final int WRITE = 1;
    /** {@link #kind}: the response to one of this side's RMA reads. */
    static final int READ_RESPONSE = 2;
    /** {@link #kind}: a JOFI atomic request (operand, compare). */
    static final int ATOMIC_REQUEST = 3;
    /** {@link #kind}: the response to one of this side's atomics (the old value). */
    static final int ATOMIC_RESPONSE = 4;

    /** The decoded header; big-endian (JOFI declares big-endian, TCP-WIRE "Byte order"). */
    final MessageHeader header = new MessageHeader(ByteOrder.BIG_ENDIAN);
    int state = HEADER;
    int kind = MSG;
    /** Payload bytes of the frame. */
    long length;
    /** Where the payload is read into (a posted receive, a region, a response's buffers), or null. */
    RxOp sink;
    /** The unexpected message being buffered, or null. */
    Unexpected unexpected;
    /** Bytes still to skip after {@link #sink} is full. */
    long discardLeft;
    /** Bytes of the message that found no room in the receive (R12 {@code olen}). */
    long discarded;
    boolean hasData;
    long data;
    boolean tagged;
    long tag;
    /** The sender asked for an ack (flag bit 2, or bit 3 on a write), and its place in the ack order. */
    boolean ack;
    long ackSeq = -1;
    /** The sender asked for FI_MATCH_COMPLETE (JOFI flag bit 1): no ack while buffered. */
    boolean matchAck;
    /** The read or atomic of this side whose response is being read. */
    TcpTransmitOp responseFor;
    /** An atomic request's target word. */
    long atomicAddr;
    long atomicKey;

    /** The payload ({@code length} bytes, all placed) goes into {@code to}, for {@code what}. */
    void payloadInto(RxOp to, long payloadLength, int what) {
        sink = to;
        length = payloadLength;
        kind = what;
        discardLeft = 0;
        discarded = 0;
        state = PAYLOAD;
    }

    /** Whether the frame waits for bytes of its payload (the progress timeout watches it). */
    boolean inPayload() {
        return state == PAYLOAD || state == UNEXPECTED || state == DISCARD;
    }
}
