package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqAttr;
import io.jofi.EqAttr;
import io.jofi.Errno;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileReader;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The util objects' live counters count what happened to them, are in this JVM's counters
 * file and on the platform MBean server while the object lives, and go when it is closed.
 */
class UtilCountersTest {
    static long value(CounterGroup group, String name) {
        return group.counters().stream().filter(c -> c.label().equals(group.owner() + ": " + name)).findFirst()
                .map(StatsCounter::get).orElseThrow(() -> new AssertionError("no counter " + name + " in " + group.counters()));
    }

    @Test
    void aReceiveQueueCountsUnexpectedMessagesWithTheirHighWaterMark() throws Exception {
        try (ReceiveFixture f = new ReceiveFixture()) {
            CounterGroup g = f.rq.counters();
            assertTrue(g.owner().startsWith("util/ReceiveFixture "), g.owner()); // the class that made it
            f.arrive(ReceiveFixture.bytes(10, 1));
            f.arrive(ReceiveFixture.bytes(20, 2));
            f.post(f.recv(ByteBuffer.allocate(64), "a")); // takes the first
            f.arrive(ReceiveFixture.bytes(5, 3));
            assertEquals(3, value(g, "unexpected messages queued"));
            assertEquals(35, value(g, "unexpected bytes queued"));
            assertEquals(2, value(g, "unexpected messages high-water mark"));
            assertEquals(30, value(g, "unexpected bytes high-water mark"));
        }
    }

    /** What a receive side completes is counted where it is told to count: messages and bytes, untagged and tagged. */
    @Test
    void aReceiveCompletionCountsTheMessagesAndBytesItReceivedByKind() throws Exception {
        try (ReceiveFixture f = new ReceiveFixture()) {
            CounterGroup g = new CounterGroup(StatsFile.process(), io.jofi.spi.util.stats.StatsFileDescriptor.TYPE_OTHER,
                    "receiver");
            try {
                f.rq.completion().countIn(g);
                f.arrive(ReceiveFixture.bytes(10, 1));
                f.post(f.recv(ByteBuffer.allocate(64), "a"));
                f.post(f.recv(ByteBuffer.allocate(64), "b"));
                f.arrive(ReceiveFixture.bytes(20, 2));
                f.post(f.trecv(ByteBuffer.allocate(64), "t", 7, 0));
                f.arrive(true, 7, ReceiveFixture.bytes(5, 3), io.jofi.Fi.FI_ADDR_NOTAVAIL);
                assertEquals(2, value(g, "messages received"));
                assertEquals(30, value(g, "bytes received"));
                assertEquals(1, value(g, "tagged messages received"));
                assertEquals(5, value(g, "tagged bytes received"));
            } finally {
                g.close();
            }
        }
    }

    /**
     * A CQ's writers are the posting threads and progress threads of every endpoint bound to
     * it, at once: its "completions written" is exact all the same (the ring's own claim
     * counts them), and so are its error counts; its depth high-water mark never passes the
     * capacity.
     */
    @Test
    void aCompletionQueueWrittenByManyThreadsCountsEveryEntry() throws Exception {
        int threads = 4;
        int each = 25_000;
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(256), "cq");
        CounterGroup g = cq.counters();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread reader = new Thread(() -> {
            io.jofi.CqEntry[] entries = new io.jofi.CqEntry[16];
            for (int i = 0; i < entries.length; i++) {
                entries[i] = new io.jofi.CqEntry();
            }
            io.jofi.CqErrEntry err = new io.jofi.CqErrEntry();
            while (!done.get() || cq.read(entries, 0) != -Errno.EAGAIN) {
                if (cq.read(entries, entries.length) == -Errno.EAVAIL) {
                    cq.readErr(err, 0);
                }
            }
        });
        reader.start();
        java.util.List<Thread> writers = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    while (cq.reserve() != 0) {
                        Thread.yield(); // 2 cores, 5 threads: let the reader run
                    }
                    if (i % 100 == 0) {
                        cq.completeError("e", 0, 0, null, 0, 0, 0, 0, Errno.ECANCELED, 0, null, 0, 0);
                    } else {
                        cq.complete("c", 0, 0, null, 0, 0, 0, 0);
                    }
                }
            });
            writers.add(w);
            w.start();
        }
        for (Thread w : writers) {
            w.join();
        }
        done.set(true);
        reader.join();
        assertEquals((long) threads * each, value(g, "completions written"), "entries of " + threads + " writers");
        assertEquals((long) threads * each / 100, value(g, "errors canceled"));
        assertTrue(value(g, "depth high-water mark") <= 256, "never above the capacity");
        cq.close();
    }

    @Test
    void anUnknownSourceIsCountedAsSuchNotAsAnotherError() throws Exception {
        // FI_SOURCE_ERR's EADDRNOTAVAIL: an RDM server's first message from each new client
        // (./jofi pingpong -e rdm's server showed "errors other 1" for it)
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(4), "cq");
        CounterGroup g = cq.counters();
        assertEquals(0, cq.reserve());
        cq.completeError("a", 0, 0, null, 0, 0, 0, 0, Errno.EADDRNOTAVAIL, 0, null, 0, 0);
        assertEquals(1, value(g, "errors unknown source"));
        assertEquals(0, value(g, "errors other"));
        assertEquals(0, cq.reserve());
        cq.completeError("b", 0, 0, null, 0, 0, 0, 0, Errno.EINVAL, 0, null, 0, 0);
        assertEquals(1, value(g, "errors other"));
        cq.close();
    }

    @Test
    void aCompletionQueueCountsEntriesErrorsAndItsOverrun() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(2), "cq");
        CounterGroup g = cq.counters();
        ObjectName name = new ObjectName("io.jofi:type=CompletionQueue,provider=util,name="
                + g.owner().substring("util/".length()));
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        assertEquals(0, cq.reserve());
        cq.complete("a", 0, 0, null, 0, 0, 0, 0);
        assertEquals(0, cq.reserve());
        cq.completeError("b", 0, 0, null, 0, 0, 0, 0, Errno.ECANCELED, 0, null, 0, 0);
        assertFalse(cq.completeUnsolicited("c", 0, 0, null, 0, 0, 0, 0)); // full: overrun
        assertEquals(2, value(g, "completions written"));
        assertEquals(1, value(g, "errors canceled"));
        assertEquals(2, value(g, "depth high-water mark"));
        assertEquals(1, value(g, "overruns"));
        assertEquals(2L, server.getAttribute(name, "completions written"), "the same value through JMX");
        assertTrue(StatsFileReader.read(StatsFile.process().path()).counters().stream()
                .anyMatch(c -> c.label().equals(g.owner() + ": overruns") && c.value() == 1), "in the file");
        cq.close();
        assertFalse(server.isRegistered(name), "the MBean goes with the queue");
        assertTrue(g.counters().isEmpty());
        Set<String> left = Set.copyOf(StatsFileReader.read(StatsFile.process().path()).counters().stream()
                .map(StatsFileReader.CounterValue::label).toList());
        assertFalse(left.contains(g.owner() + ": overruns"), "freed in the file");
    }

    @Test
    void anEventQueueCountsEventsAndItsOverrun() throws Exception {
        UtilEventQueue eq = new UtilEventQueue(new EqAttr().size(1), "eq");
        try {
            assertEquals(1, eq.post(1, null, null, 0, null, null, 0));
            assertEquals(-Errno.EOVERRUN, eq.postError(null, null, 0, Errno.ECONNREFUSED, 0, null, 0));
            CounterGroup g = eq.counters();
            assertEquals(1, value(g, "events written"));
            assertEquals(1, value(g, "depth high-water mark"));
            assertEquals(1, value(g, "overruns"));
            assertEquals(0, value(g, "errors connection"));
        } finally {
            eq.close();
        }
    }
}
