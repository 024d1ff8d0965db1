package io.jofi.provider.shm;

import static io.jofi.provider.shm.ShmCrossProcessTest.assertPattern;
import static io.jofi.provider.shm.ShmCrossProcessTest.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Cross-memory attach between real processes (this JVM and a child JVM, {@link ShmPeerMain}):
 * each side's probe reads the other process's word, then large messages go both ways by
 * {@code process_vm_readv} from the other process; a peer killed with a CMA message pending
 * fails it with {@code ECONNRESET}. Every wait is bounded.
 */
@Timeout(120)
class ShmCmaCrossProcessTest {
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        dir = Files.createTempDirectory(base, "shmcmax-");
    }

    @AfterAll
    static void removeDirectory() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    /** 1 MiB and odd sizes echoed by a child: our sends and the child's echoes go by CMA once probed. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void largeMessagesBothWays(Progress progress) throws Exception {
        // above the CMA threshold of 32 KiB, which the child uses too, and a bounce slot's 64 KiB
        int[] sizes = {1 << 20, 1 << 20, (1 << 20) + 7, 65_537, 1_000_003, 100_000, 3 << 20};
        try (ShmTestBed bed = new ShmTestBed(dir, progress); ChildPeer child = new ChildPeer(dir, progress.name())) {
            long peer = bed.insert(child.address());
            child.expect("peer " + bed.name(), "OK");
            child.send("echo " + sizes.length);
            ShmEndpoint ep = (ShmEndpoint) bed.ep;
            for (int k = 0; k < sizes.length; k++) {
                int n = sizes[k];
                ByteBuffer out = pattern(n, 5 * k);
                ByteBuffer in = ByteBuffer.allocateDirect(n);
                Object rctx = "r" + k;
                bed.post(() -> bed.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, rctx), "recv");
                bed.post(() -> bed.ep.send(out, null, peer, "s"), "send of " + n);
                bed.completion(bed.txCq, "send " + k);
                CqEntry e = bed.completion(bed.rxCq, "echo " + k);
                assertSame(rctx, e.context());
                assertEquals(n, e.len());
                assertPattern(in, n, 5 * k, "echo of " + n + " bytes");
                if (k == 0) {
                    ShmCmaTest.awaitCmaOn(bed, peer);
                }
            }
            assertEquals("DONE", child.next());
            assertEquals(sizes.length - 1, ShmCountersTest.value(ep, "CMA messages sent"), "every message after the first went by CMA");
            assertTrue(ShmCountersTest.value(ep, "CMA messages read") >= sizes.length - 2, "the child's echoes went by CMA once its probe was answered: "
                    + ShmCountersTest.value(ep, "CMA messages read"));
        }
    }

    /** kill -9 of a peer holding our CMA message unread: the send fails with ECONNRESET. */
    @Test
    void killedPeerFailsAPendingCmaSend() throws Exception {
        try (ShmTestBed bed = new ShmTestBed(dir, Progress.AUTO); ChildPeer victim = new ChildPeer(dir, "AUTO")) {
            long peer = bed.insert(victim.address());
            bed.post(() -> bed.ep.send(pattern(1 << 20, 1), null, peer, "probe-starter"), "send");
            assertEquals("probe-starter", bed.completion(bed.txCq, "the first send (bounce)").context());
            ShmCmaTest.awaitCmaOn(bed, peer);
            ShmEndpoint ep = (ShmEndpoint) bed.ep;
            bed.post(() -> bed.ep.send(pattern(1 << 20, 2), null, peer, "pending"), "send (CMA, never received)");
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            while (ShmCountersTest.value(ep, "CMA messages sent") == 0) {
                assertTrue(System.nanoTime() < deadline, "the CMA record was not published");
                Thread.onSpinWait();
            }
            victim.kill();
            CqErrEntry e = bed.error(bed.txCq, "the CMA send pending towards the killed peer");
            assertEquals("pending", e.context());
            assertEquals(Errno.ECONNRESET, e.err(), e.toString());
        }
    }
}
