package io.jofi.benchmarks;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The shm provider's ping-pong across two JVM processes through the public API alone — what
 * {@code ./jofi pingpong -p shm -e rdm -c spin} measures, without the OSGi container and
 * without its address exchange: each side opens one RDM endpoint ({@link ShmPair.Side}: the
 * {@code ServiceLoader} shm provider, {@code FI_PROGRESS_MANUAL}, CQs read in a spin), writes
 * its endpoint name to {@code FILE.<role>} and inserts the other's into its AV. Then fabtests'
 * choreography: the ping side sends and waits for the echo; the pong side, a receive always
 * posted ahead, waits for the message and sends it back. Send completions are read too.
 * The untimed rounds run the timed rounds' code and end with both sides settling the JIT
 * (as {@code ./jofi pingpong} does): see {@link #ping} and {@link #pong}.
 *
 * <pre>
 * java -cp benchmarks.jar io.jofi.benchmarks.ShmApiPingPong pong FILE SIZE ITERS [WARMUP]
 * java -cp benchmarks.jar io.jofi.benchmarks.ShmApiPingPong ping FILE SIZE ITERS [WARMUP]
 * </pre>
 * The ping side prints fabtests' row (usec/xfer = half the round trip). Every wait is bounded
 * ({@value #TIMEOUT_SECONDS} s: exit status 1).
 */
public final class ShmApiPingPong {
    private static final long TIMEOUT_SECONDS = 60;
    private static final long TIMEOUT_NANOS = TIMEOUT_SECONDS * 1_000_000_000L;

    private final ShmPair.Side side;
    private final CqEntry[] one = {new CqEntry()};
    private final CqEntry[] none = new CqEntry[0];
    private final CqErrEntry error = new CqErrEntry();
    /** Empty CQ reads of every wait so far (see {@link #await}). */
    private long spins;
    /** Empty reads between two reads of the clock in {@link #await} (a power of two). */
    private static final int CLOCK_SPINS = 1024;

    private ShmApiPingPong(ShmPair.Side side) {
        this.side = side;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !("ping".equals(args[0]) || "pong".equals(args[0]))) {
            System.err.println("usage: ShmApiPingPong ping|pong FILE SIZE ITERS [WARMUP]");
            System.exit(2);
        }
        boolean ping = "ping".equals(args[0]);
        Path file = Path.of(args[1]);
        int size = Integer.parseInt(args[2]);
        long iters = Long.parseLong(args[3]);
        long warmup = args.length > 4 ? Long.parseLong(args[4]) : 100;
        if (size < 1 || iters < 1 || warmup < 0) {
            System.err.println("ShmApiPingPong: SIZE >= 1, ITERS >= 1, WARMUP >= 0");
            System.exit(2);
        }
        try (ShmPair.Side side = new ShmPair.Side(ShmPair.shmInfo())) {
            Path mine = Path.of(file + "." + args[0]);
            Path theirs = Path.of(file + "." + (ping ? "pong" : "ping"));
            Path tmp = Path.of(mine + ".tmp");
            Files.write(tmp, side.ep.getName());
            Files.move(tmp, mine, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            long peer;
            try {
                peer = insert(side, awaitName(theirs));
            } finally {
                Files.deleteIfExists(theirs); // read: its writer needs it no more
            }
            ShmApiPingPong pp = new ShmApiPingPong(side);
            if (ping) {
                pp.ping(peer, size, iters, warmup);
            } else {
                pp.pong(peer, size, iters, warmup);
            }
        } catch (IOException | FabricException | IllegalStateException e) {
            // after the endpoint is closed (its region file removed), not from inside the try
            System.err.println("ShmApiPingPong " + args[0] + ": " + e.getMessage());
            System.exit(1);
        }
    }

    private static byte[] awaitName(Path file) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true) {
            try {
                return Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no " + file + " within " + TIMEOUT_SECONDS + " s (is the other side running?)");
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + file);
                }
            }
        }
    }

    private static long insert(ShmPair.Side side, byte[] name) {
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        if (side.av.insert(new byte[][] {name}, fi, 0, null) != 1) {
            throw new IllegalStateException("cannot insert the peer's address into the AV");
        }
        return fi[0];
    }

    /**
     * The ping side: {@code warmup} untimed rounds, then {@code iters} timed ones, all through
     * {@link #pingRounds}, so that C2 compiles the timed loop from the untimed rounds' profile
     * (a round-number test inside one loop was first taken when the clock started: an
     * uncommon trap, and the loop recompiled while timed). Between the last two untimed
     * rounds this side settles ({@link JitSettle}); in the last one the pong side settles
     * while this side waits for its answer, untimed.
     */
    private void ping(long peer, int size, long iters, long warmup) {
        ByteBuffer tx = ByteBuffer.allocateDirect(size);
        ByteBuffer rx = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            tx.put(i, (byte) i);
        }
        if (warmup > 0) {
            pingRounds(peer, tx, rx, warmup - 1);
            JitSettle.awaitQuietCompiler();
            pingRounds(peer, tx, rx, 1);
        } else {
            JitSettle.awaitQuietCompiler();
        }
        long start = System.nanoTime();
        pingRounds(peer, tx, rx, iters);
        long elapsed = System.nanoTime() - start;
        FabtestsRow.print(size, iters, 2.0 * iters * size, elapsed / 1e3, elapsed / 1e3 / iters / 2);
    }

    /** {@code n} rounds of the ping side: post the receive, send, wait for the echo and the send's completion. */
    private void pingRounds(long peer, ByteBuffer tx, ByteBuffer rx, long n) {
        for (long round = 0; round < n; round++) {
            ShmPair.check(side.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, null), "recv");
            send(tx, peer);
            await(side.rxCq);
            await(side.txCq);
        }
    }

    /**
     * The pong side: the rounds of {@link #ping}, each answering one message. It settles
     * ({@link JitSettle}) in the last untimed round, between the message and its answer,
     * where the ping side waits untimed. Without untimed rounds both sides settle before the
     * first round (at about the same time: the ping side's first timed round may wait for
     * the rest of this side's pause).
     */
    private void pong(long peer, int size, long iters, long warmup) {
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        if (warmup > 0) {
            pongRounds(peer, buf, warmup - 1);
            ShmPair.check(side.ep.recv(buf, null, Fi.FI_ADDR_UNSPEC, null), "recv");
            await(side.rxCq);
            JitSettle.awaitQuietCompiler();
            send(buf, peer);
            await(side.txCq);
        } else {
            JitSettle.awaitQuietCompiler();
        }
        pongRounds(peer, buf, iters);
    }

    /** {@code n} rounds of the pong side: post the receive, wait for the message, send it back, wait for the send's completion. */
    private void pongRounds(long peer, ByteBuffer buf, long n) {
        for (long round = 0; round < n; round++) {
            ShmPair.check(side.ep.recv(buf, null, Fi.FI_ADDR_UNSPEC, null), "recv");
            await(side.rxCq);
            send(buf, peer);
            await(side.txCq);
        }
    }

    private void send(ByteBuffer buf, long peer) {
        int rc;
        long deadline = 0;
        while ((rc = side.ep.send(buf, null, peer, null)) != 0) {
            if (rc != -Errno.EAGAIN) {
                ShmPair.check(rc, "send");
            }
            side.txCq.read(none, 0); // drive progress
            side.rxCq.read(none, 0);
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + TIMEOUT_NANOS;
            } else if (now - deadline > 0) {
                throw new IllegalStateException("send kept returning -EAGAIN for " + TIMEOUT_SECONDS + " s");
            }
        }
    }

    /**
     * Spins on {@code cq} (its reads drive manual progress) until one completion; bounded. The
     * clock is read every {@value #CLOCK_SPINS} empty reads counted across waits, so that the
     * untimed rounds take that branch as often as the timed ones (a branch first taken in the
     * timed rounds would deoptimize them) and a spin does not pay for a clock read each pass.
     */
    private void await(CompletionQueue cq) {
        long deadline = 0;
        while (true) {
            int rc = cq.read(one, 1);
            if (rc == 1) {
                return;
            }
            if (rc == -Errno.EAVAIL) {
                cq.readErr(error, 0);
                throw new IllegalStateException("error completion: " + Errno.strerror(error.err()));
            }
            if (rc != -Errno.EAGAIN) {
                ShmPair.check(rc, "cq read");
            }
            if ((++spins & (CLOCK_SPINS - 1)) == 0) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + TIMEOUT_NANOS;
                } else if (now - deadline > 0) {
                    throw new IllegalStateException("no completion within " + TIMEOUT_SECONDS + " s");
                }
            }
        }
    }
}
