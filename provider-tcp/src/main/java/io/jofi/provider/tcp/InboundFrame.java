package io.jofi.provider.tcp;

import io.jofi.Fi;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.spi.util.ArrivingMessage;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.UnexpectedMessage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The frame a tcp connection is reading, as one object: its decoded wire header, what a
 * receive completion reports of it ({@link ArrivingMessage}), what its payload is for and the
 * views it is read into, how much of it is placed or discarded, and its ack. The
 * {@link TcpReceiver} drives it; the RMA target and initiator point its payload at regions and
 * responses. One per connection, reused frame after frame (no allocation); guarded by the
 * connection's lock.
 */
final class InboundFrame {
    /** {@link #state}: the next header is due. */
    static final int HEADER = 0;
    /** {@link #state}: the payload goes into {@link #views}. */
    static final int PAYLOAD = 1;
    /** {@link #state}: the payload goes into the unexpected message's {@link #unexpectedData}. */
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

    /** The decoded wire header; big-endian (JOFI declares big-endian, docs/TCP-WIRE.md "Byte order"). */
    final MessageHeader header = new MessageHeader(ByteOrder.BIG_ENDIAN);
    /** A message's (or a write's) tag, remote CQ data, sender and length, as its completion reports them. */
    final ArrivingMessage message = new ArrivingMessage();
    int state = HEADER;
    int kind = MSG;
    /** Payload bytes of the frame. */
    long length;
    /** Where the payload is read into: {@code views[first..count)} (a receive's, a region's, a response's). */
    ByteBuffer[] views;
    int first;
    int count;
    /** The receive a message is read into, or null. */
    PostedReceive receive;
    /** The unexpected message being buffered and its bytes, or null. */
    UnexpectedMessage unexpected;
    ByteBuffer unexpectedData;
    /** Bytes still to skip after {@link #views} are full. */
    long discardLeft;
    /** Bytes of the message that found no room in the receive (R12 {@code olen}). */
    long discarded;
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
    /** The atomic request's target length: 8 for one FI_INT64, count x size for a typed one. */
    int atomicLen;

    /** The frame's state ({@link #HEADER} ... {@link #BLOCKED}). */
    int state() {
        return state;
    }

    /** Whether a request waits for transmit room for its response ({@link #BLOCKED}). */
    boolean blocked() {
        return state == BLOCKED;
    }

    /** The header was handled without a payload to read: the next header is due. */
    void nextHeader() {
        state = HEADER;
    }

    /** Payload bytes of the frame. */
    long length() {
        return length;
    }

    /** What a completion reports of the message or write: tag, remote CQ data, length. */
    ArrivingMessage message() {
        return message;
    }

    /** An RMA write of {@code total} bytes arrives (remote CQ data {@code data} if {@code hasData}): no match ack. */
    void writeArriving(boolean hasData, long data, long total) {
        message.set(false, 0, hasData, hasData ? data : 0, Fi.FI_ADDR_NOTAVAIL, null, total);
        matchAck = false;
        length = total;
    }

    /** The ack's place in the ack order if the sender asked for one, else -1. */
    long ackOwed() {
        return ack ? ackSeq : -1;
    }

    /** An atomic request for {@code len} bytes at {@code addr} of region {@code key} arrives (never acked). */
    void atomicArriving(long addr, long key, int len) {
        atomicAddr = addr;
        atomicKey = key;
        atomicLen = len;
        ack = false;
    }

    /** The atomic request's target address. */
    long atomicAddr() {
        return atomicAddr;
    }

    /** The atomic request's region key. */
    long atomicKey() {
        return atomicKey;
    }

    /** The atomic request's target length: 8 for one FI_INT64, count x size for a typed one. */
    int atomicLen() {
        return atomicLen;
    }

    /** The frame is the response to this side's read or atomic {@code op} (responses are never acked). */
    void answering(TcpTransmitOp op) {
        responseFor = op;
        ack = false;
    }

    /** The read or atomic whose response was read; the frame forgets it. */
    TcpTransmitOp takeResponse() {
        TcpTransmitOp op = responseFor;
        responseFor = null;
        return op;
    }

    /** The payload ({@code length} bytes, all placed) goes into {@code to}, for {@code what}. */
    void payloadInto(TcpPayloadViews to, long payloadLength, int what) {
        views = to.views();
        first = 0;
        count = to.count();
        length = payloadLength;
        kind = what;
        discardLeft = 0;
        discarded = 0;
        state = PAYLOAD;
    }

    /** Whether every view is full (advancing past the full ones). */
    boolean placed() {
        ByteBuffer[] v = views;
        int i = first;
        int n = count;
        while (i < n && !v[i].hasRemaining()) {
            i++;
        }
        first = i;
        return i == n;
    }

    /** The payload has landed: nothing of the application's stays reachable from the frame. */
    void landed() {
        views = null;
        receive = null;
        first = 0;
        count = 0;
        discardLeft = 0;
        discarded = 0;
        state = HEADER;
    }

    /** Whether the frame waits for bytes of its payload (the progress timeout watches it). */
    boolean inPayload() {
        return state == PAYLOAD || state == UNEXPECTED || state == DISCARD;
    }
}
