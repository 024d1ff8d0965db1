package io.jofi.provider.shm.ring;

import io.jofi.Errno;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A producer's connection to a consumer's {@link Doorbell}, kept open for the producer's
 * lifetime. {@link #ring()} is called only when {@link MpscRing#publish} returned true (the
 * consumer sleeps), so it is off the fast path. Thread-safe.
 */
public final class DoorbellRinger implements AutoCloseable {

    private final SocketChannel channel;
    private final ByteBuffer one = ByteBuffer.allocateDirect(1);

    private DoorbellRinger(SocketChannel channel) {
        this.channel = channel;
    }

    /**
     * Connects to the doorbell at {@code path}.
     *
     * @throws IOException when nobody listens there
     */
    public static DoorbellRinger connect(Path path) throws IOException {
        final SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(path));
            channel.configureBlocking(false);
            return new DoorbellRinger(channel);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Rings: one byte, never blocking (a full socket buffer means the consumer has wake-ups
     * pending already).
     *
     * @return 0, or {@code -ENOTCONN} when the consumer is gone
     */
    public synchronized int ring() {
        try {
            one.clear();
            channel.write(one);
            return 0;
        } catch (IOException e) {
            return -Errno.ENOTCONN;
        }
    }

    /** Closes the connection. */
    @Override
    public void close() throws IOException {
        channel.close();
    }
}
