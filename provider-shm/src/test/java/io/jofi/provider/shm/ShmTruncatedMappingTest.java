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
import io.jofi.spi.util.ProgressEngine;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Truncated files (docs/SHM-LAYOUT.md "Bad input, faults, security"): an endpoint's region file truncated while mapped (another process of the
 * same user may do that) made its next ring access fault; the JVM raised an InternalError that
 * killed the AUTO progress thread silently, or came out of {@code cq.read} in MANUAL progress.
 * Now the fault fails the endpoint whose mapping it was ({@code EIO} for its posted receive,
 * an {@code EIO} event on its EQ), no data-path call throws, and the domain's progress goes
 * on: the victim still sends to a well-behaved peer.
 */
@Timeout(120)
class ShmTruncatedMappingTest {

    // in MANUAL the faulting access runs in the application's thread inside cq.read: every
    // call is guarded (ShmTruncatedPeerTest.guarded) so that a fault raised late, after the
    // call returned, fails the test
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void ownRegionTruncatedFailsTheEndpointNotTheProgress(Progress mode) throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmtrunc-");
        EventQueue[] eq = new EventQueue[1];
        try (ShmTestBed victim = new ShmTestBed(dir, mode, 0, bed -> {
            eq[0] = bed.fabric.openEq(new EqAttr(), null);
            bed.ep.bind(eq[0], 0);
        }); ShmTestBed friend = new ShmTestBed(dir, Progress.AUTO)) {
            try {
                ByteBuffer pending = ByteBuffer.allocateDirect(64);
                victim.post(() -> victim.ep.recv(pending, null, Fi.FI_ADDR_UNSPEC, "pending"), "recv");
                String name = victim.name().substring(ShmNames.SCHEME.length());
                Path region = dir.resolve("jofi-" + name + ".region");
                try (FileChannel ch = FileChannel.open(region, StandardOpenOption.WRITE)) {
                    ch.truncate(0); // as `truncate -s 0` from another process would
                }
                try (DoorbellRinger bell = DoorbellRinger.connect(dir.resolve("jofi-" + name + ".bell"))) {
                    bell.ring(); // make a sleeping victim look at its ring now
                }
                CqEntry[] one = {new CqEntry()};
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                int rc;
                while ((rc = ShmTruncatedPeerTest.guarded(() -> victim.rxCq.read(one, 1), "cq.read")) != -Errno.EAVAIL) {
                    assertTrue(rc == -Errno.EAGAIN, "read answered " + rc);
                    if (System.nanoTime() > deadline) {
                        fail("the truncated region was not reported within 10 s");
                    }
                    Thread.onSpinWait();
                }
                CqErrEntry e = new CqErrEntry();
                assertEquals(1, ShmTruncatedPeerTest.guarded(() -> victim.rxCq.readErr(e, 0), "readErr"));
                assertEquals(Errno.EIO, e.err());
                EqErrEntry ee = new EqErrEntry();
                assertEquals(1, eq[0].readErr(ee, 0));
                assertEquals(Errno.EIO, ee.err());
                ProgressEngine engine = ((ShmDomain) victim.domain).engine();
                assertTrue(engine.isRunning(), "progress goes on: " + engine.failure());
                if (mode == Progress.AUTO) {
                    assertTrue(engine.thread().isAlive(), "the AUTO progress thread is alive");
                }
                // the victim's process still works with a well-behaved peer
                long toFriend = victim.insert(friend.ep.getName());
                ByteBuffer in = ByteBuffer.allocateDirect(64);
                friend.post(() -> friend.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "f"), "friend recv");
                victim.post(() -> ShmTruncatedPeerTest.guarded(
                        () -> victim.ep.send(ShmCrossProcessTest.pattern(64, 9), null, toFriend, "v"), "send"), "send");
                assertEquals("f", friend.completion(friend.rxCq, "the victim's message").context());
                victim.completion(victim.txCq, "the victim's send");
                assertEquals(9, in.get(0));
                assertEquals(-Errno.EIO, victim.ep.recv(ByteBuffer.allocateDirect(8), null, Fi.FI_ADDR_UNSPEC, "x"));
            } finally {
                victim.ep.close();
                eq[0].close();
            }
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }
}
