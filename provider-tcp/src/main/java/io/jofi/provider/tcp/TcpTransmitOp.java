package io.jofi.provider.tcp;

import io.jofi.Msg;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.AtomicTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One pooled transmit of a tcp connection: the header and the payload views that one gathering
 * write puts on the wire, and what its completion needs. The views are duplicates of the caller's buffers,
 * cached per payload slot for the last {@link #VIEW_WAYS} buffers seen there and reused when one
 * of them is posted again, so that a steady stream of sends allocates nothing even when one op
 * carries a few buffers in turn (an RDM layer's packet, control and registered buffers); the
 * caller's position and limit are never touched.
 */
final class TcpTransmitOp {
    /** {@link #kind}: a message (fi_msg, fi_tagged); completes on the write or the ack, counts on FI_SEND. */
    static final int SEND = 0;
    /** {@link #kind}: an RMA write; completes on the ack, counts on FI_WRITE. */
    static final int WRITE = 1;
    /** {@link #kind}: an RMA read request; completes when its response is placed, counts on FI_READ. */
    static final int READ = 2;
    /** {@link #kind}: a non-fetching atomic; completes on its response, counts on FI_WRITE. */
    static final int ATOMIC = 3;
    /** {@link #kind}: a fetching atomic; completes on its response, counts on FI_READ. */
    static final int ATOMIC_FETCH = 4;
    /** {@link #kind}: a read or atomic response this side sends: no completion, no counter. */
    static final int RESPONSE = 5;

    /**
     * The wire header; big-endian (JOFI always declares big-endian, docs/TCP-WIRE.md "Byte order").
     * Room for a small payload behind it ({@link #payloadBehindHeader}): a message of at most
     * {@link TcpProvider#INJECT_SIZE} bytes leaves as one contiguous frame, so one plain
     * {@code write} puts it on the wire instead of a gathering {@code writev} of two buffers.
     */
    final ByteBuffer header = ByteBuffer.allocateDirect(TcpWireDescriptor.MAX_HEADER_LENGTH + TcpProvider.INJECT_SIZE)
            .order(ByteOrder.BIG_ENDIAN);
    /** Where inject copies its payload (FI_INJECT: the caller's buffer is free at return). */
    final ByteBuffer injectCopy = ByteBuffer.allocateDirect(TcpProvider.INJECT_SIZE);
    /** [0] = header, [1..n] = payload; what the gathering write consumes. */
    final ByteBuffer[] gather = new ByteBuffer[1 + TcpProvider.IOV_LIMIT];
    /**
     * How many source buffers each payload slot remembers a view of. An op popped from the
     * transmitter's LIFO free list is mostly the same one, and it carries whatever the caller
     * sends next; four covers rxm's rotation of eager packet, control packet and user buffer.
     */
    static final int VIEW_WAYS = 4;
    /** Slot {@code i}'s cached sources at {@code [i * VIEW_WAYS, (i + 1) * VIEW_WAYS)}. */
    private final ByteBuffer[] sources = new ByteBuffer[TcpProvider.IOV_LIMIT * VIEW_WAYS];
    /** The view of {@code sources[k]} at {@code views[k]}. */
    private final ByteBuffer[] views = new ByteBuffer[TcpProvider.IOV_LIMIT * VIEW_WAYS];
    /** Per slot, the way replaced next on a miss (round robin). */
    private final int[] victim = new int[TcpProvider.IOV_LIMIT];

    /** First element of {@link #gather} not written completely. */
    int first;
    /** Number of elements of {@link #gather} in use. */
    int count;
    Object context;
    /** The completion's flags (FI_SEND | FI_MSG ...). */
    long cqFlags;
    long length;
    /** Whether a completion entry is written on success (FI_COMPLETION / not selective). */
    boolean complete;
    /** Whether the send generates any completion at all (false for inject). */
    boolean reports;
    /** Whether the peer acks it (FI_TRANSMIT_COMPLETE / FI_DELIVERY_COMPLETE, flag bit 2). */
    boolean ackWanted;
    /** Whether any byte went out (acks may no longer be interleaved before it). */
    boolean started;

    /** What it is ({@link #SEND} ... {@link #RESPONSE}): decides the counter and what follows the write. */
    int kind;
    /** RMA read: views of the local buffers the response's payload is read into (made on first use, kept with the op). */
    private TcpPayloadViews landing;
    /** Fetching atomic: where the old value goes (the caller's buffer, at its position). */
    ByteBuffer result;
    /** An atomic's result bytes when typed (elements in host order), 0 for one FI_INT64 in the buffer's order. */
    int typedResultBytes;

    TcpTransmitOp() {
        gather[0] = header;
    }

    /** Sets payload element {@code i} to a view of {@code [position, limit)} of {@code src}. */
    void payload(int i, ByteBuffer src) {
        ByteBuffer v = viewOf(i, src);
        v.limit(v.capacity()).position(src.position()).limit(src.limit());
        gather[1 + i] = v;
    }

    /** Sets payload element {@code i} to {@code [index, index + length)} of {@code src} (a registered region). */
    void region(int i, ByteBuffer src, int index, int length) {
        ByteBuffer v = viewOf(i, src);
        v.limit(v.capacity()).position(index).limit(index + length);
        gather[1 + i] = v;
    }

    /** The cached view of {@code src} in slot {@code i}, made (replacing the oldest way) on a miss. */
    private ByteBuffer viewOf(int i, ByteBuffer src) {
        int base = i * VIEW_WAYS;
        for (int k = base; k < base + VIEW_WAYS; k++) {
            if (sources[k] == src) {
                return views[k];
            }
        }
        int k = base + victim[i];
        victim[i] = (victim[i] + 1) % VIEW_WAYS;
        ByteBuffer v = src.duplicate();
        sources[k] = src;
        views[k] = v;
        return v;
    }

    /**
     * Copies {@code [position, limit)} of {@code src} (at most {@link TcpProvider#INJECT_SIZE}
     * bytes) behind the encoded header (position = the header's end) and makes the header
     * buffer the whole frame: {@link #count} 1. The caller's buffer is free at return.
     */
    void payloadBehindHeader(ByteBuffer src) {
        ByteBuffer h = header;
        int at = h.position();
        int n = src.remaining();
        h.put(at, src, src.position(), n);
        h.position(at + n);
    }

    /** Sets payload element 0 to the inject copy. */
    void payloadInjected(ByteBuffer src) {
        injectCopy.clear();
        injectCopy.put(0, src, src.position(), src.remaining());
        injectCopy.limit(src.remaining());
        gather[1] = injectCopy;
    }

    /** The frame is {@code n} elements of {@link #gather}: the header, then {@code n - 1} payload elements. */
    void elements(int n) {
        count = n;
    }

    /** Whether the peer is asked to ack it (flag bit 2): it completes on the ack. */
    void askAck(boolean wanted) {
        ackWanted = wanted;
    }

    /** A read or atomic response this side sends: no completion, no counter. */
    void asResponse() {
        kind = RESPONSE;
        reports = false;
    }

    /**
     * The inject buffer cleared, for a payload of a few words written in place (an atomic's
     * request or response); {@link #wordsPayload} then makes it the frame's payload.
     */
    ByteBuffer words() {
        return injectCopy.clear();
    }

    /** The first {@code bytes} of {@link #words} are the payload: header and those bytes are the frame. */
    void wordsPayload(int bytes) {
        injectCopy.limit(bytes);
        gather[1] = injectCopy;
        count = 2;
    }

    /**
     * Copies the given buffers one after another into the inject buffer and makes it payload
     * element 0 (FI_INJECT of a message's iovs: the caller's buffers are free at return).
     */
    void payloadGathered(Msg msg, int iovCount) {
        ByteBuffer c = injectCopy.clear();
        for (int i = 0; i < iovCount; i++) {
            ByteBuffer b = msg.iov(i);
            c.put(c.position(), b, b.position(), b.remaining());
            c.position(c.position() + b.remaining());
        }
        c.flip();
        gather[1] = c;
    }

    /** A fetching atomic's old value goes to {@code into} (at its position): {@code typedBytes} of elements, or 0 for one word. */
    void resultInto(ByteBuffer into, int typedBytes) {
        result = into;
        typedResultBytes = typedBytes;
    }

    /** The atomic's old value arrived: into the caller's result buffer (typed elements, or one word in its order). */
    void landResult(long old) {
        ByteBuffer r = result;
        if (r != null && typedResultBytes > 0) {
            AtomicTable.unpack(old, r, r.position(), typedResultBytes);
        } else if (r != null) {
            r.putLong(r.position(), old);
        }
    }

    /** Where an RMA read's response lands: views of its local buffers (reused with this op). */
    TcpPayloadViews landing() {
        TcpPayloadViews l = landing;
        if (l == null) {
            l = new TcpPayloadViews();
            landing = l;
        }
        return l;
    }

    /** Whether every byte of the frame is written. */
    boolean advance() {
        while (first < count && !gather[first].hasRemaining()) {
            first++;
        }
        return first == count;
    }

    /** Forgets the references to the caller's objects (context), keeping the cached views. */
    void reset() {
        context = null;
        started = false;
        result = null;
        kind = 0;
        ackWanted = false;
        reports = false;
        complete = false;
        for (int i = 1; i < gather.length; i++) {
            gather[i] = null;
        }
    }
}
