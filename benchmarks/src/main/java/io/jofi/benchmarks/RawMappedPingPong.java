package io.jofi.benchmarks;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The physical limit that a Java shared-memory provider is measured against: two JVM
 * processes ping-pong a message through one memory-mapped file (normally in {@code /dev/shm}),
 * each busy-spinning on a sequence word of the other side — nothing else: no ring, no
 * header, no completion queue, no matching.
 *
 * <p>What a real transport cannot avoid is kept: the payload is copied from the sender's
 * private buffer into the mapping before the sequence word is published with release
 * semantics, and the receiver, after reading the sequence with acquire semantics, copies it
 * out of the mapping into its own private buffer (one copy in, one copy out per transfer, as
 * libfabric's shm provider does for inline and bounce-buffer messages).
 *
 * <p>Layout of the file (native byte order, each word alone on 128 bytes so the adjacent-line
 * prefetcher does not couple the two sides):
 * <pre>
 *     0 | magic (long): written last by the pong side once the file is ready (release)
 *   128 | ping sequence (long): the ping side's latest round, its payload is in ping data
 *   256 | pong sequence (long): the pong side's latest echoed round, payload in pong data
 *  4096 | ping data: SIZE bytes (page aligned)
 *  4096 + SIZE rounded up to a page | pong data: SIZE bytes
 * </pre>
 *
 * <p>Usage (the caller starts both processes, e.g. pinned to two cores with {@code taskset}):
 * <pre>
 * java -cp benchmarks.jar io.jofi.benchmarks.RawMappedPingPong pong FILE SIZE ITERS [WARMUP]
 * java -cp benchmarks.jar io.jofi.benchmarks.RawMappedPingPong ping FILE SIZE ITERS [WARMUP]
 * </pre>
 * The pong side creates FILE (replacing a stale one) and echoes ITERS + WARMUP rounds; the ping
 * side waits for it, times ITERS rounds after WARMUP untimed ones and prints fabtests' row:
 * {@code bytes iters total time MB/sec usec/xfer Mxfers/sec}, with usec/xfer = half the round
 * trip and MB/sec = 2·iters·size / µs (as fi_pingpong). The pong side removes the file at the
 * end. Every wait is bounded ({@value #TIMEOUT_SECONDS} s without progress: exit status 1), so
 * a lost partner never leaves a process spinning forever.
 */
public final class RawMappedPingPong {
    private static final long MAGIC = 0x4A4F464952415731L; // "JOFIRAW1"
    private static final int MAGIC_OFFSET = 0;
    private static final int PING_SEQ_OFFSET = 128;
    private static final int PONG_SEQ_OFFSET = 256;
    private static final int PAGE = 4096;
    private static final int DATA_OFFSET = PAGE;
    private static final long TIMEOUT_SECONDS = 60;
    /** Spins between two looks at the clock: the clock must stay off the round-trip path. */
    private static final int SPINS_PER_CLOCK_CHECK = 1 << 20;

    /** Acquire/release access to the 8-byte words of the mapping (aligned: offsets % 8 == 0). */
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());

    private RawMappedPingPong() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !("ping".equals(args[0]) || "pong".equals(args[0]))) {
            System.err.println("usage: RawMappedPingPong ping|pong FILE SIZE ITERS [WARMUP]");
            System.exit(2);
        }
        Path file = Path.of(args[1]);
        int size = Integer.parseInt(args[2]);
        long iters = Long.parseLong(args[3]);
        long warmup = args.length > 4 ? Long.parseLong(args[4]) : 100;
        if (size < 1 || size > (1 << 30) || iters < 1 || warmup < 0) {
            System.err.println("RawMappedPingPong: SIZE must be 1 .. 1 GiB, ITERS >= 1, WARMUP >= 0");
            System.exit(2);
        }
        try {
            if ("pong".equals(args[0])) {
                pong(file, size, iters + warmup);
            } else {
                ping(file, size, iters, warmup);
            }
        } catch (IOException | IllegalStateException e) {
            System.err.println("RawMappedPingPong " + args[0] + ": " + e.getMessage());
            System.exit(1);
        }
    }

    private static long pongDataOffset(int size) {
        return DATA_OFFSET + ((size + PAGE - 1L) / PAGE) * PAGE;
    }

    private static long fileLength(int size) {
        return pongDataOffset(size) + ((size + PAGE - 1L) / PAGE) * PAGE;
    }

    /** Creates the file, publishes the magic, then echoes {@code rounds} rounds. */
    private static void pong(Path file, int size, long rounds) throws IOException {
        Files.deleteIfExists(file);
        MappedByteBuffer shm;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            // Grow the file by writing its last byte: tmpfs allocates pages as they are touched.
            ch.write(ByteBuffer.wrap(new byte[1]), fileLength(size) - 1);
            shm = ch.map(FileChannel.MapMode.READ_WRITE, 0, fileLength(size));
        }
        int pingData = DATA_OFFSET;
        int pongData = (int) pongDataOffset(size);
        // Touch every page now so no page fault lands inside a timed round.
        for (int i = 0; i < fileLength(size); i += PAGE) {
            shm.put(i, (byte) 0);
        }
        ByteBuffer mine = ByteBuffer.allocateDirect(size);
        LONGS.setRelease(shm, MAGIC_OFFSET, MAGIC ^ size);
        try {
            for (long round = 1; round <= rounds; round++) {
                awaitSequence(shm, PING_SEQ_OFFSET, round, "ping round " + round);
                mine.put(0, shm, pingData, size);          // copy out of the mapping
                shm.put(pongData, mine, 0, size);          // copy the echo in
                LONGS.setRelease(shm, PONG_SEQ_OFFSET, round);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Waits for the pong side's file, then times {@code iters} rounds after {@code warmup}. */
    private static void ping(Path file, int size, long iters, long warmup) throws IOException {
        MappedByteBuffer shm = awaitFile(file, size);
        int pingData = DATA_OFFSET;
        int pongData = (int) pongDataOffset(size);
        ByteBuffer mine = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            mine.put(i, (byte) i);
        }
        long start = System.nanoTime();
        for (long round = 1; round <= iters + warmup; round++) {
            if (round == warmup + 1) {
                start = System.nanoTime();
            }
            shm.put(pingData, mine, 0, size);              // copy in
            LONGS.setRelease(shm, PING_SEQ_OFFSET, round); // publish
            awaitSequence(shm, PONG_SEQ_OFFSET, round, "pong round " + round);
            mine.put(0, shm, pongData, size);              // copy the echo out
        }
        long elapsed = System.nanoTime() - start;
        double usec = Math.max(1e-3, elapsed / 1e3);
        double total = 2.0 * iters * size;
        double perXfer = usec / iters / 2;
        System.out.printf(Locale.ROOT, "%-8s%-8s%-8s%8s %10s%13s%13s%n", "bytes", "iters", "total", "time",
                "MB/sec", "usec/xfer", "Mxfers/sec");
        System.out.printf(Locale.ROOT, "%-8d%-8d%-8.0f%8.2fs%10.2f%11.3f%11.2f%n", size, iters, total,
                usec / 1e6, total / usec, perXfer, 1.0 / perXfer);
    }

    /** Spins (acquire) until the word at {@code offset} reaches {@code expected}; bounded. */
    private static void awaitSequence(MappedByteBuffer shm, int offset, long expected, String what) {
        int spins = 0;
        long deadline = 0;
        while ((long) LONGS.getAcquire(shm, offset) < expected) {
            Thread.onSpinWait();
            if (++spins == SPINS_PER_CLOCK_CHECK) {
                spins = 0;
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + TIMEOUT_SECONDS * 1_000_000_000L;
                } else if (now - deadline > 0) {
                    throw new IllegalStateException("no " + what + " within " + TIMEOUT_SECONDS + " s");
                }
            }
        }
    }

    /** Maps the file once the pong side has created it and stored the magic for this size. */
    private static MappedByteBuffer awaitFile(Path file, int size) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT_SECONDS * 1_000_000_000L;
        while (true) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (ch.size() >= fileLength(size)) {
                    MappedByteBuffer shm = ch.map(FileChannel.MapMode.READ_WRITE, 0, fileLength(size));
                    if ((long) LONGS.getAcquire(shm, MAGIC_OFFSET) == (MAGIC ^ size)) {
                        return shm;
                    }
                }
            } catch (NoSuchFileException e) {
                // not created yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no ready " + file + " for size " + size + " within "
                        + TIMEOUT_SECONDS + " s (is the pong side running?)");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + file);
            }
        }
    }
}
