package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.spi.util.ProgressEngine;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Truncated files (docs/SHM-LAYOUT.md "Bad input, faults, security"): a peer's file truncated under our mapping by a second process
 * ({@code truncate -s}) — its region, the bounce buffers at the region's end, or the file
 * backing a buffer it registered for one-sided RMA — makes our next access fault. The JVM
 * raises that fault late (an {@link InternalError} at the thread's next VM entry, see
 * {@link MappingFaults}), so every data-path call here is followed by "application code" that
 * enters the VM (allocations, one beyond any TLAB): a fault that escaped a call surfaces there
 * and fails the test. What must hold: no call throws, the peer is failed with an {@code EIO}
 * error completion, another peer keeps working, progress goes on.
 */
@Timeout(120)
class ShmTruncatedPeerTest {
    private static final int SMALL = 64;
    /** Above the inline threshold (16 KiB), below the CMA threshold (32 KiB): a bounce slot. */
    private static final int BOUNCE = 24 << 10;
    private static final long KEY = 77;

    enum Target { REGION, BOUNCE, REGISTRATION }

    /** Every target in both modes; {@code -Dtrunc.case=REGION-MANUAL} (say) runs one alone. */
    static java.util.stream.Stream<Arguments> cases() {
        return java.util.stream.Stream.of(Progress.AUTO, Progress.MANUAL).flatMap(
                p -> java.util.stream.Stream.of(Target.values()).map(t -> Arguments.of(p, t)))
                .filter(a -> System.getProperty("trunc.case") == null
                        || System.getProperty("trunc.case").equals(a.get()[1] + "-" + a.get()[0]));
    }

    @ParameterizedTest(name = "{1} in {0}")
    @MethodSource("cases")
    void truncatedPeerFileFailsThatPeerOnly(Progress mode, Target target) throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmtruncpeer-");
        try (ShmTestBed us = new ShmTestBed(dir, mode);
             ShmTestBed peer = new ShmTestBed(dir, Progress.MANUAL);
             ShmTestBed friend = new ShmTestBed(dir, Progress.AUTO)) {
            long toPeer = us.insert(peer.ep.getName());
            long toFriend = us.insert(friend.ep.getName());
            ByteBuffer shared = peer.domain.allocateBuffer(1 << 20);
            MemoryRegion mr = peer.domain.register(shared, Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_READ, 0, KEY, 0, null);
            int size = target == Target.BOUNCE ? BOUNCE : SMALL;
            ByteBuffer payload = ShmCrossProcessTest.pattern(size, 3);
            IntSupplier op = target == Target.REGISTRATION
                    ? () -> us.ep.write(payload.duplicate(), null, toPeer, 0, KEY, "w")
                    : () -> us.ep.send(payload.duplicate(), null, toPeer, "s");
            // warm-up: the path runs compiled (the JVM raises the fault late in compiled code)
            ByteBuffer in = ByteBuffer.allocateDirect(BOUNCE);
            CqEntry[] one = {new CqEntry()};
            for (int i = 0; i < 3000; i++) {
                if (target != Target.REGISTRATION) {
                    peer.post(() -> peer.ep.recv(in.clear(), null, Fi.FI_ADDR_UNSPEC, "r"), "peer recv");
                }
                us.post(op, "warm-up op");
                us.completion(us.txCq, "warm-up op");
                if (target != Target.REGISTRATION) {
                    peer.completion(peer.rxCq, "warm-up message");
                }
            }
            String name = peer.name().substring(ShmNames.SCHEME.length());
            Path region = dir.resolve(ShmNames.regionFile(name));
            Path file;
            long length;
            switch (target) {
                case REGION -> { file = region; length = 0; }
                case BOUNCE -> { file = region; length = Files.size(region) - (long) ShmSettings.DEFAULT_BOUNCE_SLOT_COUNT * ShmSettings.DEFAULT_BOUNCE_SLOT_SIZE; }
                default -> {
                    try (var s = Files.list(dir)) {
                        file = s.filter(f -> f.getFileName().toString().contains(".buf")).findFirst().orElseThrow();
                    }
                    length = 0;
                }
            }
            truncateByAnotherProcess(file, length);

            // until the peer is failed: every call guarded, application code after each
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            CqErrEntry err = null;
            while (err == null) {
                int rc = guarded(op, "op on the truncated peer");
                assertTrue(rc == 0 || rc == -Errno.EAGAIN || rc == -Errno.EIO, "op answered " + rc);
                int r;
                while ((r = guarded(() -> us.txCq.read(one, 1), "txCq.read")) == 1) {
                    // a completion before the failure was seen: allowed
                }
                if (r == -Errno.EAVAIL) {
                    CqErrEntry e = new CqErrEntry();
                    assertEquals(1, guarded(() -> us.txCq.readErr(e, 0), "readErr"));
                    err = e;
                } else {
                    assertEquals(-Errno.EAGAIN, r, "txCq.read");
                }
                if (System.nanoTime() > deadline) {
                    fail("the truncated " + target + " was not reported within 10 s");
                }
            }
            assertEquals(Errno.EIO, err.err(), "the peer is failed with EIO: " + err);
            // the peer stays failed: later operations fail at once, never throw
            assertEquals(0, guarded(op, "op after the failure"));
            assertEquals(Errno.EIO, errorOf(us.txCq), "a later op on the failed peer");

            // another peer keeps working, and progress goes on
            ByteBuffer fin = ByteBuffer.allocateDirect(SMALL);
            friend.post(() -> friend.ep.recv(fin, null, Fi.FI_ADDR_UNSPEC, "f"), "friend recv");
            us.post(() -> guarded(() -> us.ep.send(ShmCrossProcessTest.pattern(SMALL, 9), null, toFriend, "v"),
                    "send to the friend"), "send to the friend");
            assertEquals("f", friend.completion(friend.rxCq, "the message to the friend").context());
            while (guarded(() -> us.txCq.read(one, 1), "txCq.read") != 1) {
                Thread.onSpinWait();
            }
            assertEquals(9, fin.get(0));
            ProgressEngine engine = ((ShmDomain) us.domain).engine();
            assertTrue(engine.isRunning(), "progress goes on: " + engine.failure());
            if (mode == Progress.AUTO) {
                assertTrue(engine.thread().isAlive(), "the AUTO progress thread is alive");
            }
            mr.close();
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    /** The errno of the next error completion, every read guarded. */
    private static int errorOf(CompletionQueue cq) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int r;
        while ((r = guarded(() -> cq.read(one, 1), "cq.read")) != -Errno.EAVAIL) {
            assertTrue(r == -Errno.EAGAIN, "read answered " + r);
            assertTrue(System.nanoTime() < deadline, "an error completion within 10 s");
        }
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, guarded(() -> cq.readErr(e, 0), "readErr"));
        return e.err();
    }

    /** {@code truncate -s length file}, run as a separate process (as another process of our user could). */
    static void truncateByAnotherProcess(Path file, long length) throws Exception {
        Process p = new ProcessBuilder("truncate", "-s", Long.toString(length), file.toString())
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "truncate finished");
        assertEquals(0, p.exitValue(), "truncate: " + new String(p.getInputStream().readAllBytes()));
        assertEquals(length, Files.size(file));
    }

    /**
     * Runs a data-path call, fails the test if it throws, then runs application code that
     * enters the VM (a slow-path allocation raises any fault still pending from the call).
     */
    static int guarded(IntSupplier call, String what) {
        int rc;
        try {
            rc = call.getAsInt();
        } catch (Throwable t) {
            throw new AssertionError(what + " threw", t);
        }
        try {
            applicationCode();
        } catch (InternalError e) {
            throw new AssertionError("a fault escaped " + what + " and surfaced in the application's code", e);
        }
        return rc;
    }

    static volatile Object sink;

    /** Plain Java work: thousands of small allocations and one beyond any TLAB (the VM is entered). */
    static void applicationCode() {
        for (int i = 0; i < 2000; i++) {
            sink = new int[8 + (i & 7)];
        }
        sink = new byte[4 << 20];
        sink = null;
    }
}
