package io.jofi.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The floor that a Java provider over TCP is measured against: a minimal ping-pong over two
 * non-blocking {@link SocketChannel}s ({@code TCP_NODELAY}, direct buffers), each side
 * busy-polling {@code read}/{@code write} with nothing else — no framing, no completion queue.
 *
 * <p>Two forms:
 * <pre>
 * java -cp benchmarks.jar io.jofi.benchmarks.RawNioPingPong server PORT SIZE ITERS [WARMUP]
 * java -cp benchmarks.jar io.jofi.benchmarks.RawNioPingPong client HOST PORT SIZE ITERS [WARMUP]
 * java -cp benchmarks.jar io.jofi.benchmarks.RawNioPingPong SIZE ITERS [WARMUP]
 * </pre>
 * The first two are one process a side, as the JOFI and C ping-pongs run (the compare script
 * pins them to the same cores as those); the third runs both sides in this JVM (the server on
 * a second thread). The client (or the single JVM) times ITERS rounds after WARMUP untimed ones
 * and prints fabtests' row ({@code bytes iters total time MB/sec usec/xfer Mxfers/sec}, usec/xfer
 * = half the round trip, MB/sec = 2·iters·size / µs), then the median round's one-way latency
 * ({@link FabtestsRow#printMedian}: each round read the clock once, as
 * {@code ./jofi pingpong --percentiles} does).
 */
public final class RawNioPingPong {
    private RawNioPingPong() {
    }

    public static void main(String[] args) throws Exception {
        try {
            if (args.length >= 4 && args[0].equals("server")) {
                int port = Integer.parseInt(args[1]);
                int size = size(args[2]);
                long rounds = iters(args[3]) + warmup(args, 4);
                try (ServerSocketChannel listener = ServerSocketChannel.open()) {
                    listener.bind(new InetSocketAddress(port));
                    serve(listener, size, rounds);
                }
            } else if (args.length >= 5 && args[0].equals("client")) {
                InetSocketAddress server = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
                int size = size(args[3]);
                try (SocketChannel ch = SocketChannel.open(server)) {
                    ping(ch, size, iters(args[4]), warmup(args, 5));
                }
            } else if (args.length >= 2 && !args[0].equals("server") && !args[0].equals("client")) {
                int size = size(args[0]);
                long iters = iters(args[1]);
                long warmup = warmup(args, 2);
                try (ServerSocketChannel listener = ServerSocketChannel.open()) {
                    listener.bind(new InetSocketAddress("127.0.0.1", 0));
                    Thread server = new Thread(() -> {
                        try {
                            serve(listener, size, iters + warmup);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }, "raw-nio-server");
                    server.setDaemon(true);
                    server.start();
                    try (SocketChannel ch = SocketChannel.open(listener.getLocalAddress())) {
                        ping(ch, size, iters, warmup);
                    }
                    server.join(10_000);
                }
            } else {
                usage("");
            }
        } catch (NumberFormatException e) {
            usage("not a number: " + e.getMessage());
        }
    }

    private static void usage(String why) {
        System.err.println((why.isEmpty() ? "" : "RawNioPingPong: " + why + "\n")
                + "usage: RawNioPingPong server PORT SIZE ITERS [WARMUP] | client HOST PORT SIZE ITERS [WARMUP]"
                + " | SIZE ITERS [WARMUP]");
        System.exit(2);
    }

    private static int size(String text) {
        int size = Integer.parseInt(text);
        if (size < 1) {
            usage("SIZE must be at least 1");
        }
        return size;
    }

    private static long iters(String text) {
        long iters = Long.parseLong(text);
        if (iters < 1 || iters > FabtestsRow.MAX_TIMED_ROUNDS) {
            usage("ITERS must be 1 .. " + FabtestsRow.MAX_TIMED_ROUNDS);
        }
        return iters;
    }

    private static long warmup(String[] args, int index) {
        long warmup = args.length > index ? Long.parseLong(args[index]) : 10;
        if (warmup < 0) {
            usage("WARMUP must be at least 0");
        }
        return warmup;
    }

    /** The timing side: writes, reads the echo; times ITERS rounds after WARMUP and prints the row and the median. */
    private static void ping(SocketChannel ch, int size, long iters, long warmup) throws IOException {
        configure(ch);
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        long[] roundTrips = new long[(int) iters];
        long start = System.nanoTime();
        long roundStart = start;
        for (long i = 0; i < iters + warmup; i++) {
            if (i == warmup) {
                start = System.nanoTime();
                roundStart = start;
            }
            writeFully(ch, buf);
            readFully(ch, buf);
            if (i >= warmup) {
                long now = System.nanoTime();
                roundTrips[(int) (i - warmup)] = now - roundStart;
                roundStart = now;
            }
        }
        long elapsed = System.nanoTime() - start;
        FabtestsRow.print(size, iters, 2.0 * iters * size, elapsed / 1e3, elapsed / 1e3 / iters / 2);
        FabtestsRow.printMedian(size, roundTrips);
    }

    /** The echoing side: accepts one connection and echoes {@code rounds} messages. */
    private static void serve(ServerSocketChannel listener, int size, long rounds) throws IOException {
        try (SocketChannel ch = listener.accept()) {
            configure(ch);
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            for (long i = 0; i < rounds; i++) {
                readFully(ch, buf);
                writeFully(ch, buf);
            }
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
