package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.provider.shm.ring.ShmRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * provider-shm/README.md "Failure model": peers that die while idle, and peers that stop. Real child
 * JVMs ({@link ShmPeerMain}) killed with {@code kill -9} or stopped with {@code kill -STOP};
 * test-lowered settings; every wait bounded.
 *
 * <ul>
 * <li>A peer killed while nothing is pending towards it is found by the periodic check of
 *     mapped peers: its files are removed, and later sends (plain and
 *     {@code FI_TRANSMIT_COMPLETE}) and one-sided RMA complete with {@code ECONNRESET}
 *     errors. (Before: sends "succeeded" until its ring filled, RMA for ever, files stayed.)</li>
 * <li>{@code FI_TRANSMIT_COMPLETE} is never reported for a peer that is dead when the record
 *     reaches its ring: the completion waits for a life check made after the publish.</li>
 * <li>A stopped peer: an operation waiting for it fails with {@code ETIMEDOUT} once it made no
 *     progress for {@code progressTimeoutMillis}. (Before: it waited for ever.)</li>
 * </ul>
 */
@Timeout(120)
class ShmPeerFailureTest {
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        dir = Files.createTempDirectory(base, "shmfail-");
    }

    @AfterAll
    static void removeDirectory() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void idlePeerKilledIsFoundItsFilesGoAndEverythingTowardsItFails(Progress progress) throws Exception {
        ShmProvider provider = new ShmProvider().directory(dir).failureTimes(200, 60_000);
        try (ShmTestBed bed = new ShmTestBed(provider, progress); ChildPeer child = new ChildPeer(dir, "MANUAL")) {
            long peer = bed.insert(child.address());
            child.expect("alloc 65536 77", "OK");
            bed.post(() -> bed.ep.send(ShmCrossProcessTest.pattern(16, 1), null, peer, "hello"), "send to the idle child");
            bed.completion(bed.txCq, "a plain send to the idle child");
            bed.post(() -> bed.ep.write(ShmCrossProcessTest.pattern(64, 2), null, peer, 0, 77, "w0"), "one-sided write");
            bed.completion(bed.txCq, "a one-sided write into the idle child");
            Path file = ShmRegion.regionPath(dir, child.name().substring(ShmNames.SCHEME.length()));
            Path table = dir.resolve(ShmNames.tableOf(child.name().substring(ShmNames.SCHEME.length())));
            assertTrue(Files.exists(file) && Files.exists(table));
            child.kill();
            long killed = System.nanoTime();
            // nothing is pending towards it: the periodic check of mapped peers finds it
            CqEntry[] none = new CqEntry[0];
            while (Files.exists(file) || Files.exists(table)) {
                bed.txCq.read(none, 0); // drives progress in MANUAL; the AUTO thread needs nothing
                assertTrue(System.nanoTime() - killed < BOUND_NANOS, "the dead idle peer's region file ("
                        + Files.exists(file) + ") and registration table (" + Files.exists(table) + ") removed within 5 s");
                Thread.onSpinWait();
            }
            expectReset(bed, () -> bed.ep.sendMsg(new Msg().buffer(ShmCrossProcessTest.pattern(16, 3), null).addr(peer)
                    .context("tc"), Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION), "tc");
            expectReset(bed, () -> bed.ep.send(ShmCrossProcessTest.pattern(16, 4), null, peer, "plain"), "plain");
            expectReset(bed, () -> bed.ep.write(ShmCrossProcessTest.pattern(64, 5), null, peer, 0, 77, "w1"), "w1");
            assertEquals(-Errno.ECONNRESET, bed.ep.inject(ShmCrossProcessTest.pattern(8, 0), peer),
                    "an inject (no completion to carry the error) is refused");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void transmitCompleteIsNeverReportedForAKilledPeer(Progress progress) throws Exception {
        // the idle check is pushed far out: only the transmit-complete check can find the death
        ShmProvider provider = new ShmProvider().directory(dir).failureTimes(600_000, 60_000);
        try (ShmTestBed bed = new ShmTestBed(provider, progress); ChildPeer child = new ChildPeer(dir, "MANUAL")) {
            long peer = bed.insert(child.address());
            Msg first = new Msg().buffer(ShmCrossProcessTest.pattern(16, 1), null).addr(peer).context("alive");
            bed.post(() -> bed.ep.sendMsg(first, Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION), "tc send to a live peer");
            assertEquals("alive", bed.completion(bed.txCq, "FI_TRANSMIT_COMPLETE to a live (idle) peer").context());
            Path file = ShmRegion.regionPath(dir, child.name().substring(ShmNames.SCHEME.length()));
            child.kill();
            expectReset(bed, () -> bed.ep.sendMsg(new Msg().buffer(ShmCrossProcessTest.pattern(16, 2), null).addr(peer)
                    .context("tc"), Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION), "tc");
            assertFalse(Files.exists(file), "the dead peer's region file is removed when it is found dead");
            expectReset(bed, () -> bed.ep.send(ShmCrossProcessTest.pattern(16, 4), null, peer, "plain"), "plain");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void operationsTowardsAStoppedPeerTimeOut(Progress progress) throws Exception {
        ShmProvider provider = new ShmProvider().directory(dir).failureTimes(600_000, 1000);
        try (ShmTestBed bed = new ShmTestBed(provider, progress); ChildPeer child = new ChildPeer(dir, "AUTO")) {
            long peer = bed.insert(child.address());
            child.expect("peer " + bed.name(), "OK");
            child.send("echo 1");
            ByteBuffer in = ByteBuffer.allocateDirect(16);
            bed.post(() -> bed.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r"), "recv");
            bed.post(() -> bed.ep.send(ShmCrossProcessTest.pattern(16, 3), null, peer, "s"), "send");
            bed.completion(bed.txCq, "send to the running child");
            bed.completion(bed.rxCq, "its echo");
            assertEquals("DONE", child.next());
            try {
                signal(child, "-STOP");
                long start = System.nanoTime();
                Msg dc = new Msg().buffer(ShmCrossProcessTest.pattern(16, 4), null).addr(peer).context("dc");
                bed.post(() -> bed.ep.sendMsg(dc, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "delivery-complete send");
                CqErrEntry e = bed.error(bed.txCq, "the delivery-complete send to the stopped peer");
                long took = System.nanoTime() - start;
                assertEquals("dc", e.context());
                assertEquals(Errno.ETIMEDOUT, e.err(), "an operation to a stopped peer times out: " + e);
                assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(900), "not before progressTimeoutMillis: " + took / 1_000_000 + " ms");
                assertTrue(took < BOUND_NANOS, "within 5 s: " + took / 1_000_000 + " ms");
                expectError(bed, () -> bed.ep.send(ShmCrossProcessTest.pattern(16, 5), null, peer, "later"), "later",
                        Errno.ETIMEDOUT);
            } finally {
                child.kill(); // SIGKILL ends a stopped process too
            }
        }
    }

    /**
     * The wait is for the stopped peer's answer, not for room in its ring: a
     * {@code FI_MATCH_COMPLETE} send whose record the peer consumed (buffered, no receive posted)
     * and a delivery-complete send behind it. Its ring head shows every record consumed, which
     * counted as progress, so nothing ever timed out (before: pending for good). Now the
     * kernel's word that the process is stopped ({@code /proc/<pid>/stat} state T) for longer
     * than {@code progressTimeoutMillis} fails them with {@code ETIMEDOUT}. While it runs, the
     * peer that only never posts a receive is waited for.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void answersAwaitedFromAStoppedPeerTimeOut(Progress progress) throws Exception {
        ShmProvider provider = new ShmProvider().directory(dir).failureTimes(600_000, 1000);
        try (ShmTestBed bed = new ShmTestBed(provider, progress); ChildPeer child = new ChildPeer(dir, "AUTO")) {
            long peer = bed.insert(child.address());
            child.expect("peer " + bed.name(), "OK");
            Msg match = new Msg().buffer(ShmCrossProcessTest.pattern(64, 1), null).addr(peer).context("mc");
            bed.post(() -> bed.ep.sendMsg(match, Fi.FI_MATCH_COMPLETE | Fi.FI_COMPLETION), "match-complete send");
            // the running child took the record (buffered: it posts no receive): waited for, no error
            long runUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
            CqEntry[] none = {new CqEntry()};
            while (System.nanoTime() < runUntil) {
                assertEquals(-Errno.EAGAIN, bed.txCq.read(none, 1), "a running peer that posts no receive is waited for");
                Thread.sleep(5);
            }
            try {
                // timed from before the signal: the send is pending already, and the progress may see the child
                // stopped long before the `kill` process we spawn has returned (seconds, on a loaded machine)
                long start = System.nanoTime();
                signal(child, "-STOP");
                CqErrEntry e = bed.error(bed.txCq, "the match-complete send to the stopped peer");
                long took = System.nanoTime() - start;
                assertEquals("mc", e.context());
                assertEquals(Errno.ETIMEDOUT, e.err(), "an answer awaited from a stopped peer times out: " + e);
                assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(900), "not before progressTimeoutMillis: " + took / 1_000_000 + " ms");
                assertTrue(took < BOUND_NANOS, "within 5 s: " + took / 1_000_000 + " ms");
                expectError(bed, () -> bed.ep.send(ShmCrossProcessTest.pattern(16, 5), null, peer, "later"), "later",
                        Errno.ETIMEDOUT);
            } finally {
                child.kill(); // SIGKILL ends a stopped process too
            }
        }
    }

    /**
     * Plain 64 KiB sends to a peer stopped with its ring full of our records wait for its room;
     * with the peer stopped past {@code progressTimeoutMillis} they fail with {@code ETIMEDOUT},
     * queued ones included.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void sendsQueuedForAStoppedPeersRoomTimeOut(Progress progress) throws Exception {
        ShmProvider provider = new ShmProvider().directory(dir).failureTimes(600_000, 1000);
        try (ShmTestBed bed = new ShmTestBed(provider, progress); ChildPeer child = new ChildPeer(dir, "AUTO")) {
            long peer = bed.insert(child.address());
            child.expect("peer " + bed.name(), "OK");
            try {
                signal(child, "-STOP");
                long start = System.nanoTime();
                int posted = 0;
                for (int i = 0; i < 64; i++) {
                    String ctx = "big" + i;
                    int rc = bed.ep.send(ShmCrossProcessTest.pattern(64 << 10, i), null, peer, ctx);
                    if (rc == -Errno.EAGAIN) {
                        break;
                    }
                    assertEquals(0, rc, "send " + i);
                    posted++;
                }
                assertTrue(posted > 20, "more sends than the stopped peer's room: " + posted);
                int timedOut = 0;
                int succeeded = 0;
                CqEntry[] one = {new CqEntry()};
                long deadline = System.nanoTime() + BOUND_NANOS;
                while (timedOut + succeeded < posted) {
                    int rc = bed.txCq.read(one, 1);
                    if (rc == 1) {
                        succeeded++; // published before the ring filled: inject-complete
                    } else if (rc == -Errno.EAVAIL) {
                        CqErrEntry e = new CqErrEntry();
                        assertEquals(1, bed.txCq.readErr(e, 0));
                        assertEquals(Errno.ETIMEDOUT, e.err(), "a send queued for a stopped peer's room: " + e);
                        timedOut++;
                    } else {
                        assertTrue(System.nanoTime() < deadline, "all " + posted + " sends completed within 5 s: "
                                + succeeded + " succeeded, " + timedOut + " timed out");
                        Thread.sleep(1);
                    }
                }
                assertTrue(timedOut > 0, "the queued sends timed out");
                assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(900), "not before progressTimeoutMillis");
            } finally {
                child.kill();
            }
        }
    }

    private static void signal(ChildPeer child, String sig) throws Exception {
        Process kill = new ProcessBuilder("kill", sig, Long.toString(child.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill " + sig);
        // the signal is delivered asynchronously: wait until every thread of the child is stopped
        long deadline = System.nanoTime() + BOUND_NANOS;
        while (!allStopped(child.pid())) {
            assertTrue(System.nanoTime() < deadline, "the child stopped within 5 s");
            Thread.onSpinWait();
        }
    }

    /** Whether every thread of {@code pid} is in state T (stopped), read from /proc. */
    private static boolean allStopped(long pid) throws IOException {
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException e) {
                    continue; // a thread that ended meanwhile
                }
                char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'T' && state != 't') {
                    return false;
                }
            }
        }
        return true;
    }

    private static void expectReset(ShmTestBed bed, java.util.function.IntSupplier post, String ctx) {
        expectError(bed, post, ctx, Errno.ECONNRESET);
    }

    /** The post is accepted and completes with an error {@code err} (never a success), bounded. */
    private static void expectError(ShmTestBed bed, java.util.function.IntSupplier post, String ctx, int err) {
        bed.post(post, ctx);
        CqErrEntry e = bed.error(bed.txCq, "'" + ctx + "' towards the failed peer");
        assertEquals(ctx, e.context());
        assertEquals(err, e.err(), "'" + ctx + "': " + e);
    }
}
