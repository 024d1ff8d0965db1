package io.jofi.spi.util.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JOFI's flight-recorder events: a recording that takes them finds each with its fields; a
 * recording that does not (or none) costs a commit no allocation.
 */
class FabricEventsTest {
    @TempDir
    Path dir;

    @Test
    void aRecordingFindsEachEventWithItsFields() throws Exception {
        Path file = dir.resolve("events.jfr");
        try (Recording r = new Recording()) {
            r.enable("io.jofi.ConnectionEstablished");
            r.enable("io.jofi.ConnectionRefused");
            r.enable("io.jofi.ConnectionLost");
            r.enable("io.jofi.PeerFailed");
            r.enable("io.jofi.QueueOverrun");
            r.start();
            FabricEvents.connectionEstablished("tcp", "tcp/RxmEndpoint 1", "127.0.0.1:1", "127.0.0.1:2");
            FabricEvents.connectionRefused("tcp", "tcp/RxmEndpoint 1", "127.0.0.1:1", "127.0.0.1:3", 111, "refused");
            FabricEvents.connectionLost("shm", "shm/ShmEndpoint 2", "a", "b", 104, "the peer died");
            FabricEvents.peerFailed("shm", "shm/ShmEndpoint 2", "b", 104);
            FabricEvents.queueOverrun("tcp/CompletionQueue 3", 64);
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("io.jofi.")).toList();
        assertEquals(5, events.size(), events.toString());
        RecordedEvent lost = one(events, "io.jofi.ConnectionLost");
        assertEquals("shm", lost.getString("provider"));
        assertEquals("shm/ShmEndpoint 2", lost.getString("owner"));
        assertEquals("b", lost.getString("peer"));
        assertEquals(104, lost.getInt("errno"));
        assertEquals("the peer died", lost.getString("reason"));
        assertEquals(111, one(events, "io.jofi.ConnectionRefused").getInt("errno"));
        assertEquals("127.0.0.1:2", one(events, "io.jofi.ConnectionEstablished").getString("peer"));
        assertEquals(104, one(events, "io.jofi.PeerFailed").getInt("errno"));
        assertEquals(64, one(events, "io.jofi.QueueOverrun").getLong("capacity"));
    }

    @Test
    void withoutARecordingACommitAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);
        Object local = new Object();
        Object peer = new Object();
        for (int i = 0; i < 20_000; i++) {
            commitAll(local, peer); // warm-up
        }
        long tid = Thread.currentThread().getId();
        long before = bean.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 100_000; i++) {
            commitAll(local, peer);
        }
        long allocated = bean.getThreadAllocatedBytes(tid) - before;
        // an object per commit would be at least 16 B x 500 000; a few KiB come now and then from
        // the JIT compiling the loop late on a loaded machine (1208 B seen once): less than one
        // byte per commit means none
        assertTrue(allocated < 500_000, allocated + " bytes allocated by 500 000 commits without a recording");
    }

    private static void commitAll(Object local, Object peer) {
        FabricEvents.connectionEstablished("tcp", "o", local, peer);
        FabricEvents.connectionRefused("tcp", "o", local, peer, 111, "r");
        FabricEvents.connectionLost("tcp", "o", local, peer, 104, "r");
        FabricEvents.peerFailed("tcp", "o", peer, 104);
        FabricEvents.queueOverrun("q", 8);
    }

    private static RecordedEvent one(List<RecordedEvent> events, String name) {
        List<RecordedEvent> found = events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
        assertEquals(1, found.size(), name + " in " + events);
        return found.get(0);
    }
}
