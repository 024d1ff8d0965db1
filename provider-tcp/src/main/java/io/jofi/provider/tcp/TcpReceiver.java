package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_ATOMIC_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_ATOMIC_RESPONSE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_MSG;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_RESPONSE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_TAGGED;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_WRITE;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.provider.tcp.wire.WireStatus;
import io.jofi.spi.util.ArrivingMessage;
import io.jofi.spi.util.CompletionBatch;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.ReceiveCompletion;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UnexpectedMessage;
import io.jofi.spi.util.UnexpectedPayload;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * A tcp connection's receive side: reads the socket into its read buffer, decodes each frame
 * into the connection's {@link InboundFrame} and moves its payload to where it belongs — a
 * posted receive or the unexpected queue (the endpoint's {@link ReceiveQueue}), a registered
 * region ({@link TcpRmaTarget}), this side's read or atomic ({@link TcpRmaInitiator}). As the
 * {@link UnexpectedPayload} of its messages it keeps their bytes in a heap buffer each and
 * sends the ack a receive's match owes.
 *
 * <p>One {@code read} fetches as much as the socket has: headers, small payloads (copied from
 * the read buffer into their destination), the start of the next frame. A payload with at
 * least {@link #COPY_THRESHOLD} bytes due when the read buffer is empty is read straight into
 * its destination by a scattering read whose last element is the emptied read buffer. A read
 * that did not fill the room it was offered marks the socket drained: no read until the
 * selector (or a poll) reports it readable again. Guarded by the connection's lock.
 */
final class TcpReceiver implements UnexpectedPayload {
    /**
     * Bytes of the per-connection read buffer: many small messages per read, and at most this
     * much of a large payload copied (what arrived with its header).
     */
    static final int READ_BUFFER_BYTES = 16 * 1024;
    /**
     * A payload with at least this many bytes still due, when the read buffer is empty, is read
     * straight into its destination (scattering read, the read buffer last for what follows);
     * a smaller rest is read into the read buffer and copied.
     */
    static final int COPY_THRESHOLD = 2 * 1024;
    /** Receive completions a read pass stages before it publishes them ({@link CompletionBatch}). */
    static final int COMPLETION_BATCH = 64;

    /** What the receiver asks of its connection. */
    interface Link extends TcpPeerLink {
        /** The connected socket. */
        SocketChannel channel();

        /** Whether frames are read now (connected, or accepting with the response on its way). */
        boolean carriesData();

        /** Whether the connection has ended. */
        boolean down();

        /** The connection ends with {@code err}; {@code report}: the endpoint hears of it. */
        void teardown(int err, boolean report);

        /** Reading goes on (read interest back on). */
        void wantRead();

        /** Reading stops until {@link #wantRead}; {@code counted}: a message's first pause for want of a receive. */
        void stopReading(boolean counted);

        /** Why the connection ended: the provErrno of the error completions (0 for a plain end). */
        int endProvErrno();

        /** Why the connection ended: the errData of the error completions, or null. */
        byte[] endReason();

        /** A buffered message that owed an ack at match time was matched or dropped: its ack may go. */
        void ackMatched(long seq);
    }

    private final Link link;
    private final InboundFrame frame;
    private final TcpTransmitter tx;
    private final ReceiveQueue queue;
    private final DataPathBindings bound;
    /** The frames of the peer's RMA and atomics: requests to the target, responses to the initiator. */
    private final TcpRmaTarget target;
    private final TcpRmaInitiator initiator;

    /**
     * The read buffer, in read mode between calls (position = first byte not consumed, limit =
     * end of what arrived). Large payloads bypass it ({@link #scatter}).
     */
    private final ByteBuffer rxBuf = ByteBuffer.allocateDirect(READ_BUFFER_BYTES).order(ByteOrder.BIG_ENDIAN).limit(0);
    /** {@link #scatter}'s destinations: a payload's views, then {@link #rxBuf} for what follows. */
    private final ByteBuffer[] scatterViews = new ByteBuffer[TcpProvider.IOV_LIMIT + 1];
    /**
     * The receive completions of one read pass ({@link #readMessages}), published together: one
     * claim, one depth mark and one wake for the messages one read brought, where each message
     * cost them (a 64 B stream brings hundreds a read). Every other CQ entry written during the
     * pass — a send an ack completes, a remote write's data — is written after
     * {@link #flushCompletions}, so the CQ's order is the unbatched one.
     */
    private final CompletionBatch completions = new CompletionBatch(COMPLETION_BATCH);
    /**
     * The last read returned less than the room it was offered: the socket is empty, so the
     * next read waits for the selector to report the socket readable again (level-triggered:
     * a byte that arrives later is reported). Saves the read that would only find EAGAIN.
     */
    private boolean drained;
    /** {@link #readMessages} is on the stack (a nested call from a completion path returns at once). */
    private boolean reading;
    /** Bytes read from the socket so far (tells a poll whether it found anything; the progress timeout). */
    private long received;
    /** A frame of at most this many payload bytes is small: {@link #betweenSmallFrames}. */
    static final int SMALL_FRAME = READ_BUFFER_BYTES / 2;
    /** Whether the last frame that ended was small ({@link #SMALL_FRAME}). */
    private boolean lastFrameSmall;

    TcpReceiver(Link link, InboundFrame frame, TcpTransmitter tx, ReceiveQueue queue, DataPathBindings bound,
                TcpRmaTarget target, TcpRmaInitiator initiator) {
        this.link = link;
        this.frame = frame;
        this.tx = tx;
        this.queue = queue;
        this.bound = bound;
        this.target = target;
        this.initiator = initiator;
    }

    /** Bytes read from the socket so far (the progress the progress timeout watches). */
    long bytesReceived() {
        return received;
    }

    /**
     * Whether the stream is between small frames: no frame begun, no byte of the next one read,
     * and the last frame at most {@link #SMALL_FRAME} bytes (one read brings several of them).
     * Inside a frame its rest is on its way; after a large one, so is the next.
     */
    boolean betweenSmallFrames() {
        return lastFrameSmall && frame.state == InboundFrame.HEADER && !rxBuf.hasRemaining();
    }

    /** The selector reports the socket readable (or ended): read. */
    void readReady() {
        drained = false;
        readMessages();
    }

    /** A manual-progress poll: read what has arrived; whether anything had. */
    boolean readNow() {
        long before = received;
        drained = false;
        readMessages();
        return received != before;
    }

    /**
     * Reads and dispatches frames until the socket has nothing more (or reading pauses or
     * blocks). Bytes already in {@link #rxBuf} are consumed first; a read is issued only when
     * they do not finish the current step and the socket was not found drained.
     */
    private void readMessages() {
        if (reading) {
            return; // the outer call's loop sees the new state
        }
        reading = true;
        ReceiveCompletion completion = queue.completion();
        completion.stageIn(completions);
        try {
            readLoop();
        } catch (IOException e) {
            link.teardown(Errno.ECONNRESET, true);
        } finally {
            completion.stageIn(null); // publishes the pass's completions, also when it ended in a teardown
            reading = false;
        }
    }

    /**
     * Publishes the receive completions this read pass staged so far: before another CQ entry
     * is written directly (a send's, a remote write's), which must not overtake them.
     */
    void flushCompletions() {
        if (!completions.isEmpty()) {
            completions.flush();
        }
    }

    private void readLoop() throws IOException {
        SocketChannel ch = link.channel();
        ByteBuffer in = rxBuf;
        InboundFrame f = frame;
        while (link.carriesData()) {
            switch (f.state) {
                case InboundFrame.HEADER -> {
                    int st = in.hasRemaining()
                            ? f.header.decode(in, TcpProvider.MAX_MSG_SIZE, link.maxOp())
                            : WireStatus.NEED_MORE;
                    if (st == WireStatus.NEED_MORE) {
                        if (!readMore(ch, null, 0, 0, 0)) {
                            return;
                        }
                        continue;
                    }
                    if (st < 0) {
                        link.malformed("malformed header: " + WireStatus.describe(st)); // this connection only
                        return;
                    }
                    onHeader();
                }
                case InboundFrame.PAYLOAD -> {
                    if (!f.placed()) {
                        copyInto(f.views, f.first, f.count);
                        if (!f.placed()) {
                            long due = 0;
                            for (int i = f.first; i < f.count; i++) {
                                due += f.views[i].remaining();
                            }
                            if (!readMore(ch, f.views, f.first, f.count, due)) {
                                return;
                            }
                            continue;
                        }
                    }
                    if (f.discardLeft > 0) {
                        f.state = InboundFrame.DISCARD;
                    } else {
                        endFrame();
                    }
                }
                case InboundFrame.DISCARD -> {
                    int skip = (int) Math.min(in.remaining(), f.discardLeft);
                    in.position(in.position() + skip);
                    f.discardLeft -= skip;
                    if (f.discardLeft > 0) {
                        if (!readMore(ch, null, 0, 0, 0)) {
                            return;
                        }
                        continue;
                    }
                    endFrame();
                }
                case InboundFrame.UNEXPECTED -> {
                    ByteBuffer d = f.unexpectedData;
                    if (d.hasRemaining()) {
                        ByteBuffer[] one = scatterViews;
                        one[0] = d;
                        copyInto(one, 0, 1);
                        if (d.hasRemaining()) {
                            if (!readMore(ch, one, 0, 1, d.remaining())) {
                                return;
                            }
                            continue;
                        }
                    }
                    d.flip();
                    UnexpectedMessage u = f.unexpected;
                    f.unexpected = null;
                    f.unexpectedData = null;
                    f.state = InboundFrame.HEADER;
                    if (f.ack && !f.matchAck) {
                        // buffered at the target: delivery/transmit complete are met (R11)
                        tx.ackReady(f.ackSeq);
                    }
                    // A receive posted while this message was being buffered takes it now.
                    queue.arrived(u);
                }
                default -> {
                    return; // PAUSED, BLOCKED
                }
            }
        }
    }

    /**
     * Reads more for the current step, unless the socket was found drained: a step due at
     * least {@link #COPY_THRESHOLD} bytes reads them straight into {@code views[from..to)}
     * ({@link #scatter}), any other into {@link #rxBuf} ({@link #fill}).
     *
     * @return false when the read loop must return: the socket is drained (the selector
     *         reports it again) or the stream ended (the connection is torn down)
     */
    private boolean readMore(SocketChannel ch, ByteBuffer[] views, int from, int to, long due) throws IOException {
        if (drained) {
            return false;
        }
        if ((due >= COPY_THRESHOLD ? scatter(ch, views, from, to, due) : fill(ch)) < 0) {
            link.teardown(Errno.ECONNRESET, true);
            return false;
        }
        return true;
    }

    /**
     * Reads into the free room of {@link #rxBuf} (after moving the unconsumed bytes to its
     * start). Marks the socket {@link #drained} when the read did not fill the room.
     *
     * @return the bytes read, or -1 at end of stream
     */
    private int fill(SocketChannel ch) throws IOException {
        ByteBuffer in = rxBuf;
        in.compact();
        int room = in.remaining();
        int n = ch.read(in);
        in.flip();
        if (n < room) {
            drained = true;
        }
        if (n > 0) {
            received += n;
        }
        return n;
    }

    /**
     * One scattering read straight into {@code views[from..to)} ({@code due} bytes of room,
     * never copied) and then into the emptied {@link #rxBuf}, which catches the next header
     * and small messages in the same system call.
     *
     * @return the bytes read, or -1 at end of stream
     */
    private long scatter(SocketChannel ch, ByteBuffer[] views, int from, int to, long due) throws IOException {
        ByteBuffer[] s = scatterViews;
        int n = to - from;
        for (int i = 0; i < n; i++) {
            s[i] = views[from + i];
        }
        ByteBuffer in = rxBuf;
        in.clear();
        s[n] = in;
        long got;
        try {
            got = ch.read(s, 0, n + 1);
        } finally {
            in.flip();
            for (int i = 0; i <= n; i++) {
                s[i] = null; // keep no reference to the application's buffers
            }
        }
        if (got < due + in.capacity()) {
            drained = true;
        }
        if (got > 0) {
            received += got;
        }
        return got;
    }

    /** Copies buffered bytes from {@link #rxBuf} into {@code views[from..to)} (as much as both have). */
    private void copyInto(ByteBuffer[] views, int from, int to) {
        ByteBuffer in = rxBuf;
        int left = in.remaining();
        if (left == 0) {
            return;
        }
        int at = in.position();
        for (int i = from; i < to && left > 0; i++) {
            ByteBuffer v = views[i];
            int take = Math.min(v.remaining(), left);
            if (take > 0) {
                v.put(v.position(), in, at, take);
                v.position(v.position() + take);
                at += take;
                left -= take;
            }
        }
        in.position(at);
    }

    /**
     * Consumes what {@link #rxBuf} holds after reading was re-enabled outside a selector pass
     * (a receive was posted, transmit room came back): those bytes are in no socket, so no
     * selector would report them. Reads nothing new; the selector reports the socket. A step
     * that needs no more bytes (a 0-byte message whose header was read before it found room)
     * is finished here too: no selector would ever report it.
     */
    private void consumeBuffered() {
        if ((rxBuf.hasRemaining() || frame.state != InboundFrame.HEADER) && !reading && link.carriesData()) {
            drained = true;
            readMessages();
        }
    }

    // =================================================================== frames

    private void onHeader() {
        MessageHeader h = frame.header;
        if (h.isAck()) {
            TcpTransmitOp op = tx.acked();
            if (op == null || h.payloadLength() != 0) {
                link.malformed("an acknowledgement nobody asked for"); // the peer is confused
                return;
            }
            tx.complete(op);
            return;
        }
        switch (h.op()) {
            case OP_MSG, OP_TAGGED -> onMessage(h);
            case OP_WRITE -> target.onWrite(h);
            case OP_READ_REQUEST -> target.onReadRequest(h);
            case OP_READ_RESPONSE -> initiator.onReadResponse(h);
            case OP_ATOMIC_REQUEST -> target.onAtomicRequest(h);
            case OP_ATOMIC_RESPONSE -> initiator.onAtomicResponse(h);
            default -> link.malformed("unknown op " + h.op()); // the decoder lets no other op through
        }
    }

    /** A message (op 0 or 1): its header into the frame, then to a receive, the unexpected queue, or a pause. */
    private void onMessage(MessageHeader h) {
        InboundFrame f = frame;
        f.length = h.payloadLength();
        f.message.set(h.hasTag(), h.hasTag() ? h.tag() : 0, h.hasCqData(), h.hasCqData() ? h.cqData() : 0,
                Fi.FI_ADDR_NOTAVAIL, null, f.length); // an MSG connection: no source address (R10)
        f.matchAck = (h.flags() & link.jofiFlags() & TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE) != 0;
        if (!assignAck(h.ackRequested())) {
            return;
        }
        f.kind = InboundFrame.MSG;
        beginMessage();
    }

    /** The frame asks for an ack (flag bit 2, or bit 3 on a write): it gets a place in the ack order. */
    boolean assignAck(boolean wanted) {
        InboundFrame f = frame;
        f.ack = wanted;
        f.ackSeq = -1;
        if (wanted) {
            f.ackSeq = tx.assignAck();
            if (f.ackSeq < 0) {
                link.malformed("more unacknowledged messages than any queue allows");
                return false;
            }
        }
        return true;
    }

    /** Picks where the message's payload goes: the next posted receive, the unexpected buffer, or nowhere yet (pause). */
    private void beginMessage() {
        InboundFrame f = frame;
        ArrivingMessage m = f.message;
        PostedReceive r = queue.match(m);
        if (r != null) {
            long placed = Math.min(f.length, r.capacity());
            f.receive = r;
            f.views = r.scatterViews(placed);
            f.first = 0;
            f.count = r.segmentCount();
            f.discardLeft = f.length - placed;
            f.discarded = f.discardLeft;
            f.state = InboundFrame.PAYLOAD;
            return;
        }
        if (queue.admits(f.length)) {
            // FI_MATCH_COMPLETE (JOFI bit 1): the ack waits for the receive (its sequence number
            // travels as the handle's value); else it goes once buffered
            ByteBuffer data = ByteBuffer.allocate((int) f.length); // the only allocation: a message before its receive
            UnexpectedMessage u = queue.newUnexpected(f.length);
            u.set(m.tagged(), m.tag(), m.hasData(), m.data(), m.src(), m.sourceAddress(), m.length());
            u.payload(this, data, f.ack && f.matchAck ? f.ackSeq : -1);
            f.unexpected = u;
            f.unexpectedData = data;
            f.state = InboundFrame.UNEXPECTED;
            return;
        }
        boolean first = f.state != InboundFrame.PAUSED; // not counted again when a resume finds no room yet
        f.state = InboundFrame.PAUSED;
        link.stopReading(first);
    }

    /** The frame's payload is all moved: finish what it was for. */
    private void endFrame() {
        InboundFrame f = frame;
        lastFrameSmall = f.length <= SMALL_FRAME;
        PostedReceive r = f.receive;
        long discarded = f.discarded;
        f.landed();
        switch (f.kind) {
            case InboundFrame.WRITE -> target.endWrite();
            case InboundFrame.READ_RESPONSE -> initiator.endReadResponse();
            case InboundFrame.ATOMIC_REQUEST -> target.endAtomicRequest();
            case InboundFrame.ATOMIC_RESPONSE -> initiator.endAtomicResponse();
            default -> {
                if (f.ack) {
                    // ack after placing the data, before this side's own completion (R11)
                    tx.ackReady(f.ackSeq);
                }
                queue.complete(r, f.message, f.length - discarded);
            }
        }
        f.kind = InboundFrame.MSG;
    }

    // =================================================================== pause, block, resume

    /** A request's response finds no room in the transmit queue: stop reading until it has some (back-pressure). */
    void block() {
        frame.state = InboundFrame.BLOCKED;
        link.stopReading(false);
    }

    /** Room in the transmit queue again: the blocked request is handled and reading goes on. */
    void unblock() {
        if (tx.isFull() || link.down()) {
            return;
        }
        frame.state = InboundFrame.HEADER;
        onHeader(); // the frame's header still holds the blocked request (nothing was decoded since)
        if (frame.state != InboundFrame.BLOCKED && frame.state != InboundFrame.PAUSED && !link.down()) {
            link.wantRead();
        }
        consumeBuffered();
    }

    /** A receive was posted: a message that waited for one reads on. */
    void resumeIfPaused() {
        if (frame.state == InboundFrame.PAUSED && !link.down()) {
            // The paused message's header is read already: find its destination again (the
            // receive just posted, or room freed in the unexpected buffer).
            beginMessage();
            if (frame.state == InboundFrame.PAUSED) {
                return;
            }
            link.wantRead();
            consumeBuffered();
        }
    }

    // =================================================================== the end

    /** The connection ended: the read or atomic whose response was being read, and the receive being filled, fail. */
    void failCurrent(int err) {
        InboundFrame f = frame;
        if (f.responseFor != null) {
            TcpTransmitOp r = f.responseFor;
            f.responseFor = null;
            tx.fail(r, err);
        }
        PostedReceive r = f.receive;
        f.receive = null;
        f.views = null;
        if (r != null && f.kind == InboundFrame.MSG) {
            queue.fail(r, err, link.endProvErrno(), link.endReason());
        }
        f.kind = InboundFrame.MSG;
    }

    /**
     * Messages that arrived whole before the end stay queued: the peer sent them before its
     * shutdown, so a receive posted now still gets them (nothing the peer sent is lost). Only
     * the message cut off mid-payload goes.
     */
    void abandonBuffering(int err) {
        if (frame.unexpected != null) {
            queue.abandon(frame.unexpected, err);
            frame.unexpected = null;
            frame.unexpectedData = null;
        }
    }

    /** Closing: the frame's operation goes without a completion, its CQ room given back. */
    void discardCurrent() {
        InboundFrame f = frame;
        if (f.responseFor != null) {
            bound.txCq().unreserve();
            f.responseFor = null;
        }
        if (f.receive != null && f.kind == InboundFrame.MSG) {
            bound.rxCq().unreserve();
        }
        f.receive = null;
        f.views = null;
    }

    // =================================================================== UnexpectedPayload

    /**
     * A receive takes a buffered message of this connection: its bytes are copied into the
     * receive, and an ack owed at match time ({@code FI_MATCH_COMPLETE}) goes before the
     * receive's completion (R11).
     */
    @Override
    public long copyTo(UnexpectedMessage message, PostedReceive into) {
        ByteBuffer d = (ByteBuffer) message.handle();
        long placed = into.place(0, d, d.position(), d.remaining());
        link.ackMatched(message.handleValue());
        return placed;
    }

    /** A buffered message is dropped ({@code FI_DISCARD}): an ack owed at match time goes now. */
    @Override
    public void discard(UnexpectedMessage message) {
        link.ackMatched(message.handleValue());
    }
}
