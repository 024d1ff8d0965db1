package io.jofi.provider.tcp;

import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.stats.ConnectionCounters;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One tcp connection's life: its connection-management states, connect, accept and shutdown
 * (the handshake's bytes are {@link TcpCmHandshake}'s, the socket and its selector interest
 * {@link TcpSocket}'s), and its single end (teardown, {@link EndReason}, the progress timeout).
 * The frames it carries are its {@link TcpTransmitter}'s and {@link TcpReceiver}'s; its
 * {@link TcpEndpoint} reports what its events mean (EQ events, the posted receives' fate). Each part gets its collaborators in its
 * constructor and asks the connection the rest through its {@code Link}, which this implements;
 * the endpoint reaches the parts only through the post methods here.
 *
 * <p><b>States.</b> Active: {@link #connect} → CONNECTING (socket connect) → REQ_SENT (CM
 * request written, response awaited) → CONNECTED, or refused. Passive: {@link #accept} →
 * ACCEPTING (response being written) → CONNECTED. Every end — local {@code shutdown}, the
 * peer's FIN or reset, malformed input, the progress timeout, departure — goes to DOWN once
 * ({@link #teardown}): socket closed, every pending operation failed, the endpoint told (R14).
 *
 * <p><b>Loops.</b> Set-up runs on the fabric's CM loop; once established the socket moves to
 * the domain's data loop ({@link #moveToDataLoop}), progressed in the domain's mode.
 *
 * <p><b>Threads.</b> One lock ({@link #lock}: the endpoint) guards this object and its parts; the progress step takes it per selected key,
 * the application's calls per operation.
 */
final class TcpConnection implements SelectHandler, ConnectionCounters.Ends, ConnectionSetupTimer.Setup,
        TcpTransmitter.Link, TcpReceiver.Link, TcpRmaTarget.Link {
    static final int IDLE = 0;
    static final int CONNECTING = 1;
    static final int REQ_SENT = 2;
    static final int ACCEPTING = 3;
    static final int CONNECTED = 4;
    static final int DOWN = 5;

    private final TcpDomain domain;
    private final Info info;
    private final Object lock;
    /** The MSG endpoint this connection is: its events go there. */
    private final TcpEndpoint endpoint;
    /** The endpoint's receive queue this connection delivers into. */
    private final ReceiveQueue queue;
    /** The frame being read: shared by the receiver and the RMA parts it hands frames to. */
    private final InboundFrame frame = new InboundFrame();
    private final TcpTransmitter tx;
    private final TcpRmaTarget rmaTarget;
    private final TcpRmaInitiator rma;
    private final TcpMessageInitiator messages;
    private final TcpReceiver rx;

    private int cm = IDLE;
    private final TcpSocket socket;
    private final TcpCmHandshake handshake = new TcpCmHandshake();
    /** Both CM messages carried JOFI's marker: atomics (ops 5/6) and flag bit 1 may be used. */
    private boolean jofiPeer;
    /** What {@link #jofiPeer} allows, as values for the data path ({@link TcpPeerLink#maxOp}). */
    private int maxOp = TcpWireDescriptor.MAX_OP;
    private int jofiFlags;
    /** Why the connection ended ({@link EndReason}): provErrno and errData of its error completions; 0/null for a plain end. */
    private int endProvErrno;
    private byte[] endReason;
    private final StallWatch stall = new StallWatch();
    /**
     * {@link TcpTransmitter#bytesSent} after the last read that brought data (-1: none yet):
     * while the two are equal this side awaits no answer, and {@link #poll} leaves its socket to
     * the selector pass.
     */
    private long sentWhenDataCame = -1;
    /** Its endpoint's connection counters (made, refused, lost, partial writes, read pauses). */
    private final TcpConnectionCounters counters;
    /** Its endpoint's post counters, counted inside {@link #lock} (several threads may post at once). */
    private final io.jofi.spi.util.EndpointCounters posts;

    TcpConnection(TcpDomain domain, Info info, TcpEndpoint endpoint, DataPathBindings bound, ReceiveQueue queue,
                  int queueSize, TcpConnectionCounters counters, io.jofi.spi.util.EndpointCounters posts) {
        this.domain = domain;
        this.counters = counters;
        this.posts = posts;
        this.info = info;
        this.lock = endpoint;
        this.endpoint = endpoint;
        this.queue = queue;
        this.socket = new TcpSocket(domain.loop(), this);
        // each part gets the collaborators it uses; it asks the connection the rest through its Link
        this.tx = new TcpTransmitter(this, bound, counters, queueSize);
        this.rmaTarget = new TcpRmaTarget(this, tx, frame, bound, domain.memoryRegistry());
        this.rma = new TcpRmaInitiator(this, tx, frame, bound);
        this.messages = new TcpMessageInitiator(this, tx);
        this.rx = new TcpReceiver(this, frame, tx, queue, bound, rmaTarget, rma);
    }

    // =================================================================== the endpoint's data path (takes the lock, counts)

    /** A send the endpoint checked ({@link TcpMessageInitiator#post}); 0 or a negative errno, counted. */
    int postSend(ByteBuffer buf, Msg msg, long length, boolean tagged, long tag, long data, long flags, Object context) {
        synchronized (lock) {
            return posts.send(messages.post(buf, msg, length, tagged, tag, data, flags, context), tagged, length);
        }
    }

    /** An RMA read or write the endpoint checked ({@link TcpRmaInitiator#post}); counted. */
    int postRma(boolean read, ByteBuffer buf, RmaMsg msg, long length, long addr, long key, long data, long flags,
                Object context) {
        synchronized (lock) {
            return posts.rma(rma.post(read, buf, msg, length, addr, key, data, flags, context), read, length);
        }
    }

    /** An atomic the endpoint checked ({@link TcpRmaInitiator#atomic}); counted. */
    int postAtomic(int op, long operand, long compare, ByteBuffer result, long addr, long key, long flags, Object context) {
        synchronized (lock) {
            return posts.atomic(rma.atomic(op, operand, compare, result, addr, key, flags, context));
        }
    }

    /** A typed atomic the endpoint checked ({@link TcpRmaInitiator#typedAtomic}); counted. */
    int postTypedAtomic(long kind, int datatype, int op, int count, ByteBuffer buf, ByteBuffer compare,
                        ByteBuffer result, long addr, long key, long flags, Object context) {
        synchronized (lock) {
            return posts.atomic(rma.typedAtomic(kind, datatype, op, count, buf, compare, result, addr, key, flags,
                    context));
        }
    }

    /** A receive was posted: a message that waited for one reads on. Under lock. */
    void receivePosted() {
        rx.resumeIfPaused();
    }

    /** Whether connect or accept may still be called (nothing started yet). Under lock. */
    boolean idle() {
        return cm == IDLE;
    }

    /** The state of the frame being read (an {@code InboundFrame} state). Under lock. */
    int readState() {
        return frame.state();
    }

    // =================================================================== set-up (control path, under lock)

    /**
     * Starts connecting to {@code addr} with up to 256 bytes of connection data; the outcome
     * goes to the endpoint ({@link TcpEndpoint#connected} / {@link TcpEndpoint#connectFailed}).
     *
     * @throws FabricException {@code EOPBADSTATE} when not idle; {@code EINVAL} for a bad
     *         address or too much data; {@code EIO} when no socket can be opened
     */
    void connect(byte[] addr, byte[] param) throws FabricException {
        if (cm != IDLE) {
            throw new FabricException(Errno.EOPBADSTATE, "connect: the endpoint is not idle (connect once, on an endpoint not opened for a connection request)");
        }
        int len = TcpCmHandshake.checkData("connect", param);
        InetSocketAddress dest;
        try {
            dest = Addresses.fromSockaddr(addr);
        } catch (RuntimeException e) {
            throw new FabricException(Errno.EINVAL, "connect: not a socket address: " + e.getMessage(), e);
        }
        try {
            socket.open(dest, info.srcAddr(), domain.provider());
            handshake.request(param, len);
            cm = CONNECTING;
            int started = socket.startConnect();
            if (started < 0) {
                // refused or unreachable at once: a failed connect, not a failed call, so an RDM
                // endpoint fails those sends and connects again later
                failConnect(-started, -started, null, 0);
                return;
            }
            cm = started == 1 ? REQ_SENT : CONNECTING;
            // Connection set-up runs on the fabric's CM loop (control progress is AUTO even when
            // data progress is MANUAL); the socket moves to the domain's loop once connected.
            socket.registerForSetUp(domain.cmLoop(), started == 1);
            domain.connectTimer().start(this);
        } catch (FabricException e) {
            cm = IDLE;
            socket.abandon();
            throw e;
        } catch (IOException e) {
            cm = IDLE;
            socket.abandon();
            throw new FabricException(Errno.EIO, "connect: cannot open a socket to " + dest + ": " + e.getMessage(), e);
        }
    }

    /**
     * Accepts the request read from {@code ch} (key {@code k} on the CM loop, taken over here):
     * the CM accept with {@code param} is written there, then the socket moves to the data loop.
     * {@code jofi}: the request carried JOFI's marker (only then is it answered with it).
     */
    void accept(SocketChannel ch, SelectionKey k, byte[] param, int len, boolean jofi) throws FabricException {
        socket.adopt(ch);
        peerKind(jofi);
        handshake.accept(param, len, jofi);
        cm = ACCEPTING;
        // Take over the request's key on the CM loop: the response is written there, then the
        // socket moves to this domain's loop (moveToDataLoop).
        if (!socket.takeKey(k)) {
            teardown(Errno.ECONNRESET, true);
            return;
        }
        // FI_CONNECTED before the response can reach the peer: a peer that connects its next
        // endpoint once its own FI_CONNECTED came finds this event ahead of its new FI_CONNREQ
        // on an EQ both share (libfabric's tcp posts it on the thread that reads the next request)
        endpoint.connected(null);
        domain.cmLoop().wakeup();
        flush();
    }

    /**
     * {@code fi_shutdown}: FIN to the peer; the connection ends with {@code ECANCELED} and
     * {@code FI_SHUTDOWN} (R14). A second call does nothing.
     *
     * @throws FabricException {@code ENOTCONN} when it never connected
     */
    void shutdown() throws FabricException {
        if (cm == DOWN) {
            return;
        }
        if (cm == IDLE) {
            throw new FabricException(Errno.ENOTCONN, "shutdown: the endpoint is not connected");
        }
        if (socket.channel() != null) {
            try {
                socket.channel().shutdownOutput();
            } catch (IOException e) {
                // already reset by the peer: teardown below reports the end all the same
            }
        }
        teardown(Errno.ECANCELED, cm == CONNECTED || cm == ACCEPTING);
    }

    /** The socket's local address, or null without a socket. @throws FabricException {@code ENOTCONN} when closed */
    InetSocketAddress localAddress() throws FabricException {
        return socket.localAddress();
    }

    /** The peer's address. @throws FabricException {@code ENOTCONN} when not connected */
    InetSocketAddress remoteAddress() throws FabricException {
        return socket.remoteAddress();
    }

    /** 0 when transmits may be queued now: the endpoint's state, then {@code -ENOTCONN} or {@code -EAGAIN}. */
    @Override
    public int transmitState() {
        int rc = endpoint.postState();
        if (rc != 0) {
            return rc;
        }
        if (cm != CONNECTED) {
            return cm == DOWN || cm == IDLE ? -Errno.ENOTCONN : -Errno.EAGAIN;
        }
        return 0;
    }

    // =================================================================== progress

    /** The selector found the socket ready: finish the connect, read, write. */
    @Override
    public void onSelected(int readyOps) {
        synchronized (lock) {
            try {
                onSelectedLocked(readyOps);
            } catch (java.nio.channels.CancelledKeyException e) {
                // The socket was closed while this key was selected: the connection is down already.
            } catch (RuntimeException e) {
                // A defect must not stop the domain's progress thread for every other endpoint:
                // this connection ends (FI_SHUTDOWN, error completions), the others go on.
                teardown(Errno.EIO, true);
            }
        }
    }

    /**
     * Manual progress without a selector pass ({@link NioLoop#registerPolled}): reads what has
     * arrived on a connected socket, when this side awaits an answer; leaves the socket to the
     * pass's selector call when it awaits none. Needs the selector pass while a write waits for
     * room or the connection is not established.
     */
    @Override
    public int poll() {
        synchronized (lock) {
            try {
                if (cm != CONNECTED || socket.channel() == null || socket.writing()) {
                    return NEEDS_SELECTOR;
                }
                if (!socket.reading()) {
                    return 0; // paused or blocked: a posted receive or transmit room resumes it
                }
                if (tx.bytesSent() == sentWhenDataCame && rx.betweenSmallFrames()) {
                    // Nothing written since data last came, between small frames: a stream of
                    // small messages, whose receiver is ahead of the sender. Its reads that find
                    // nothing take the socket's lock against the sender's delivery; the selector
                    // pass's epoll_wait reads only the ready list (64 B and 4 KiB streams up to
                    // 17 % faster so: benchmarks/results/tcp-performance.md). A side that wrote (a ping-pong's, a request's) reads directly:
                    // its answer comes in one system call, not two; so does a receiver of large
                    // frames, whose next piece is on its way (64 KiB streams lost a fifth without).
                    return LEFT_TO_SELECTOR;
                }
                if (rx.readNow()) {
                    sentWhenDataCame = tx.bytesSent();
                    return 1;
                }
                return 0;
            } catch (java.nio.channels.CancelledKeyException e) {
                return NEEDS_SELECTOR;
            } catch (RuntimeException e) {
                teardown(Errno.EIO, true);
                return 1;
            }
        }
    }

    private void onSelectedLocked(int readyOps) {
        if (cm == DOWN || socket.channel() == null) {
            return;
        }
        if ((readyOps & SelectionKey.OP_CONNECT) != 0 && cm == CONNECTING) {
            try {
                socket.finishConnect();
            } catch (IOException e) {
                // an unreachable peer is said as such, whether connect(2) or the SYN's answer said it
                int why = TcpSocket.kernelErrno(e);
                boolean unreachable = why == Errno.EHOSTUNREACH || why == Errno.ENETUNREACH;
                failConnect(unreachable ? why : Errno.ECONNREFUSED, why, null, 0);
                return;
            }
            cm = REQ_SENT;
            socket.connectCompleted();
        }
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            flush();
        }
        if ((readyOps & SelectionKey.OP_READ) != 0 && cm != DOWN) {
            if (cm == REQ_SENT) {
                readResponse();
            }
            if (cm == CONNECTED || cm == ACCEPTING) {
                long before = rx.bytesReceived();
                rx.readReady();
                if (rx.bytesReceived() != before) {
                    sentWhenDataCame = tx.bytesSent();
                }
            }
        }
    }

    /** Active side: reads exactly the CM response ({@link TcpCmHandshake}) and acts on it. */
    private void readResponse() {
        int status = handshake.readResponse(socket.channel());
        if (status == 0) {
            return;
        }
        if (status < 0) {
            byte[] data = handshake.rejectData();
            failConnect(-status, 0, data, data == null ? 0 : data.length);
            return;
        }
        CmMessage accept = handshake.message();
        domain.connectTimer().done(this);
        cm = CONNECTED;
        peerKind(accept.isJofi());
        if (!moveToDataLoop()) {
            return;
        }
        counters.connections.made(this);
        endpoint.connected(accept);
    }

    /**
     * The connection is established: its socket leaves the fabric's CM loop for the domain's
     * data loop ({@link TcpSocket#moveToDataLoop}). Nothing of the stream is lost: the CM
     * response was read exactly, and the passive side's response is written completely.
     *
     * @return false when the socket is gone (torn down, R14)
     */
    private boolean moveToDataLoop() {
        if (socket.moveToDataLoop()) {
            return true;
        }
        teardown(Errno.ECONNRESET, true);
        return false;
    }

    /**
     * The connect's deadline passed ({@link TcpFabric#connectTimer}, the progress timeout): the
     * peer took the socket but never answered the connection request — stopped, hung, or its
     * application never accepts. The connect fails with {@code ETIMEDOUT} and the reason. On the
     * CM loop thread; never throws.
     */
    @Override
    public void expire() {
        synchronized (lock) {
            if (cm == CONNECTING || cm == REQ_SENT) {
                byte[] reason = EndReason.of(socket.channel(), "no answer", "the connection request was not answered within "
                        + domain.provider().progressTimeoutMillis() + " ms (the peer is stopped, hung or does not accept;"
                        + " jofi.tcp.progressTimeout)");
                failConnect(Errno.ETIMEDOUT, 0, reason, reason.length);
            }
        }
    }

    /** {@code provErrno}: the kernel's reason where the socket gave one, so a timeout is told from a refusal. */
    private void failConnect(int err, int provErrno, byte[] errData, int errDataSize) {
        domain.connectTimer().done(this);
        counters.connections.refused(this, err);
        cm = DOWN;
        socket.close();
        endpoint.connectFailed(err, provErrno, errData, errDataSize);
    }

    /** Writes what is queued: the CM message, then the transmitter's frames and acks. */
    @Override
    public void flush() {
        SocketChannel ch = socket.channel();
        if (ch == null || cm == DOWN || cm == CONNECTING) {
            return;
        }
        try {
            if (handshake.writing()) {
                handshake.write(ch);
                if (handshake.writing()) {
                    wantWrite(true);
                    return;
                }
                if (cm == ACCEPTING) {
                    cm = CONNECTED;
                    if (!moveToDataLoop()) {
                        return;
                    }
                    counters.connections.made(this);
                }
            }
            if (cm != CONNECTED) {
                wantWrite(false);
                return;
            }
            tx.writeFrames(ch);
        } catch (IOException e) {
            teardown(Errno.ECONNRESET, true);
        }
    }

    @Override
    public void wantWrite(boolean on) {
        socket.wantWrite(on);
    }

    /** Reading goes on: read interest back on, and the loop woken to see it (it may be asleep in select). */
    @Override
    public void wantRead() {
        socket.wantRead();
    }

    /** Reading stops until {@link #wantRead} (a receive is posted, transmit room comes back). */
    @Override
    public void stopReading(boolean counted) {
        if (counted) {
            counters.readPauses.increment();
        }
        socket.stopReading();
    }

    /** Whether frames are read now (connected, or accepting with the response on its way). */
    @Override
    public boolean carriesData() {
        return cm == CONNECTED || cm == ACCEPTING;
    }

    // =================================================================== the end

    /**
     * The connection ends (once): socket closed, pending operations failed with {@code err},
     * and {@code FI_SHUTDOWN} raised when it was established (R14).
     */
    @Override
    public void teardown(int err, boolean report) {
        teardown(err, report, 0, null);
    }

    /**
     * The peer sent what the wire does not allow: the connection ends ({@code ECONNRESET},
     * R14) and says why ({@link EndReason}, {@code provErrno} {@code EPROTO}).
     */
    @Override
    public void malformed(String what) {
        teardown(Errno.ECONNRESET, true, Errno.EPROTO, EndReason.of(socket.channel(), "malformed input", what));
    }

    /**
     * As {@link #teardown(int, boolean)}, with a reason: {@code provErrno} and {@code reason}
     * go with every error completion and {@code reason} is the payload of {@code FI_SHUTDOWN}.
     */
    void teardown(int err, boolean report, int provErrno, byte[] reason) {
        if (cm == DOWN) {
            return;
        }
        int was = cm;
        cm = DOWN;
        endProvErrno = provErrno;
        endReason = reason;
        if ((was == CONNECTED || was == ACCEPTING) && err != Errno.ECANCELED && err != Errno.ENODEV) {
            counters.connections.lost(this, err, reason == null ? null : new String(reason, java.nio.charset.StandardCharsets.UTF_8)); // the peer's doing or a failure, not our shutdown or departure
        }
        socket.close();
        failAll(err);
        endpoint.ended(report && (was == CONNECTED || was == ACCEPTING), reason);
    }

    /** Fails every pending operation with {@code err} (R14). */
    void failAll(int err) {
        tx.failAll(err);
        rx.failCurrent(err);
        queue.failPosted(err, endProvErrno, endReason);
        rx.abandonBuffering(err);
        tx.resetAcks();
    }

    /**
     * The progress timeout ({@link ProgressWatchdog}, domain progress thread): a connection that
     * waits for its peer — operations not yet written or awaiting an ack or a response, acks not
     * yet written, a message arriving in parts — and moved no byte either way for
     * {@code timeoutNanos} ends with {@code ETIMEDOUT} (error completions, {@code FI_SHUTDOWN}).
     */
    void checkStall(long now, long timeoutNanos) {
        synchronized (lock) {
            if (cm != CONNECTED) {
                return;
            }
            boolean waiting = tx.waiting() || frame.inPayload();
            if (stall.stalled(rx.bytesReceived() + tx.bytesSent(), waiting, now, timeoutNanos)) {
                teardown(Errno.ETIMEDOUT, true, Errno.ETIMEDOUT, EndReason.of(socket.channel(), "no progress",
                        "nothing moved for " + timeoutNanos / 1_000_000 + " ms with operations pending"
                                + " (the peer is stopped, hung or unreachable; jofi.tcp.progressTimeout)"));
            }
        }
    }

    /**
     * Closing discards what is pending without completions (fi_endpoint(3)) and gives back the
     * CQ room those operations reserved; the posted receives stay the owner's. Under lock.
     */
    void discard() {
        domain.connectTimer().done(this);
        cm = DOWN;
        socket.close();
        tx.discard();
        rx.discardCurrent();
    }

    /** Departure (R15): pending operations fail with {@code err}; an established connection ends with FI_SHUTDOWN. */
    void depart(int err) {
        if (cm == IDLE) {
            cm = DOWN;
            failAll(err);
            return;
        }
        teardown(err, true);
    }

    /** The socket's local address for the connection events, or null once it is closed. */
    @Override
    public Object localEnd() {
        return socket.localEnd();
    }

    /** The peer's address for the connection events: the connected socket's, else where it connected to, or null. */
    @Override
    public Object peerEnd() {
        return socket.peerEnd();
    }

    /**
     * A receive took (or discarded) a buffered message of this connection whose ack waited for
     * the match ({@code FI_MATCH_COMPLETE}; {@code seq} its place in the ack order, -1 when no
     * ack is owed).
     */
    @Override
    public void ackMatched(long seq) {
        if (cm != DOWN && seq >= 0) {
            tx.ackReady(seq);
        }
    }

    // =================================================================== what the parts ask (their Links)

    /** Sets what the handshake said of the peer: JOFI's marker or none. */
    private void peerKind(boolean jofi) {
        jofiPeer = jofi;
        maxOp = jofi ? TcpWireDescriptor.MAX_JOFI_OP : TcpWireDescriptor.MAX_OP;
        jofiFlags = jofi ? TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE : 0;
    }

    @Override
    public boolean jofiPeer() {
        return jofiPeer;
    }

    @Override
    public int maxOp() {
        return maxOp;
    }

    @Override
    public int jofiFlags() {
        return jofiFlags;
    }

    @Override
    public SocketChannel channel() {
        return socket.channel();
    }

    @Override
    public boolean down() {
        return cm == DOWN;
    }

    @Override
    public int endProvErrno() {
        return endProvErrno;
    }

    @Override
    public byte[] endReason() {
        return endReason;
    }

    @Override
    public void flushReceived() {
        rx.flushCompletions();
    }

    @Override
    public void transmitRoomFreed() {
        if (frame.blocked()) {
            rx.unblock();
        }
    }

    @Override
    public boolean assignAck(boolean wanted) {
        return rx.assignAck(wanted);
    }

    @Override
    public void blockReading() {
        rx.block();
    }
}
