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
import io.jofi.provider.shm.ring.DoorbellRinger;
import io.jofi.spi.util.ProgressEngine;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The initiator's own region truncated (by another process) while target-side RMA towards a
 * peer is in flight and queued: its own ring fails ({@code EIO}), so every operation awaiting
 * an answer fails — those still queued towards the peer too, and only once. Before, the queued
 * ones were failed and their descriptors given back while they stayed queued; when the peer's
 * ring had room again they were pushed and given back a second time
 * ({@code ShmOperationTable.release} past its free list on the progress thread), and the
 * application's next {@code write()} threw {@code ArrayIndexOutOfBoundsException} from
 * {@code ShmOperationTable.take}.
 */
@Timeout(120)
class ShmOwnRegionTruncatedRmaTest {
    private static final int WRITES = 100;
    private static final int LENGTH = 16 << 10;
    private static final long KEY = 5;

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void queuedAndSentWritesFailOnceAndTheTableStaysSound(Progress mode) throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmtruncrma-");
        // the target: MANUAL progress driven only by this test, memory it serves itself (not shareable)
        try (ShmTestBed us = new ShmTestBed(dir, mode); ShmTestBed target = new ShmTestBed(dir, Progress.MANUAL)) {
            ByteBuffer window = ByteBuffer.allocateDirect(LENGTH);
            try (MemoryRegion mr = target.domain.register(window, Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_READ, 0, KEY, 0, null)) {
                long to = us.insert(target.ep.getName());
                Map<Object, Integer> seen = new HashMap<>();
                for (int i = 0; i < WRITES; i++) {
                    String ctx = "w" + i;
                    int rc = ShmTruncatedPeerTest.guarded(
                            () -> us.ep.write(ShmCrossProcessTest.pattern(LENGTH, 1), null, to, 0, KEY, ctx), "write");
                    assertEquals(0, rc, "write " + i + " posted (queued when the target's ring is full)");
                }
                String name = us.name().substring(ShmNames.SCHEME.length());
                ShmTruncatedPeerTest.truncateByAnotherProcess(dir.resolve(ShmNames.regionFile(name)), 0);
                try (DoorbellRinger bell = DoorbellRinger.connect(dir.resolve("jofi-" + name + ".bell"))) {
                    bell.ring(); // a sleeping progress thread looks at its ring now
                }
                // every write completes once (EIO: the answer can no longer reach us), while the
                // target drains its ring and frees room for what was queued
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (total(seen) < WRITES) {
                    drain(us.txCq, seen);
                    ShmTruncatedPeerTest.guarded(() -> target.txCq.read(new CqEntry[0], 0), "target progress");
                    if (System.nanoTime() > deadline) {
                        fail("only " + total(seen) + " of " + WRITES + " writes completed within 20 s");
                    }
                }
                // the target keeps draining: nothing completes twice
                long settle = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
                while (System.nanoTime() < settle) {
                    drain(us.txCq, seen);
                    ShmTruncatedPeerTest.guarded(() -> target.txCq.read(new CqEntry[0], 0), "target progress");
                }
                for (int i = 0; i < WRITES; i++) {
                    assertEquals(1, seen.getOrDefault("w" + i, 0), "completions of w" + i);
                }
                ProgressEngine engine = ((ShmDomain) us.domain).engine();
                assertTrue(engine.isRunning(), "our progress goes on: " + engine.failure());
                if (mode == Progress.AUTO) {
                    assertTrue(engine.thread().isAlive(), "the AUTO progress thread is alive");
                }
                // the table is sound: more operations than it ever held take and give descriptors
                seen.clear();
                int posted = 0;
                for (int i = 0; i < 300; i++) {
                    String ctx = "x" + i;
                    int rc = ShmTruncatedPeerTest.guarded(
                            () -> us.ep.write(ShmCrossProcessTest.pattern(64, 2), null, to, 0, KEY, ctx), "write after");
                    assertEquals(0, rc, "a write after the failure is accepted (and fails with an entry)");
                    if (rc == 0) {
                        posted++;
                    }
                    drain(us.txCq, seen);
                }
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (total(seen) < posted && System.nanoTime() < end) {
                    drain(us.txCq, seen);
                }
                assertEquals(posted, total(seen), "every write posted after the failure completes");
                for (Map.Entry<Object, Integer> e : seen.entrySet()) {
                    assertEquals(1, e.getValue(), "completions of " + e.getKey());
                }
            }
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    private static int total(Map<Object, Integer> seen) {
        int n = 0;
        for (int v : seen.values()) {
            n += v;
        }
        return n;
    }

    /** Reads every completion (success or error) there is now, counting each context. */
    private static void drain(CompletionQueue cq, Map<Object, Integer> seen) {
        CqEntry[] one = {new CqEntry()};
        while (true) {
            int rc = ShmTruncatedPeerTest.guarded(() -> cq.read(one, 1), "cq.read");
            if (rc == 1) {
                seen.merge(one[0].context(), 1, Integer::sum);
            } else if (rc == -Errno.EAVAIL) {
                CqErrEntry e = new CqErrEntry();
                assertEquals(1, ShmTruncatedPeerTest.guarded(() -> cq.readErr(e, 0), "readErr"));
                seen.merge(e.context(), 1, Integer::sum);
            } else {
                assertEquals(-Errno.EAGAIN, rc, "cq.read");
                return;
            }
        }
    }
}
