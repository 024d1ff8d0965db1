package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Progress;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The looks at a peer's region that progress makes while operations to it are pending (every
 * {@link PeerLiveness#WATCHED_MILLIS} ms: its consumed head and claimed tail, for the stall
 * check) allocate nothing. They made a new view of the mapping each (about 128 bytes a look),
 * which {@link ShmAllocationTest}'s 3000 rounds crossed only when they took longer than 50 ms:
 * a CI run without escape analysis, on a loaded machine, counted 4144 bytes.
 */
@Timeout(60)
class RingLinkAllocationTest {
    private static final int LOOKS = 10_000;

    @Test
    void theStallCheckReadsOfAPeerRegionAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmlinkalloc-");
        try (ShmTestBed owner = new ShmTestBed(dir, Progress.MANUAL);
             RingLink peer = RingLink.map(dir, owner.name().substring(ShmNames.SCHEME.length()))) {
            long sum = look(peer, LOOKS); // warm-up: compiled, classes loaded
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            sum += look(peer, LOOKS);
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            assertTrue(allocated < 1024, allocated + " bytes allocated over " + LOOKS
                    + " looks at a peer's head, tail and features (sum " + sum + ")");
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    private static long look(RingLink peer, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += peer.consumedHead() + peer.claimedTail() + (peer.peerDoesCma() ? 1 : 0);
        }
        return sum;
    }
}
