package io.jofi.provider.tcp;

import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.stats.ConnectionCounters;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One tcp connection's life: its connection-management states, socket and selection key,
 * connect, accept and shutdown (the handshake's bytes are {@link TcpCmHandshake}'s), and its
 * single end (teardown, {@link EndReason}, the progress timeout). The frames it carries are
 * its {@link TcpTransmitter}'s and {@link TcpReceiver}'s; its {@link TcpEndpoint} reports what its
 * events mean (EQ events, the posted receives' fate).
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
final class TcpConnection implements SelectHandler, ConnectionCounters.Ends, ConnectionSetupTimer.Setup {
    static final int IDLE = 0;
    static final int CONNECTING = 1;
    static final int REQ_SENT = 2;
    static final int ACCEPTING = 3;
    static final int CONNECTED = 4;
    static final int DOWN = 5;

    final TcpDomain domain;
    final Info info;
    final Object lock;
    /** The MSG endpoint this connection is: its events go there. */
    final TcpEndpoint endpoint;
    final DataPathBindings bound;
    /** The endpoint's receive queue this connection delivers into. */
    final ReceiveQueue queue;
    final InboundFrame frame = new InboundFrame();
    final TcpTransmitter tx;
    final TcpRmaTarget rmaTarget;
    final TcpRmaInitiator rma;
    final TcpMessageInitiator messages;
    final TcpReceiver rx;

    int cm = IDLE;
    SocketChannel channel;
    private SelectionKey key;
    private final TcpCmHandshake handshake = new TcpCmHandshake();
    boolean interestWrite;
    boolean interestRead;
    /** Both CM messages carried JOFI's marker: atomics (ops 5/6) and flag bit 1 may be used. */
    boolean jofiPeer;
    /** Why the connection ended ({@link EndReason}): provErrno and errData of its error completions; 0/null for a plain end. */
    int endProvErrno;
    byte[] endReason;
    private final StallWatch stall = new StallWatch();
    /** Its endpoint's connection counters (made, refused, lost, partial writes, read pauses). */
    final TcpConnectionCounters counters;
    /** Its endpoint's post counters, counted inside {@link #lock} (several threads may post at once). */
    final io.jofi.spi.util.EndpointCounters posts;
    /** Where {@link #connect} connects to (a refused connect's event names it). */
    private InetSocketAddress connectingTo;

    TcpConnection(TcpDomain domain, Info info, TcpEndpoint endpoint, DataPathBindings bound, ReceiveQueue queue,
                  int queueSize, TcpConnectionCounters counters, io.jofi.spi.util.EndpointCounters posts) {
        this.domain = domain;
        this.counters = counters;
        this.posts = posts;
        this.info = info;
        this.lock = endpoint;
        this.endpoint = endpoint;
        this.bound = bound;
        this.queue = queue;
        this.tx = new TcpTransmitter(this, queueSize);
        this.rmaTarget = new TcpRmaTarget(this, domain.memoryRegistry());
        this.rma = new TcpRmaInitiator(this);
        this.messages = new TcpMessageInitiator(this);
        this.rx = new TcpReceiver(this);
    }

    /** The transmit queue depth of an endpoint opened with {@code info}: its tx/rx size, within 16..65536. */
    static int queueSize(Info info) {
        long tx = info.txAttr().size();
        long rx = info.rxAttr().size();
        return (int) Math.max(16, Math.min(65536, Math.max(tx, rx) == 0 ? TcpProvider.QUEUE_SIZE : Math.max(tx, rx)));
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
        int len = checkConnectionData("connect", param);
        InetSocketAddress dest;
        try {
            dest = Addresses.fromSockaddr(addr);
        } catch (RuntimeException e) {
            throw new FabricException(Errno.EINVAL, "connect: not a socket address: " + e.getMessage(), e);
        }
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open(Sockets.family(dest.getAddress()));
            ch.configureBlocking(false);
            domain.provider().configure(ch); // before connect: the window scale covers SO_RCVBUF
            bindSource(ch, dest);
            handshake.request(param, len);
            channel = ch;
            connectingTo = dest;
            cm = CONNECTING;
            boolean done;
            try {
                done = ch.connect(dest);
            } catch (java.net.ConnectException refused) {
                // Refused at once (possible on loopback): the outcome goes to the role as always.
                failConnect(Errno.ECONNREFUSED, Errno.ECONNREFUSED, null, 0);
                return;
            } catch (java.net.SocketException unreachable) {
                // No route now (the link is down, the interface gone): a failed connect like a
                // refusal, not a failed call, so an RDM endpoint fails those sends and connects again later.
                int err = unreachable instanceof java.net.NoRouteToHostException ? Errno.EHOSTUNREACH : Errno.ENETUNREACH;
                failConnect(err, err, null, 0);
                return;
            }
            cm = done ? REQ_SENT : CONNECTING;
            interestRead = done;
            interestWrite = done;
            // Connection set-up runs on the fabric's CM loop (control progress is AUTO even when
            // data progress is MANUAL); the socket moves to the domain's loop once connected.
            key = domain.cmLoop().register(ch, done ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, this);
            domain.connectTimer().start(this);
        } catch (FabricException e) {
            cm = IDLE;
            channel = null;
            Sockets.closeQuietly(ch);
            throw e;
        } catch (IOException e) {
            cm = IDLE;
            channel = null;
            Sockets.closeQuietly(ch);
            throw new FabricException(Errno.EIO, "connect: cannot open a socket to " + dest + ": " + e.getMessage(), e);
        }
    }

    /** The length of {@code param}, at most 256 bytes ({@code EINVAL} beyond). */
    static int checkConnectionData(String operation, byte[] param) throws FabricException {
        int len = param == null ? 0 : param.length;
        if (len > TcpProvider.CM_DATA_SIZE) {
            throw new FabricException(Errno.EINVAL, operation + ": " + len + " bytes of connection data; at most "
                    + TcpProvider.CM_DATA_SIZE);
        }
        return len;
    }

    /**
     * The endpoint's source address ({@code info.srcAddr()}, fi_getinfo(3) {@code src_addr}) is
     * the local end of its connection: an application that names a port or an interface there
     * gets exactly that, as libfabric's tcp provider binds it. A wildcard address with port 0
     * (nothing named) leaves the choice to the kernel; so does an address of the other family
     * than the destination's (the kernel could not route it).
     *
     * @throws FabricException {@code EADDRINUSE} for a port in use, {@code EADDRNOTAVAIL} for
     *         an address this host does not have; nothing is connected then
     */
    private void bindSource(SocketChannel ch, InetSocketAddress dest) throws FabricException, IOException {
        byte[] src = info.srcAddr();
        if (src == null) {
            return;
        }
        InetSocketAddress local;
        try {
            local = Addresses.fromSockaddr(src);
        } catch (RuntimeException e) {
            throw new FabricException(Errno.EINVAL, "connect: the source address is not a socket address: " + e.getMessage(), e);
        }
        if ((local.getAddress() instanceof java.net.Inet6Address) != (dest.getAddress() instanceof java.net.Inet6Address)
                || (local.getAddress().isAnyLocalAddress() && local.getPort() == 0)) {
            return;
        }
        try {
            ch.bind(local);
        } catch (java.net.BindException e) {
            throw Sockets.bindFailed("connect: cannot bind the source address", local, e);
        }
    }

    /**
     * Accepts the request read from {@code ch} (key {@code k} on the CM loop, taken over here):
     * the CM accept with {@code param} is written there, then the socket moves to the data loop.
     * {@code jofi}: the request carried JOFI's marker (only then is it answered with it).
     */
    void accept(SocketChannel ch, SelectionKey k, byte[] param, int len, boolean jofi) throws FabricException {
        channel = ch;
        jofiPeer = jofi;
        handshake.accept(param, len, jofi);
        cm = ACCEPTING;
        // Take over the request's key on the CM loop: the response is written there, then the
        // socket moves to this domain's loop (moveToDataLoop).
        if (k == null || !k.isValid()) {
            teardown(Errno.ECONNRESET, true);
            return;
        }
        k.attach(this);
        key = k;
        interestRead = true;
        interestWrite = true;
        updateInterest();
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
        if (channel != null) {
            try {
                channel.shutdownOutput();
            } catch (IOException e) {
                // already reset by the peer: teardown below reports the end all the same
            }
        }
        teardown(Errno.ECANCELED, cm == CONNECTED || cm == ACCEPTING);
    }

    /** The socket's local address, or null without a socket. @throws FabricException {@code ENOTCONN} when closed */
    InetSocketAddress localAddress() throws FabricException {
        if (channel == null) {
            return null;
        }
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            throw new FabricException(Errno.ENOTCONN, "getName: the socket is closed", e);
        }
    }

    /** The peer's address. @throws FabricException {@code ENOTCONN} when not connected */
    InetSocketAddress remoteAddress() throws FabricException {
        try {
            InetSocketAddress a = channel == null ? null : (InetSocketAddress) channel.getRemoteAddress();
            if (a == null) {
                throw new FabricException(Errno.ENOTCONN, "getPeer: not connected");
            }
            return a;
        } catch (IOException e) {
            throw new FabricException(Errno.ENOTCONN, "getPeer: the socket is closed", e);
        }
    }

    /** 0 when sends may be queued now; else {@code -ENOTCONN} or {@code -EAGAIN}. */
    int sendable() {
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
     * arrived on a connected socket. Needs the selector (-1) while a write waits for room or
     * the connection is not established.
     */
    @Override
    public int poll() {
        synchronized (lock) {
            try {
                if (cm != CONNECTED || channel == null || interestWrite) {
                    return -1;
                }
                if (!interestRead) {
                    return 0; // paused or blocked: a posted receive or transmit room resumes it
                }
                return rx.readNow() ? 1 : 0;
            } catch (java.nio.channels.CancelledKeyException e) {
                return -1;
            } catch (RuntimeException e) {
                teardown(Errno.EIO, true);
                return 1;
            }
        }
    }

    private void onSelectedLocked(int readyOps) {
        if (cm == DOWN || channel == null) {
            return;
        }
        if ((readyOps & SelectionKey.OP_CONNECT) != 0 && cm == CONNECTING) {
            try {
                channel.finishConnect();
            } catch (IOException e) {
                failConnect(Errno.ECONNREFUSED, kernelErrno(e), null, 0);
                return;
            }
            cm = REQ_SENT;
            interestRead = true;
            interestWrite = true;
            updateInterest();
        }
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            flush();
        }
        if ((readyOps & SelectionKey.OP_READ) != 0 && cm != DOWN) {
            if (cm == REQ_SENT) {
                readResponse();
            }
            if (cm == CONNECTED || cm == ACCEPTING) {
                rx.readReady();
            }
        }
    }

    /** Active side: reads exactly the CM response ({@link TcpCmHandshake}) and acts on it. */
    private void readResponse() {
        int status = handshake.readResponse(channel);
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
        jofiPeer = accept.isJofi();
        if (!moveToDataLoop()) {
            return;
        }
        counters.connections.made(this);
        endpoint.connected(accept);
    }

    /**
     * The connection is established: its socket leaves the fabric's CM loop for the domain's
     * data loop (progressed in the domain's mode). Nothing of the stream is lost: the CM
     * response was read exactly, and the passive side's response is written completely.
     *
     * @return false when the socket is gone (torn down, R14)
     */
    private boolean moveToDataLoop() {
        SelectionKey old = key;
        if (old != null) {
            old.cancel();
        }
        interestRead = true;
        interestWrite = false;
        try {
            key = domain.loop().registerPolled(channel, SelectionKey.OP_READ, this);
            return true;
        } catch (IOException e) {
            key = null;
            teardown(Errno.ECONNRESET, true);
            return false;
        }
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
                byte[] reason = EndReason.of(channel, "no answer", "the connection request was not answered within "
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
        closeChannel();
        endpoint.connectFailed(err, provErrno, errData, errDataSize);
    }

    /**
     * The errno behind a failed {@code connect(2)} as the JDK words it (its message is the C
     * library's {@code strerror}): ETIMEDOUT when nobody answered (a SYN dropped, no carrier),
     * ECONNREFUSED for a reset, the unreachables; 0 when the message names none of them.
     */
    static int kernelErrno(IOException e) {
        if (e instanceof java.net.NoRouteToHostException) {
            return Errno.EHOSTUNREACH;
        }
        String message = String.valueOf(e.getMessage());
        for (int errno : new int[] {Errno.ETIMEDOUT, Errno.ECONNREFUSED, Errno.EHOSTUNREACH, Errno.ENETUNREACH, Errno.ECONNRESET}) {
            if (message.contains(Errno.strerror(errno))) {
                return errno;
            }
        }
        return 0;
    }

    /** Writes what is queued: the CM message, then the transmitter's frames and acks. */
    void flush() {
        SocketChannel ch = channel;
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
                    endpoint.connected(null);
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

    void wantWrite(boolean on) {
        if (interestWrite != on) {
            interestWrite = on;
            updateInterest();
            if (on) {
                domain.loop().wakeup();
            }
        }
    }

    /** Reading goes on: read interest back on, and the loop woken to see it (it may be asleep in select). */
    void wantRead() {
        if (!interestRead) {
            interestRead = true;
            updateInterest();
            domain.loop().wakeup();
        }
    }

    /** Reading stops until {@link #wantRead} (a receive is posted, transmit room comes back). */
    void stopReading() {
        if (interestRead) {
            interestRead = false;
            updateInterest();
        }
    }

    private void updateInterest() {
        SelectionKey k = key;
        if (k != null && k.isValid()) {
            k.interestOps((interestRead ? SelectionKey.OP_READ : 0) | (interestWrite ? SelectionKey.OP_WRITE : 0));
        }
    }

    /** Whether frames are read now (connected, or accepting with the response on its way). */
    boolean carriesData() {
        return cm == CONNECTED || cm == ACCEPTING;
    }

    // =================================================================== the end

    /**
     * The connection ends (once): socket closed, pending operations failed with {@code err},
     * and {@code FI_SHUTDOWN} raised when it was established (R14).
     */
    void teardown(int err, boolean report) {
        teardown(err, report, 0, null);
    }

    /**
     * The peer sent what the wire does not allow: the connection ends ({@code ECONNRESET},
     * R14) and says why ({@link EndReason}, {@code provErrno} {@code EPROTO}).
     */
    void malformed(String what) {
        teardown(Errno.ECONNRESET, true, Errno.EPROTO, EndReason.of(channel, "malformed input", what));
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
        closeChannel();
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
            if (stall.stalled(rx.received + tx.sent, waiting, now, timeoutNanos)) {
                teardown(Errno.ETIMEDOUT, true, Errno.ETIMEDOUT, EndReason.of(channel, "no progress",
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
        closeChannel();
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

    private void closeChannel() {
        SelectionKey k = key;
        key = null;
        if (k != null) {
            k.cancel();
            domain.loop().unpoll(k); // else the loop keeps this connection for the domain's life
        }
        SocketChannel ch = channel;
        if (ch != null) {
            Sockets.closeQuietly(ch);
        }
    }

    /** The socket's local address for the connection events, or null once it is closed. */
    @Override
    public Object localEnd() {
        try {
            return channel == null ? null : channel.getLocalAddress();
        } catch (java.io.IOException e) {
            return null; // closed already: the event names no address
        }
    }

    /** The peer's address for the connection events: the connected socket's, else where it connected to, or null. */
    @Override
    public Object peerEnd() {
        try {
            Object remote = channel == null ? null : channel.getRemoteAddress();
            return remote != null ? remote : connectingTo; // a failed connect: where it went
        } catch (java.io.IOException e) {
            return connectingTo;
        }
    }

    /**
     * A receive took (or discarded) a buffered message of this connection whose ack waited for
     * the match ({@code FI_MATCH_COMPLETE}; {@code seq} its place in the ack order, -1 when no
     * ack is owed).
     */
    void ackMatched(long seq) {
        if (cm != DOWN && seq >= 0) {
            tx.ackReady(seq);
        }
    }
}
