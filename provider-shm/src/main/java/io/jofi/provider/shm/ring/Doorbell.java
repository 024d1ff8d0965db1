package io.jofi.provider.shm.ring;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The consumer's side of the cross-process wake-up (docs/SHM-LAYOUT.md "Blocking waits across processes"): a Unix-domain server socket at the region's {@link ShmRegion#doorbellPath};
 * producers connect once ({@link DoorbellRinger}) and write one byte to ring.
 * <p>
 * Protocol: the consumer calls {@link MpscRing#prepareToSleep()} (sets the sleeping flag in its
 * region, re-checks the ring); only if that returns true it calls {@link #await}, and
 * {@link MpscRing#awake()} afterwards. A producer whose {@link MpscRing#publish} returns true
 * (it saw the flag after publishing) rings. While the consumer is awake producers pay one
 * flag read and no system call. Missed rings are impossible (Dekker on flag and length); extra
 * rings only cost a spurious wake-up.
 * <p>
 * A newly accepted producer connection counts as a ring (docs/SHM-LAYOUT.md "Blocking waits across processes"): a producer whose
 * non-blocking connect found the listen queue full cannot send its byte, and relies on the
 * consumer re-checking its rings once it accepts the connections queued before its own
 * attempt ({@link DoorbellRinger}). It costs one spurious wake-up per new producer. Connections
 * are accepted only while someone waits here; a consumer that only polls (MANUAL progress)
 * leaves them queued, and producers never wait for the accept.
 * <p>
 * Not thread-safe except {@link #wakeup()} and {@link #close()}, which any thread may call.
 */
public final class Doorbell implements AutoCloseable {

    /** Longer waits are cut into pieces of this many nanoseconds (no overflow rounding up). */
    private static final long MAX_WAIT = TimeUnit.DAYS.toNanos(1);
    /** Listen queue asked for (the kernel caps it at net.core.somaxconn); Java's default is 50. */
    private static final int BACKLOG = 4096;

    private final Path path;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final ByteBuffer drain = ByteBuffer.allocateDirect(256);
    private final Consumer<SelectionKey> onReady = this::onReady;
    private boolean rung;
    /** Set by wakeup(), consumed atomically by await(): a wakeup between two awaits is kept. */
    private final AtomicBoolean woken = new AtomicBoolean();
    private volatile boolean closed;

    private Doorbell(Path path, ServerSocketChannel server, Selector selector) {
        this.path = path;
        this.server = server;
        this.selector = selector;
    }

    /**
     * Binds the doorbell socket at {@code path} (a stale socket file there is replaced; the
     * caller owns the region of that name) and restricts it to the owner (mode 0600).
     *
     * @throws IOException when the socket cannot be bound (e.g. path longer than ~107 bytes)
     */
    public static Doorbell bind(Path path) throws IOException {
        return bind(path, BACKLOG);
    }

    /** {@link #bind(Path)} with a given listen queue length (tests fill a short one). */
    static Doorbell bind(Path path, int backlog) throws IOException {
        Files.deleteIfExists(path);
        final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        Selector selector = null;
        try {
            server.bind(UnixDomainSocketAddress.of(path), backlog);
            // A socket file cannot be created with a mode in Java: restrict it right after bind.
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            server.configureBlocking(false);
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
            return new Doorbell(path, server, selector);
        } catch (IOException | RuntimeException e) {
            server.close();
            if (selector != null) {
                selector.close();
            }
            Files.deleteIfExists(path);
            throw e;
        }
    }

    /**
     * Blocks until rung, {@link #wakeup()}, close, or the timeout; accepts new producers and
     * drains their bytes.
     *
     * @param timeoutNanos 0 = only look, otherwise at most this long (rounded up to ms)
     * @return true when rung (a byte or a new connection) or woken, false on timeout or when closed
     * @throws IOException when the selector fails
     */
    public boolean await(long timeoutNanos) throws IOException {
        if (closed) {
            return false;
        }
        rung = false;
        final long deadline = System.nanoTime() + timeoutNanos;
        try {
            if (timeoutNanos <= 0) {
                selector.selectNow(onReady);
            } else {
                // Keep waiting until rung (a byte, or a new producer connection), woken or timed out.
                long left = timeoutNanos;
                do {
                    selector.select(onReady, Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(left, MAX_WAIT) + 999_999)));
                    left = deadline - System.nanoTime();
                } while (!rung && !woken.get() && !closed && left > 0);
            }
        } catch (ClosedSelectorException e) {
            return false;
        }
        final boolean wokenUp = woken.getAndSet(false);
        return !closed && (rung || wokenUp);
    }

    /**
     * Whether the last {@link #await} was ended by a producer's ring (not only by
     * {@link #wakeup()}, which a waiter that serves producers alone may ignore). Same thread
     * as {@code await}.
     */
    public boolean wasRung() {
        return rung;
    }

    private void onReady(SelectionKey key) {
        try {
            if (key.isAcceptable()) {
                SocketChannel producer;
                while ((producer = server.accept()) != null) {
                    producer.configureBlocking(false);
                    producer.register(selector, SelectionKey.OP_READ);
                    rung = true; // its producer may have published and found the queue full (class comment)
                }
            } else if (key.isReadable()) {
                final SocketChannel producer = (SocketChannel) key.channel();
                int n;
                do {
                    drain.clear();
                    n = producer.read(drain);
                    if (n > 0) {
                        rung = true;
                    }
                } while (n > 0 && !drain.hasRemaining());
                if (n < 0) {
                    key.cancel();
                    producer.close();
                }
            }
        } catch (IOException e) {
            // A producer's connection broke: drop it; the others are unaffected.
            key.cancel();
            try {
                key.channel().close();
            } catch (IOException ignored) {
                // already broken
            }
        }
    }

    /** Wakes a blocked (or the next) {@link #await} from this process; any thread. */
    public void wakeup() {
        woken.set(true);
        selector.wakeup();
    }

    /** @return the socket path */
    public Path path() {
        return path;
    }

    /** Closes the socket and every producer connection and deletes the socket file; any thread. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
        } catch (ClosedSelectorException ignored) {
            // closed concurrently
        } finally {
            try {
                selector.close();
                server.close();
            } finally {
                Files.deleteIfExists(path);
            }
        }
    }
}
