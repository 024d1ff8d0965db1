package io.jofi.provider.shm.ring;

import io.jofi.Errno;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A producer's connection to a consumer's {@link Doorbell}, kept open for the producer's
 * lifetime. {@link #ring()} is called only when {@link MpscRing#publish} returned true (the
 * consumer sleeps), so it is off the fast path. Thread-safe.
 * <p>
 * <b>Nothing here ever blocks</b> (docs/SHM-LAYOUT.md "Blocking waits across processes"). A Unix stream connection is complete
 * when the kernel queues it on the consumer's listening socket, before anyone accepts it, so
 * the connect is made non-blocking: it either succeeds at once or fails with {@code EAGAIN}
 * when the consumer's listen queue is full — which happens when the consumer has not
 * accepted for a while, e.g. a MANUAL-progress consumer that only polls and so never sleeps
 * on its doorbell (the blocking connect of before waited there for ever; Java's default queue
 * is 50 connections, and the 52nd new peer hung). A ringer whose connect found the queue full
 * stays <em>unconnected</em> and tries again, non-blocking, at each {@link #ring()} — i.e.
 * only when the consumer says it sleeps, and a sleeping consumer accepts. No wake-up is lost
 * on the way: if that retry finds the queue full again, the queue holds connections the
 * consumer has not accepted yet; it accepts them as soon as it waits, and {@link Doorbell}
 * counts every accepted connection as a ring, so the consumer re-checks its rings after our
 * publish. A datagram doorbell would avoid the accept altogether, but Java 17 has no
 * Unix-domain datagrams.
 */
public final class DoorbellRinger implements AutoCloseable {

    private final Path path;
    private final ByteBuffer one = ByteBuffer.allocateDirect(1);
    /** The connection, or null while the consumer's listen queue was full; guarded by this. */
    private SocketChannel channel;
    private boolean closed;

    private DoorbellRinger(Path path, SocketChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /**
     * Connects to the doorbell at {@code path} without blocking; when the consumer's listen
     * queue is full the ringer starts unconnected and connects at a later {@link #ring()}.
     *
     * @throws IOException when nobody listens there (no socket, or connection refused)
     */
    public static DoorbellRinger connect(Path path) throws IOException {
        return new DoorbellRinger(path, tryConnect(path));
    }

    /**
     * One non-blocking connect.
     *
     * @return the connected channel, or null when the consumer's listen queue is full
     * @throws IOException when nobody listens at {@code path}
     */
    private static SocketChannel tryConnect(Path path) throws IOException {
        final SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.configureBlocking(false);
            if (ch.connect(UnixDomainSocketAddress.of(path)) || ch.finishConnect()) {
                return ch;
            }
            ch.close(); // still pending (not seen with Unix sockets): try again at the next ring
            return null;
        } catch (ConnectException e) {
            ch.close();
            throw e; // a socket file nobody listens on
        } catch (IOException e) {
            ch.close();
            if (!Files.exists(path)) {
                throw e;
            }
            return null; // EAGAIN: the listen queue is full (nobody accepted for a while)
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Rings: one byte, never blocking (a full socket buffer means the consumer has wake-ups
     * pending already). Unconnected, it first tries to connect (non-blocking; see the class
     * comment for why a failure there loses no wake-up).
     *
     * @return 0, or {@code -ENOTCONN} when the consumer is gone
     */
    public synchronized int ring() {
        if (closed) {
            return -Errno.ENOTCONN;
        }
        try {
            if (channel == null) {
                channel = tryConnect(path);
                if (channel == null) {
                    return 0; // the queue is full: the consumer accepts, and an accept counts as a ring
                }
            }
            one.clear();
            channel.write(one);
            return 0;
        } catch (IOException e) {
            return -Errno.ENOTCONN;
        }
    }

    /** Whether the connection is made (tests). */
    public synchronized boolean isConnected() {
        return channel != null;
    }

    /** Closes the connection. */
    @Override
    public synchronized void close() throws IOException {
        closed = true;
        if (channel != null) {
            channel.close();
        }
    }
}
