package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EqAttr;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.shm.ring.DoorbellRinger;
import io.jofi.provider.shm.ring.RegionDescriptor;
import io.jofi.provider.shm.ring.RingDescriptor;
import io.jofi.provider.shm.ring.ShmRegion;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/SHM-LAYOUT.md "Bad input, faults, security": a hostile process writes into a victim endpoint's ring. Before the fix a
 * corrupt ring made the victim's AUTO progress thread spin at 100 % CPU for ever (the failed
 * ring kept answering "do not sleep, read") and the application was never told. Now: the
 * victim's progress thread uses (nearly) no CPU over a window (ThreadMXBean), a corruption the
 * ring detects fails the endpoint — its posted receive completes with {@code EIO}, its EQ gets
 * an {@code EIO} error event, later receives are refused — and a well-behaved peer still works
 * with the victim's process (the victim's sends reach it; with an undetected scribble, its
 * messages to the victim still arrive).
 */
@Timeout(120)
class ShmCorruptRingTest {
    /** CPU the progress threads of both domains may use in {@link #WINDOW_MS} when idle. */
    private static final long CPU_BUDGET_MS = 100;
    private static final long WINDOW_MS = 1000;

    private static Path newDir() throws java.io.IOException {
        return Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmcorrupt-");
    }

    /** Patterns a corrupting peer applies, each detectable by the ring. */
    @ParameterizedTest
    @ValueSource(strings = {"tail", "head", "length", "claimedLength", "typeAndLength"})
    void aDetectedCorruptionFailsTheEndpointWithoutSpinning(String pattern) throws Exception {
        run(pattern, 1, true);
    }

    /** Random bytes over the ring and its counters: detected (then reported) or harmless, never a spin. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void randomBytesOverTheRingNeverSpin(int seed) throws Exception {
        run("random", seed, false);
    }

    /** The longer randomized variant (mvn -Psoak). */
    @Test
    @Tag("soak")
    @Timeout(1800)
    void soakRandomBytesOverTheRing() throws Exception {
        for (int seed = 100; seed < 300; seed++) {
            run("random", seed, false);
        }
    }

    private void run(String pattern, long seed, boolean mustDetect) throws Exception {
        Path dir = newDir();
        EventQueue[] eq = new EventQueue[1];
        try (ShmTestBed victim = new ShmTestBed(dir, Progress.AUTO, 0, bed -> {
            eq[0] = bed.fabric.openEq(new EqAttr(), null);
            bed.ep.bind(eq[0], 0);
        }); ShmTestBed friend = new ShmTestBed(dir, Progress.AUTO)) {
            try {
                check(victim, friend, eq[0], dir, pattern, seed, mustDetect);
            } finally {
                victim.ep.close(); // before its EQ, which the fabric's close wants closed
                eq[0].close();
            }
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    private void check(ShmTestBed victim, ShmTestBed friend, EventQueue eq, Path dir, String pattern, long seed,
                       boolean mustDetect) throws Exception {
        {
            String name = victim.name().substring(ShmNames.SCHEME.length());
            ByteBuffer pending = ByteBuffer.allocateDirect(64);
            victim.post(() -> victim.ep.recv(pending, null, Fi.FI_ADDR_UNSPEC, "pending"), "recv");
            Random random = new Random(seed);
            try (ShmRegion region = ShmRegion.map(dir, name);
                 DoorbellRinger bell = DoorbellRinger.connect(region.doorbellPath())) {
                scribble(pattern, region, random);
                bell.ring(); // the victim sleeps: make it look now
            }
            boolean detected = awaitFailure(victim, eq, mustDetect);
            assertProgressIdle(pattern + " seed " + seed);
            // the victim's process still works with a well-behaved peer
            long toFriend = victim.insert(friend.ep.getName());
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            friend.post(() -> friend.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "f"), "friend recv");
            victim.post(() -> victim.ep.send(ShmCrossProcessTest.pattern(64, 5), null, toFriend, "v"), "victim send");
            assertEquals("f", friend.completion(friend.rxCq, "the victim's message to the friend").context());
            assertEquals(5, in.get(0));
            if (detected) {
                assertEquals(-Errno.EIO, victim.ep.recv(ByteBuffer.allocateDirect(8), null, Fi.FI_ADDR_UNSPEC, "late"),
                        "a failed endpoint refuses receives: nothing can arrive");
            } else {
                // undetected means harmless: the friend's message to the victim arrives
                long toVictim = friend.insert(victim.ep.getName());
                friend.post(() -> friend.ep.send(ShmCrossProcessTest.pattern(64, 7), null, toVictim, "s"), "friend send");
                CqEntry e = victim.completion(victim.rxCq, "the friend's message after a harmless scribble ("
                        + pattern + " seed " + seed + ")");
                assertEquals("pending", e.context());
                assertEquals(7, pending.get(0));
            }
            assertProgressIdle(pattern + " seed " + seed + ", after traffic");
        }
    }

    /** Writes the pattern into the victim's region, as another process mapping it would. */
    private static void scribble(String pattern, ShmRegion region, Random random) {
        ByteBuffer header = region.mapping().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer ring = region.ring().buffer();
        long tail = header.getLong(RegionDescriptor.TAIL_OFFSET);
        int at = (int) (tail & (ring.capacity() - 1));
        switch (pattern) {
            case "tail" -> header.putLong(RegionDescriptor.TAIL_OFFSET, tail + ring.capacity() + 8 * (1 + random.nextInt(100)));
            // the consumer's published position: producers then saw a tail behind the head (and
            // failed the victim without telling it) or a full ring (and waited for ever)
            case "head" -> header.putLong(RegionDescriptor.HEAD_OFFSET, header.getLong(RegionDescriptor.HEAD_OFFSET)
                    + 8 * (1 + random.nextInt(1000)));
            case "length", "claimedLength", "typeAndLength" -> {
                int index = region.ring().claim(1, (int) ProcessHandle.current().pid(), 0, 32);
                assertTrue(index >= 0, "claim " + index);
                if (pattern.equals("length")) {
                    region.ring().publish(index);
                    ring.putInt(index, ring.capacity() + 8 + random.nextInt(1 << 20)); // past the end of the ring
                } else if (pattern.equals("claimedLength")) {
                    ring.putInt(index + RingDescriptor.TYPE_OFFSET, 1);
                    ring.putInt(index, 4); // shorter than any record
                } else {
                    region.ring().publish(index);
                    ring.putInt(index + RingDescriptor.TYPE_OFFSET, -1 - random.nextInt(1000)); // negative type
                }
            }
            case "random" -> {
                // the ring bytes from the tail on (nothing claimed there), then maybe a counter
                for (int i = 0; i < 64 + random.nextInt(4096); i++) {
                    ring.put((at + random.nextInt(ring.capacity())) & (ring.capacity() - 1), (byte) random.nextInt());
                }
                ring.putInt(at, random.nextInt());
                switch (random.nextInt(4)) {
                    case 0 -> header.putLong(RegionDescriptor.TAIL_OFFSET, tail + random.nextInt(1 << 16));
                    case 1 -> header.putLong(RegionDescriptor.TAIL_OFFSET, random.nextLong());
                    case 2 -> header.putLong(RegionDescriptor.HEAD_OFFSET, random.nextLong());
                    default -> {
                        // the ring bytes alone
                    }
                }
            }
            default -> fail("unknown pattern " + pattern);
        }
    }

    /**
     * Waits (bounded) for the endpoint failure to reach the application: the posted receive's
     * EIO error completion and the EQ's EIO error event.
     *
     * @return whether it was reported (must be when {@code mustDetect})
     */
    private static boolean awaitFailure(ShmTestBed victim, EventQueue eq, boolean mustDetect) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(mustDetect ? 10 : 2);
        while (System.nanoTime() < deadline) {
            int rc = victim.rxCq.read(one, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry e = new CqErrEntry();
                assertEquals(1, victim.rxCq.readErr(e, 0));
                assertEquals("pending", e.context());
                assertEquals(Errno.EIO, e.err(), "the posted receive fails with EIO");
                EqErrEntry ee = new EqErrEntry();
                long eqDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                int erc;
                while ((erc = eq.readErr(ee, 0)) != 1) {
                    if (System.nanoTime() > eqDeadline) {
                        fail("no EQ error event for the failed endpoint (readErr " + erc + ")");
                    }
                    Thread.onSpinWait();
                }
                assertEquals(Errno.EIO, ee.err());
                assertTrue(ee.fid() == victim.ep, "the event names the endpoint");
                return true;
            }
            if (rc == 1) {
                fail("a completion where none was expected: " + one[0].context());
            }
            Thread.onSpinWait();
        }
        if (mustDetect) {
            fail("the corrupt ring was not reported to the application within 10 s");
        }
        return false;
    }

    /** The shm progress threads of this JVM used at most {@link #CPU_BUDGET_MS} in a window. */
    private static void assertProgressIdle(String what) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long before = progressCpu(mx);
        Thread.sleep(WINDOW_MS); // the measured window, not an assertion by itself
        long used = TimeUnit.NANOSECONDS.toMillis(progressCpu(mx) - before);
        assertTrue(used <= CPU_BUDGET_MS, what + ": the progress threads used " + used + " ms CPU in "
                + WINDOW_MS + " ms (spinning)");
    }

    private static long progressCpu(ThreadMXBean mx) {
        long sum = 0;
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("jofi-shm-progress-")) {
                long c = mx.getThreadCpuTime(t.getThreadId());
                sum += Math.max(0, c);
            }
        }
        return sum;
    }
}
