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
 * trip and MB/sec = 2·iters·size / µs (as fi_pingpong), then the median round's one-way latency
 * ({@link FabtestsRow#printMedian}). The pong side removes the file at the
 * end. Every wait is bounded ({@value #TIMEOUT_SECONDS} s without progress: exit status 1), so
 * a lost partner never leaves a process spinning forever.
 *
 * <p>The streaming limit (the counterpart of a bandwidth test with a window): roles
 * {@code sink} (creates FILE) and {@code stream} (prints the row). The stream side copies each
 * message into the next of {@value #WINDOW} slots (fewer for big messages: at most
 * {@value #STREAM_BYTES} bytes of slots) and publishes a produced count; the sink copies it out
 * and publishes a consumed count — a single-producer single-consumer ring where each side reads
 * the other's counter only when its cached copy says it must wait. The time runs from the
 * first timed message to the sink's last copy-out; MB/sec = iters·size / µs and Mxfers/sec =
 * iters / µs (one direction, as fabtests' bandwidth tests); usec/xfer = µs / iters.
 * <pre>
 *     0 | magic | 128 produced count | 256 consumed count | 4096 slots: N x SIZE rounded up to 64
 * </pre>
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
    /** Stream mode: the window (slots in flight), as {@code ./jofi bw}'s default. */
    private static final int WINDOW = 64;
    /** Stream mode: the most bytes of slots (a smaller window for messages above 1 MiB). */
    private static final long STREAM_BYTES = 64L << 20;

    /** Acquire/release access to the 8-byte words of the mapping (aligned: offsets % 8 == 0). */
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());

    private RawMappedPingPong() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !java.util.Set.of("ping", "pong", "stream", "sink").contains(args[0])) {
            System.err.println("usage: RawMappedPingPong ping|pong|stream|sink FILE SIZE ITERS [WARMUP]");
            System.exit(2);
        }
        Path file = Path.of(args[1]);
        int size = Integer.parseInt(args[2]);
        long iters = Long.parseLong(args[3]);
        long warmup = args.length > 4 ? Long.parseLong(args[4]) : 100;
        if (size < 1 || size > (256 << 20) || iters < 1 || warmup < 0) { // two copies map within 2 GiB
            System.err.println("RawMappedPingPong: SIZE must be 1 .. 256 MiB, ITERS >= 1, WARMUP >= 0");
            System.exit(2);
        }
        if (args[0].equals("ping") && iters > FabtestsRow.MAX_TIMED_ROUNDS) {
            System.err.println("RawMappedPingPong ping: ITERS must be at most " + FabtestsRow.MAX_TIMED_ROUNDS + " (each round's time is kept)");
            System.exit(2);
        }
        try {
            switch (args[0]) {
                case "pong" -> pong(file, size, iters + warmup);
                case "ping" -> ping(file, size, iters, warmup);
                case "sink" -> sink(file, size, iters + warmup);
                default -> stream(file, size, iters, warmup);
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

    /**
     * Creates {@code file} of {@code length} bytes (replacing a stale one), touches every page
     * (so no page fault lands inside a timed round) and maps it; the caller stores the magic.
     */
    private static MappedByteBuffer create(Path file, long length) throws IOException {
        Files.deleteIfExists(file);
        MappedByteBuffer shm;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            // Grow the file by writing its last byte: tmpfs allocates pages as they are touched.
            ch.write(ByteBuffer.wrap(new byte[1]), length - 1);
            shm = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        for (int i = 0; i < length; i += PAGE) {
            shm.put(i, (byte) 0);
        }
        return shm;
    }

    /** Creates the file, publishes the magic, then echoes {@code rounds} rounds. */
    private static void pong(Path file, int size, long rounds) throws IOException {
        MappedByteBuffer shm = create(file, fileLength(size));
        int pingData = DATA_OFFSET;
        int pongData = (int) pongDataOffset(size);
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
        MappedByteBuffer shm = awaitFile(file, size, fileLength(size), MAGIC ^ size);
        int pingData = DATA_OFFSET;
        int pongData = (int) pongDataOffset(size);
        ByteBuffer mine = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            mine.put(i, (byte) i);
        }
        long[] roundTrips = new long[Math.toIntExact(iters)];
        long start = System.nanoTime();
        long roundStart = start;
        for (long round = 1; round <= iters + warmup; round++) {
            if (round == warmup + 1) {
                start = System.nanoTime();
                roundStart = start;
            }
            shm.put(pingData, mine, 0, size);              // copy in
            LONGS.setRelease(shm, PING_SEQ_OFFSET, round); // publish
            awaitSequence(shm, PONG_SEQ_OFFSET, round, "pong round " + round);
            mine.put(0, shm, pongData, size);              // copy the echo out
            if (round > warmup) {
                // one clock read a round, as ./jofi pingpong --percentiles times its iterations
                long now = System.nanoTime();
                roundTrips[(int) (round - warmup - 1)] = now - roundStart;
                roundStart = now;
            }
        }
        long elapsed = System.nanoTime() - start;
        FabtestsRow.print(size, iters, 2.0 * iters * size, elapsed / 1e3, elapsed / 1e3 / iters / 2);
        FabtestsRow.printMedian(size, roundTrips);
    }

    private static int streamSlots(int size) {
        return (int) Math.max(2, Math.min(WINDOW, STREAM_BYTES / slotSize(size)));
    }

    private static long slotSize(int size) {
        return (size + 63L) & ~63L; // slots on cache-line boundaries
    }

    private static long streamLength(int size) {
        long bytes = DATA_OFFSET + streamSlots(size) * slotSize(size);
        return (bytes + PAGE - 1) / PAGE * PAGE;
    }

    private static long streamMagic(int size) {
        return ~MAGIC ^ size;
    }

    /** Creates the file, publishes the magic, then copies out {@code count} messages. */
    private static void sink(Path file, int size, long count) throws IOException {
        MappedByteBuffer shm = create(file, streamLength(size));
        int slots = streamSlots(size);
        long slotSize = slotSize(size);
        ByteBuffer mine = ByteBuffer.allocateDirect(size);
        LONGS.setRelease(shm, MAGIC_OFFSET, streamMagic(size));
        try {
            long produced = 0;
            for (long i = 0; i < count; i++) {
                if (produced <= i) { // read the producer's counter only when the cached one is used up
                    awaitSequence(shm, PING_SEQ_OFFSET, i + 1, "message " + (i + 1));
                    produced = (long) LONGS.getAcquire(shm, PING_SEQ_OFFSET);
                }
                mine.put(0, shm, (int) (DATA_OFFSET + (i % slots) * slotSize), size); // copy out
                LONGS.setRelease(shm, PONG_SEQ_OFFSET, i + 1);                       // slot free
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Waits for the sink's file, then streams {@code warmup} untimed and {@code iters} timed messages. */
    private static void stream(Path file, int size, long iters, long warmup) throws IOException {
        MappedByteBuffer shm = awaitFile(file, size, streamLength(size), streamMagic(size));
        int slots = streamSlots(size);
        long slotSize = slotSize(size);
        ByteBuffer mine = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            mine.put(i, (byte) i);
        }
        long consumed = 0;
        long start = System.nanoTime();
        for (long i = 0; i < iters + warmup; i++) {
            if (i == warmup) {
                awaitSequence(shm, PONG_SEQ_OFFSET, warmup, "the warm-up's end"); // time from an empty ring
                consumed = warmup;
                start = System.nanoTime();
            }
            if (i - consumed >= slots) { // looks full: read the consumer's counter
                awaitSequence(shm, PONG_SEQ_OFFSET, i - slots + 1, "slot of message " + (i + 1));
                consumed = (long) LONGS.getAcquire(shm, PONG_SEQ_OFFSET);
            }
            shm.put((int) (DATA_OFFSET + (i % slots) * slotSize), mine, 0, size); // copy in
            LONGS.setRelease(shm, PING_SEQ_OFFSET, i + 1);                       // publish
        }
        awaitSequence(shm, PONG_SEQ_OFFSET, iters + warmup, "the last message's copy-out");
        long elapsed = System.nanoTime() - start;
        FabtestsRow.print(size, iters, (double) iters * size, elapsed / 1e3, elapsed / 1e3 / iters);
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
    private static MappedByteBuffer awaitFile(Path file, int size, long length, long magic) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT_SECONDS * 1_000_000_000L;
        while (true) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (ch.size() >= length) {
                    MappedByteBuffer shm = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
                    if ((long) LONGS.getAcquire(shm, MAGIC_OFFSET) == magic) {
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
