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
                pp.pong(peer, size, iters + warmup);
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

    private void ping(long peer, int size, long iters, long warmup) {
        ByteBuffer tx = ByteBuffer.allocateDirect(size);
        ByteBuffer rx = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            tx.put(i, (byte) i);
        }
        long start = System.nanoTime();
        for (long round = 0; round < iters + warmup; round++) {
            if (round == warmup) {
                start = System.nanoTime();
            }
            ShmPair.check(side.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, null), "recv");
            send(tx, peer);
            await(side.rxCq);
            await(side.txCq);
        }
        long elapsed = System.nanoTime() - start;
        FabtestsRow.print(size, iters, 2.0 * iters * size, elapsed / 1e3, elapsed / 1e3 / iters / 2);
    }

    private void pong(long peer, int size, long rounds) {
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        for (long round = 0; round < rounds; round++) {
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

    /** Spins on {@code cq} (its reads drive manual progress) until one completion; bounded. */
    private void await(CompletionQueue cq) {
        int spins = 0;
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
            if (++spins == 1 << 16) {
                spins = 0;
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
