package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import io.jofi.provider.shm.ring.ShmRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * shm between real processes: this JVM and child JVMs ({@link ShmPeerMain}) on one region
 * directory. Messages (inline and fragmented, tagged, FI_SOURCE), one-sided RMA into a
 * target that does not progress, atomics from two processes at once, a peer killed with
 * {@code kill -9} (error completions, the survivor works with others, files removed), and
 * region files of dead processes removed when a process starts. Every wait is bounded.
 */
@Timeout(120)
class ShmCrossProcessTest {
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        dir = Files.createTempDirectory(base, "shmtest-");
    }

    @AfterAll
    static void removeDirectory() throws IOException {
        deleteTree(dir);
    }

    /** Removes a test directory and what is left in it. */
    static void deleteTree(Path d) throws IOException {
        try (Stream<Path> s = Files.walk(d)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Messages both ways: small, 1 MiB (fragments through the ring), tagged; readFrom names the child. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void messagesBetweenProcesses(Progress progress) throws Exception {
        try (ShmTestBed bed = new ShmTestBed(dir, progress); ChildPeer child = new ChildPeer(dir, progress.name())) {
            long peer = bed.insert(child.address());
            child.expect("peer " + bed.name(), "OK");
            child.send("echo 3");
            int[] sizes = {64, 1 << 20, 300};
            for (int k = 0; k < 3; k++) {
                int n = sizes[k];
                ByteBuffer out = pattern(n, 7 * k);
                ByteBuffer in = ByteBuffer.allocateDirect(n);
                boolean tagged = k == 2;
                Object rctx = "r" + k;
                if (tagged) {
                    bed.post(() -> bed.ep.trecv(in, null, Fi.FI_ADDR_UNSPEC, 0x55, 0, rctx), "trecv");
                    bed.post(() -> bed.ep.tsend(out, null, peer, 0x55, "s"), "tsend");
                } else {
                    bed.post(() -> bed.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, rctx), "recv");
                    bed.post(() -> bed.ep.send(out, null, peer, "s"), "send of " + n);
                }
                bed.completion(bed.txCq, "send " + k);
                CqEntry[] e = {new CqEntry()};
                long[] src = {-2};
                long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
                while (bed.rxCq.readFrom(e, 1, src) != 1) {
                    assertTrue(System.nanoTime() < deadline, "the echo of message " + k + " within 20 s");
                    Thread.onSpinWait();
                }
                assertSame(rctx, e[0].context());
                assertEquals(n, e[0].len(), "echoed length");
                assertEquals(peer, src[0], "readFrom: the child's fi_addr (FI_SOURCE, R10)");
                if (tagged) {
                    assertEquals(0x55, e[0].tag(), "the tag came back");
                }
                assertPattern(in, n, 7 * k, "echo of message " + k);
            }
            assertEquals("DONE", child.next());
        }
    }

    /**
     * One-sided RMA: the child registers shareable memory and then only waits for its next
     * command (MANUAL progress: its endpoint is not progressed at all); writes, reads and
     * atomics from this JVM complete all the same, and the child finds the data in its memory.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void oneSidedRmaReachesAnIdleTarget(Progress progress) throws Exception {
        try (ShmTestBed bed = new ShmTestBed(dir, progress); ChildPeer child = new ChildPeer(dir, "MANUAL")) {
            long peer = bed.insert(child.address());
            child.expect("alloc 65536 77", "OK");
            ByteBuffer src = pattern(4096, 5);
            RmaMsg w = new RmaMsg();
            w.buffer(src, null).addr(peer).context("w");
            w.rma(100, 4096, 77);
            bed.post(() -> bed.ep.writeMsg(w, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "writeMsg");
            assertEquals("w", bed.completion(bed.txCq, "the one-sided write").context());
            child.expect("check 100 4096 5", "OK");
            child.expect("fill 8192 100 9", "OK");
            ByteBuffer dst = ByteBuffer.allocateDirect(100);
            bed.post(() -> bed.ep.read(dst, null, peer, 8192, 77, "r"), "read");
            assertEquals("r", bed.completion(bed.txCq, "the one-sided read").context());
            assertPattern(dst, 100, 9, "bytes read from the idle child");
            ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            for (int i = 0; i < 10; i++) {
                bed.post(() -> bed.ep.fetchAtomic(3, result, null, peer, 16384, 77, Fi.FI_SUM, "a"), "fetchAtomic");
                bed.completion(bed.txCq, "atomic " + i);
                assertEquals(3L * i, result.getLong(0), "the old value of sum " + i);
            }
            child.expect("get 16384", "VALUE 30");
            bed.post(() -> bed.ep.write(pattern(8, 0), null, peer, 65536 - 4, 77, "oob"), "write past the end");
            CqErrEntry err = bed.error(bed.txCq, "a one-sided write past the region's end");
            assertEquals("oob", err.context());
            assertTrue(err.err() > 0);
        }
    }

    /** Two child processes and this one update one 64-bit counter in this process's shareable memory directly. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void atomicsFromTwoProcesses(Progress progress) throws Exception {
        try (ShmTestBed bed = new ShmTestBed(dir, progress);
             ChildPeer c1 = new ChildPeer(dir, "MANUAL"); ChildPeer c2 = new ChildPeer(dir, "AUTO")) {
            ByteBuffer target = bed.domain.allocateBuffer(4096).order(ByteOrder.nativeOrder());
            MemoryRegion mr = bed.domain.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 4242, 0, null);
            c1.expect("peer " + bed.name(), "OK");
            c2.expect("peer " + bed.name(), "OK");
            c1.send("atomics " + mr.key() + " 2000");
            c2.send("atomics " + mr.key() + " 2000");
            assertEquals("DONE", c1.next());
            assertEquals("DONE", c2.next());
            assertEquals(4000L, target.getLong(0), "every increment of both processes counted once");
            mr.close();
        }
    }

    /**
     * kill -9 of a peer with an operation pending towards it: the operation completes with an
     * ECONNRESET error, the dead peer's files go, and the survivor keeps working with another
     * process.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void killedPeerFailsPendingOperations(Progress progress) throws Exception {
        try (ShmTestBed bed = new ShmTestBed(dir, progress); ChildPeer victim = new ChildPeer(dir, "MANUAL")) {
            long peer = bed.insert(victim.address());
            Path file = ShmRegion.regionPath(dir, victim.name().substring(ShmNames.SCHEME.length()));
            assertTrue(Files.exists(file), "the child's region file exists");
            Msg m = new Msg().buffer(pattern(32, 1), null).addr(peer).context("pending");
            bed.post(() -> bed.ep.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "sendMsg to an idle peer");
            victim.kill();
            CqErrEntry e = bed.error(bed.txCq, "the send pending towards the killed peer");
            assertEquals("pending", e.context());
            assertEquals(Errno.ECONNRESET, e.err(), "a dead peer's pending operations fail with ECONNRESET: " + e);
            assertFalse(Files.exists(file), "the dead peer's region file is removed");
            try (ChildPeer other = new ChildPeer(dir, progress.name())) {
                long p2 = bed.insert(other.address());
                other.expect("peer " + bed.name(), "OK");
                other.send("echo 1");
                ByteBuffer in = ByteBuffer.allocateDirect(16);
                bed.post(() -> bed.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r"), "recv");
                bed.post(() -> bed.ep.send(pattern(16, 3), null, p2, "s"), "send to the survivor's other peer");
                bed.completion(bed.txCq, "send to the other peer");
                bed.completion(bed.rxCq, "echo from the other peer");
                assertPattern(in, 16, 3, "echo");
                assertEquals("DONE", other.next());
            }
        }
    }

    /** Region files a killed process left behind are removed when the next process opens a domain. */
    @org.junit.jupiter.api.Test
    void filesOfDeadProcessesAreCleanedAtStart() throws Exception {
        ChildPeer victim = new ChildPeer(dir, "MANUAL");
        Path file = ShmRegion.regionPath(dir, victim.name().substring(ShmNames.SCHEME.length()));
        String table = ShmNames.tableOf(victim.name().substring(ShmNames.SCHEME.length()));
        victim.kill();
        assertTrue(Files.exists(file), "kill -9 leaves the region file behind");
        assertTrue(Files.exists(dir.resolve(table)), "and the registration table");
        try (ChildPeer next = new ChildPeer(dir, "MANUAL")) {
            assertFalse(Files.exists(file), "a starting process removed the dead one's region file");
            assertFalse(Files.exists(dir.resolve(table)), "and its registration table");
            assertTrue(Files.exists(ShmRegion.regionPath(dir, next.name().substring(ShmNames.SCHEME.length()))),
                    "its own exists");
        }
    }

    static ByteBuffer pattern(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (seed + i));
        }
        return b;
    }

    static void assertPattern(ByteBuffer b, int n, int seed, String what) {
        for (int i = 0; i < n; i++) {
            if (b.get(i) != (byte) (seed + i)) {
                throw new AssertionError(what + ": byte " + i + " is " + b.get(i) + ", expected " + (byte) (seed + i));
            }
        }
    }
}
