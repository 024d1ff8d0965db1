package io.jofi.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * The streaming floor a Java provider's bandwidth over TCP is measured against: fabtests'
 * {@code bw} choreography over two non-blocking {@link SocketChannel}s on loopback with nothing
 * else — the sender writes a window of messages (one {@code write} each, as one send each), the
 * receiver reads the window's bytes and answers with a 4-byte ack, the sender waits for it,
 * and so on; no framing, no completion queue. Both sides run in this JVM (the receiver on a
 * second thread), busy-polling, {@code TCP_NODELAY}, direct buffers.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.jofi.benchmarks.RawNioStream SIZE ITERS WINDOW [WARMUP]}
 * prints fabtests' row: {@code bytes iters total time MB/sec usec/xfer Mxfers/sec} with
 * MB/sec = iters·size / µs (one direction, as fi_msg_bw counts).
 */
public final class RawNioStream {
    private static final int ACK = 4;

    private RawNioStream() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: RawNioStream SIZE ITERS WINDOW [WARMUP]");
            System.exit(2);
        }
        int size = Integer.parseInt(args[0]);
        long iters = Long.parseLong(args[1]);
        int window = Integer.parseInt(args[2]);
        long warmup = args.length > 3 ? Long.parseLong(args[3]) : window;
        long total = windows(warmup, window) + windows(iters, window);
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            Thread receiver = new Thread(() -> receive(listener, size, window, total), "raw-nio-receiver");
            receiver.setDaemon(true);
            receiver.start();
            try (SocketChannel ch = SocketChannel.open(listener.getLocalAddress())) {
                configure(ch);
                ByteBuffer msg = ByteBuffer.allocateDirect(Math.max(size, 1));
                ByteBuffer ack = ByteBuffer.allocateDirect(ACK);
                sendWindows(ch, msg, ack, size, window, windows(warmup, window));
                long start = System.nanoTime();
                sendWindows(ch, msg, ack, size, window, windows(iters, window));
                long elapsed = System.nanoTime() - start;
                receiver.join(10_000);
                long sent = windows(iters, window) * window;
                double usec = Math.max(1, elapsed / 1000.0);
                double bytes = (double) sent * size;
                double perXfer = usec / sent;
                System.out.printf(Locale.ROOT, "%-8s%-8s%-8s%8s %10s%13s%13s%n", "bytes", "iters", "total", "time",
                        "MB/sec", "usec/xfer", "Mxfers/sec");
                System.out.printf(Locale.ROOT, "%-8d%-8d%-8.0f%8.2fs%10.2f%11.2f%11.2f%n", size, sent, bytes,
                        usec / 1e6, bytes / usec, perXfer, 1.0 / perXfer);
            }
        }
    }

    /** Windows needed for {@code n} messages (a partial last window counts whole, as fabtests'). */
    private static long windows(long n, int window) {
        return (n + window - 1) / window;
    }

    private static void sendWindows(SocketChannel ch, ByteBuffer msg, ByteBuffer ack, int size, int window, long windows)
            throws IOException {
        for (long w = 0; w < windows; w++) {
            for (int i = 0; i < window; i++) {
                msg.clear().limit(size);
                while (msg.hasRemaining()) {
                    ch.write(msg);
                }
            }
            readFully(ch, ack);
        }
    }

    private static void receive(ServerSocketChannel listener, int size, int window, long windows) {
        try (SocketChannel ch = listener.accept()) {
            configure(ch);
            // one window's bytes per read loop: the receiver takes whatever the socket holds
            ByteBuffer in = ByteBuffer.allocateDirect((int) Math.max(1, Math.min((long) size * window, 1 << 24)));
            ByteBuffer ack = ByteBuffer.allocateDirect(ACK);
            long perWindow = (long) size * window;
            for (long w = 0; w < windows; w++) {
                long left = perWindow;
                while (left > 0) {
                    in.clear();
                    if (left < in.capacity()) {
                        in.limit((int) left);
                    }
                    int n = ch.read(in);
                    if (n < 0) {
                        throw new IOException("peer closed");
                    }
                    left -= n;
                }
                ack.clear();
                while (ack.hasRemaining()) {
                    ch.write(ack);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void configure(SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    private static void readFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                throw new IOException("peer closed");
            }
        }
    }
}
