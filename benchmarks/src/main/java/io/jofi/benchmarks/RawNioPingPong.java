package io.jofi.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * The floor that a Java provider over TCP is measured against: a minimal ping-pong over two
 * non-blocking {@link SocketChannel}s on loopback ({@code TCP_NODELAY}, direct buffers), each
 * side busy-polling {@code read}/{@code write} with nothing else — no framing, no completion
 * queue. Both sides run in this JVM (the server on a second thread), as the JOFI and C
 * pingpongs run one process per side on the same two cores.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.jofi.benchmarks.RawNioPingPong SIZE ITERS [WARMUP]}
 * prints fabtests' row: {@code bytes iters total time MB/sec usec/xfer Mxfers/sec} with
 * usec/xfer = half the round trip and MB/sec = 2·iters·size / µs.
 */
public final class RawNioPingPong {
    private RawNioPingPong() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: RawNioPingPong SIZE ITERS [WARMUP]");
            System.exit(2);
        }
        int size = Integer.parseInt(args[0]);
        long iters = Long.parseLong(args[1]);
        long warmup = args.length > 2 ? Long.parseLong(args[2]) : 10;
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            Thread server = new Thread(() -> serve(listener, size, iters + warmup), "raw-nio-server");
            server.setDaemon(true);
            server.start();
            try (SocketChannel ch = SocketChannel.open(listener.getLocalAddress())) {
                configure(ch);
                ByteBuffer buf = ByteBuffer.allocateDirect(size);
                long start = System.nanoTime();
                for (long i = 0; i < iters + warmup; i++) {
                    if (i == warmup) {
                        start = System.nanoTime();
                    }
                    writeFully(ch, buf);
                    readFully(ch, buf);
                }
                long elapsed = System.nanoTime() - start;
                server.join(10_000);
                double usec = Math.max(1, elapsed / 1000);
                double total = 2.0 * iters * size;
                double perXfer = usec / iters / 2;
                System.out.printf(Locale.ROOT, "%-8s%-8s%-8s%8s %10s%13s%13s%n", "bytes", "iters", "total", "time",
                        "MB/sec", "usec/xfer", "Mxfers/sec");
                System.out.printf(Locale.ROOT, "%-8d%-8d%-8.0f%8.2fs%10.2f%11.2f%11.2f%n", size, iters, total,
                        usec / 1e6, total / usec, perXfer, 1.0 / perXfer);
            }
        }
    }

    private static void serve(ServerSocketChannel listener, int size, long rounds) {
        try (SocketChannel ch = listener.accept()) {
            configure(ch);
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            for (long i = 0; i < rounds; i++) {
                readFully(ch, buf);
                writeFully(ch, buf);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void configure(SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    /** Busy-polls until the whole buffer is written. */
    private static void writeFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }

    /** Busy-polls until the whole buffer is read. */
    private static void readFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                throw new IOException("peer closed");
            }
        }
    }
}
