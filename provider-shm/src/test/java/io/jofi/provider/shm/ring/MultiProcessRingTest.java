package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ring, doorbell and liveness across real processes (what it must show: "a multi-process stress test
 * in mvn verify ... every record seen exactly once, in order per producer"; "kill -9 ... is
 * detected"; "Region files of dead processes ... are cleaned at start").
 */
class MultiProcessRingTest {

    static final int PRODUCERS = 3;
    static final int RECORDS = 20_000;

    @TempDir
    Path dir;

    @Test
    void threeProducerProcessesEveryRecordOnceInOrderPerProducer() throws Exception {
        try (ShmRegion region = ShmRegion.create(dir, "stress", new RegionSizes(16 * 1024, 64, 0));
             Doorbell doorbell = Doorbell.bind(region.doorbellPath())) {
            final MpscRing ring = region.ring();
            final long[] next = new long[PRODUCERS];
            final String[] error = new String[1];
            final RecordHandler check = (type, sender, aux, buffer, offset, length) -> {
                if (type != RingChild.TYPE || sender < 0 || sender >= PRODUCERS || length < 16) {
                    error[0] = "bad record type " + type + " sender " + sender + " length " + length;
                    return RecordHandler.BREAK;
                }
                long seq = buffer.getLong(offset + 8);
                if (buffer.getLong(offset) != sender || seq != next[sender]
                        || length != RingChild.payloadLength(seq)) {
                    error[0] = "sender " + sender + ": expected seq " + next[sender] + ", got " + seq
                            + " (length " + length + ")";
                    return RecordHandler.BREAK;
                }
                for (int i = 16; i < length; i++) {
                    if (buffer.get(offset + i) != RingChild.filler(sender, seq, i)) {
                        error[0] = "sender " + sender + " seq " + seq + ": payload byte " + i + " torn";
                        return RecordHandler.BREAK;
                    }
                }
                next[sender]++;
                return RecordHandler.CONTINUE;
            };
            List<ChildJvm> children = new ArrayList<>();
            try {
                for (int p = 0; p < PRODUCERS; p++) {
                    children.add(ChildJvm.start("produce", dir.toString(), "stress", Integer.toString(p),
                            Integer.toString(RECORDS)));
                }
                long total = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ChildJvm.TIMEOUT_SECONDS);
                while (total < (long) PRODUCERS * RECORDS && error[0] == null) {
                    int n = ring.read(check, 256);
                    assertTrue(n >= 0, () -> "read failed: " + ring.failure());
                    total += n;
                    if (n == 0) {
                        if (System.nanoTime() > deadline) {
                            fail("only " + total + " records within " + ChildJvm.TIMEOUT_SECONDS + " s");
                        }
                        // Sleep through the doorbell (bounded): producers ring when they see the flag.
                        if (ring.prepareToSleep()) {
                            doorbell.await(TimeUnit.MILLISECONDS.toNanos(100));
                        }
                        ring.awake();
                    }
                }
                if (error[0] != null) {
                    fail(error[0]);
                }
                for (ChildJvm child : children) {
                    child.await("DONE");
                    assertEquals(0, child.awaitExit());
                }
                for (int p = 0; p < PRODUCERS; p++) {
                    assertEquals(RECORDS, next[p], "records of producer " + p);
                }
                assertEquals(0, ring.read(check, 256), "nothing more");
                assertEquals(ring.tail(), ring.head());
            } finally {
                for (ChildJvm child : children) {
                    child.close();
                }
            }
        }
    }

    @Test
    void sleepingConsumerInAnotherProcessIsWokenByTheDoorbell() throws Exception {
        try (ChildJvm child = ChildJvm.start("sleep", dir.toString(), "sleeper")) {
            child.await("READY");
            try (ShmRegion region = ShmRegion.map(dir, "sleeper");
                 DoorbellRinger bell = DoorbellRinger.connect(region.doorbellPath())) {
                MpscRing ring = region.ring();
                child.await("SLEEPING"); // past its re-check of the ring: it sleeps or is about to
                assertTrue(ring.isConsumerSleeping());
                int index = ring.claim(1, 0, 0, 8);
                ring.buffer().putLong(index + RingDescriptor.HEADER_LENGTH, 4242L);
                assertTrue(ring.publish(index), "the producer sees the sleeping flag");
                assertEquals(0, bell.ring());
                // our ring, and possibly one more for our new connection (an accept counts as a
                // ring: DoorbellRinger, docs/SHM-LAYOUT.md "Blocking waits across processes"), never more
                String got = child.await("GOT");
                assertTrue(got.equals("GOT 4242 wakeups=1") || got.equals("GOT 4242 wakeups=2"), got);
                assertEquals(0, child.awaitExit());
            }
        }
    }

    @Test
    void killedOwnerIsDetectedAndItsRegionCleanedByTheJanitor() throws Exception {
        Path file = ShmRegion.regionPath(dir, "victim");
        try (ChildJvm child = ChildJvm.start("own", dir.toString(), "victim")) {
            long pid = Long.parseLong(child.await("READY ").substring(6));
            try (ShmRegion alive = ShmRegion.map(dir, "victim")) {
                assertEquals(pid, alive.ownerPid());
                assertTrue(alive.isOwnerAlive());
                assertEquals(0, RegionJanitor.clean(dir), "a live owner's region stays");
                child.kill(); // kill -9
                assertFalse(alive.isOwnerAlive(), "a mapped peer learns its owner died");
            }
        }
        assertTrue(Files.exists(file), "kill -9 left the file behind");
        assertTrue(Files.exists(ShmRegion.doorbellPath(dir, "victim")), "and the doorbell socket");
        RegionRefusedException e = org.junit.jupiter.api.Assertions.assertThrows(RegionRefusedException.class,
                () -> ShmRegion.map(dir, "victim"));
        assertEquals(RegionRefusedException.Reason.OWNER_DEAD, e.reason());
        try (ShmRegion mine = ShmRegion.create(dir, "survivor", ShmRegionTest.SMALL)) {
            assertEquals(1, RegionJanitor.clean(dir));
            assertFalse(Files.exists(file));
            assertFalse(Files.exists(ShmRegion.doorbellPath(dir, "victim")));
            assertTrue(Files.exists(mine.path()), "the janitor leaves live regions alone");
        }
    }

    @Test
    void producerKilledBetweenClaimAndPublishIsSkippedOnceItIsDead() throws Exception {
        try (ShmRegion region = ShmRegion.create(dir, "stall", ShmRegionTest.SMALL);
             ShmRegion peer = ShmRegion.map(dir, "stall");
             ChildJvm child = ChildJvm.start("claim", dir.toString(), "stall")) {
            MpscRing ring = region.ring();
            long childPid = child.process.pid();
            long childStart = ProcessLiveness.startTime(childPid);
            List<Integer> asked = new ArrayList<>();
            ring.stallTimeoutNanos(TimeUnit.MILLISECONDS.toNanos(1));
            ring.senderLiveness(sender -> {
                asked.add(sender);
                return sender != childPid || ProcessLiveness.isAlive(childPid, childStart);
            });
            assertEquals("CLAIMED 0", child.await("CLAIMED"));
            int index = peer.ring().claim(RingChild.TYPE, 1, 0, 8);
            peer.ring().buffer().putLong(index + RingDescriptor.HEADER_LENGTH, 99L);
            peer.ring().publish(index);
            long[] got = {0};
            RecordHandler handler = (type, sender, aux, buffer, offset, length) -> {
                got[0] = buffer.getLong(offset);
                return RecordHandler.CONTINUE;
            };
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ChildJvm.TIMEOUT_SECONDS);
            while (asked.isEmpty()) {
                assertEquals(0, ring.read(handler, 10), "the live producer's claim blocks the record behind it");
                assertTrue(System.nanoTime() < deadline, "the stalled claim was never put to the liveness");
                Thread.sleep(2);
            }
            assertEquals((int) childPid, asked.get(0), "the claim names its producer");
            assertEquals(0, ring.read(handler, 10), "still alive: still waiting");
            child.kill();
            int n;
            while ((n = ring.read(handler, 10)) == 0) {
                assertTrue(System.nanoTime() < deadline, "the dead producer's claim was never skipped");
                Thread.sleep(2);
            }
            assertEquals(1, n);
            assertEquals(99L, got[0]);
            assertEquals(1, ring.abandonedClaims());
            assertEquals(ring.tail(), ring.head());
        }
    }
}
