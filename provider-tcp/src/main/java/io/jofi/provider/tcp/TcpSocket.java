package io.jofi.provider.tcp;

import io.jofi.Errno;
import io.jofi.FabricException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A tcp connection's socket and its place on a selector: the channel, its selection key (on
 * the fabric's CM loop while the connection is set up, on the domain's data loop once it is
 * established), the read and write interest, the addresses the connection events name, and the
 * close. It knows no connection state: its {@link TcpConnection} decides when each step runs.
 *
 * <p>It gets in its constructor only what it uses: the domain's data loop (woken when interest
 * changes, where an established socket is polled) and the handler its keys carry. Runs under
 * the connection's lock.
 */
final class TcpSocket {
    private final NioLoop dataLoop;
    private final SelectHandler handler;
    private SocketChannel channel;
    /** The socket's own address once known: fi_getname still names it after the socket closed. */
    private volatile InetSocketAddress ownAddress;
    private SelectionKey key;
    private boolean interestWrite;
    private boolean interestRead;
    /** Where {@link #open} connects to (a refused connect's event names it). */
    private InetSocketAddress connectingTo;

    TcpSocket(NioLoop dataLoop, SelectHandler handler) {
        this.dataLoop = dataLoop;
        this.handler = handler;
    }

    /**
     * Opens a non-blocking socket to {@code dest}, configured by {@code provider} before the
     * connect (the window scale covers {@code SO_RCVBUF}) and bound to the source address
     * {@code src} when there is one. Nothing is kept when it fails.
     *
     * @throws IOException     when no socket can be opened or configured
     * @throws FabricException when {@code src} cannot be bound ({@link Sockets#bindSource})
     */
    void open(InetSocketAddress dest, byte[] src, TcpProvider provider) throws IOException, FabricException {
        SocketChannel ch = SocketChannel.open(Sockets.family(dest.getAddress()));
        try {
            ch.configureBlocking(false);
            provider.configure(ch);
            Sockets.bindSource(ch, src, dest);
        } catch (IOException | FabricException | RuntimeException e) {
            Sockets.closeQuietly(ch);
            throw e;
        }
        channel = ch;
        connectingTo = dest;
    }

    /**
     * Starts {@code connect(2)} to where {@link #open} aimed: 1 when connected at once, 0 while
     * it is under way ({@link #finishConnect} when the selector says so), or the negative errno
     * of a connect refused at once ({@code ECONNREFUSED}, possible on loopback) or without a
     * route now ({@code EHOSTUNREACH}, {@code ENETUNREACH}: the link is down, the interface gone).
     *
     * @throws IOException for any other failure
     */
    int startConnect() throws IOException {
        try {
            boolean done = channel.connect(connectingTo);
            noteLocalAddress(); // bound by connect(2), whether it finished or not
            return done ? 1 : 0;
        } catch (java.net.ConnectException refused) {
            return -Errno.ECONNREFUSED;
        } catch (java.net.SocketException unreachable) {
            return unreachable instanceof java.net.NoRouteToHostException ? -Errno.EHOSTUNREACH : -Errno.ENETUNREACH;
        }
    }

    /** Completes a connect under way. @throws IOException when it failed ({@link #kernelErrno} says why) */
    void finishConnect() throws IOException {
        channel.finishConnect();
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
        for (int errno : new int[] {Errno.ETIMEDOUT, Errno.ECONNREFUSED, Errno.EHOSTUNREACH, Errno.ENETUNREACH,
                Errno.ECONNRESET}) {
            if (message.contains(Errno.strerror(errno))) {
                return errno;
            }
        }
        return 0;
    }

    /**
     * Registers the opened socket on the CM loop: for the connect's completion, or, when
     * {@code connected} at once, to write the request and read the response.
     */
    void registerForSetUp(NioLoop cmLoop, boolean connected) throws IOException {
        interestRead = connected;
        interestWrite = connected;
        key = cmLoop.register(channel, connected ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
                : SelectionKey.OP_CONNECT, handler);
    }

    /** Passive side: the accepted socket whose connection request was read. */
    void adopt(SocketChannel ch) {
        channel = ch;
        noteLocalAddress();
    }

    /** Notes the socket's own address while it is open ({@link #localAddress()} after it closed). */
    private void noteLocalAddress() {
        try {
            ownAddress = (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException closedAlready) {
            // nothing to note: a socket closed before it had an address has none to report
        }
    }

    /**
     * Takes over the request's key {@code k} on the CM loop (the response is written there),
     * reading and writing. False when the key is gone already (the peer left).
     */
    boolean takeKey(SelectionKey k) {
        if (k == null || !k.isValid()) {
            return false;
        }
        k.attach(handler);
        key = k;
        interestRead = true;
        interestWrite = true;
        updateInterest();
        return true;
    }

    /**
     * The connection is established: the socket leaves the CM loop for the domain's data loop
     * (progressed in the domain's mode), reading. False when it cannot be registered there.
     */
    boolean moveToDataLoop() {
        SelectionKey old = key;
        if (old != null) {
            old.cancel();
        }
        interestRead = true;
        interestWrite = false;
        try {
            key = dataLoop.registerPolled(channel, SelectionKey.OP_READ, handler);
            return true;
        } catch (IOException e) {
            key = null;
            return false;
        }
    }

    /** The channel, or null before {@link #open} / {@link #adopt} and after {@link #abandon}. */
    SocketChannel channel() {
        return channel;
    }

    /** Whether write interest is on (a write waits for room, or set-up writes). */
    boolean writing() {
        return interestWrite;
    }

    /** Whether read interest is on (off while reading is paused or blocked). */
    boolean reading() {
        return interestRead;
    }

    /** Read and write interest on after the connect completed: the request is written, the response read. */
    void connectCompleted() {
        interestRead = true;
        interestWrite = true;
        updateInterest();
    }

    /** Write interest on (the socket is full) or off (nothing left to write); the loop woken to see it on. */
    void wantWrite(boolean on) {
        if (interestWrite != on) {
            interestWrite = on;
            updateInterest();
            if (on) {
                dataLoop.wakeup();
            }
        }
    }

    /** Read interest back on, and the loop woken to see it (it may be asleep in select). */
    void wantRead() {
        if (!interestRead) {
            interestRead = true;
            updateInterest();
            dataLoop.wakeup();
        }
    }

    /** Read interest off. */
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

    /** Cancels the key (and takes it off the data loop's polled list) and closes the socket. */
    void close() {
        SelectionKey k = key;
        key = null;
        if (k != null) {
            k.cancel();
            dataLoop.unpoll(k); // else the loop keeps this connection for the domain's life
        }
        SocketChannel ch = channel;
        if (ch != null) {
            Sockets.closeQuietly(ch);
        }
    }

    /** A connect that failed to start: closed, and forgotten (the endpoint may connect again). */
    void abandon() {
        close();
        channel = null;
    }

    /** The socket's local address, or null without a socket. @throws FabricException {@code ENOTCONN} when closed */
    InetSocketAddress localAddress() throws FabricException {
        if (channel == null) {
            return ownAddress; // none yet, or closed: the address it had
        }
        try {
            InetSocketAddress a = (InetSocketAddress) channel.getLocalAddress();
            if (a != null) {
                ownAddress = a;
            }
            return a;
        } catch (IOException e) {
            if (ownAddress != null) {
                return ownAddress; // closed by the peer or a teardown: its address stays what it was
            }
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

    /** The socket's local address for the connection events, or null once it is closed. */
    Object localEnd() {
        try {
            return channel == null ? null : channel.getLocalAddress();
        } catch (IOException e) {
            return null; // closed already: the event names no address
        }
    }

    /** The peer's address for the connection events: the connected socket's, else where it connected to, or null. */
    Object peerEnd() {
        try {
            Object remote = channel == null ? null : channel.getRemoteAddress();
            return remote != null ? remote : connectingTo; // a failed connect: where it went
        } catch (IOException e) {
            return connectingTo;
        }
    }
}
