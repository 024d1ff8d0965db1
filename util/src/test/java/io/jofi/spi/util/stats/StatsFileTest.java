package io.jofi.spi.util.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The counters file: what a writer allocates, updates and frees is what a reader of the file
 * sees; files of dead processes are removed, those of live ones kept.
 */
class StatsFileTest {
    @TempDir
    Path dir;

    private static long self() {
        return ProcessHandle.current().pid();
    }

    private static long selfStart() {
        return StatsDirectory.startMillis(ProcessHandle.current());
    }

    @Test
    void aReaderSeesLabelsAndValues() throws Exception {
        StatsFile file = StatsFile.create(dir, self(), selfStart(), 16);
        try (CounterGroup g = new CounterGroup(file, StatsFileDescriptor.TYPE_ENDPOINT, "tcp/ep 1")) {
            StatsCounter sends = g.counter("sends posted");
            StatsCounter hwm = g.counter("high-water mark");
            for (int i = 0; i < 42; i++) {
                sends.increment();
            }
            sends.add(8);
            hwm.max(7);
            hwm.max(3);
            StatsFileReader.Snapshot s = StatsFileReader.read(file.path());
            assertEquals(self(), s.pid());
            assertEquals(List.of(
                    new StatsFileReader.CounterValue(0, StatsFileDescriptor.TYPE_ENDPOINT, "tcp/ep 1: sends posted", 50),
                    new StatsFileReader.CounterValue(1, StatsFileDescriptor.TYPE_ENDPOINT, "tcp/ep 1: high-water mark", 7)),
                    s.counters());
            assertEquals(50, sends.get());
        } finally {
            file.delete();
        }
    }

    /**
     * A group's ends, published once known: a reader sees them as its owner's description (not
     * a counter), the latest one only, host and port without a stray '/', IPv6 in brackets;
     * closing the group takes the description away too.
     */
    @Test
    void aReaderSeesTheOwnersLocalAndPeerAddress() throws Exception {
        StatsFile file = StatsFile.create(dir, self(), selfStart(), 16);
        try {
            CounterGroup g = new CounterGroup(file, StatsFileDescriptor.TYPE_ENDPOINT, "tcp/ep 1");
            g.counter("sends posted").increment();
            g.describeEnds(new java.net.InetSocketAddress("127.0.0.1", 9228), null, 0);
            StatsFileReader.Snapshot s = StatsFileReader.read(file.path());
            assertEquals(java.util.Map.of("tcp/ep 1", "local 127.0.0.1:9228"), s.descriptions());
            assertEquals(List.of("tcp/ep 1: sends posted"), s.counters().stream().map(StatsFileReader.CounterValue::label)
                    .toList(), "a description is no counter");
            g.describeEnds(new java.net.InetSocketAddress("127.0.0.1", 9228), new java.net.InetSocketAddress("::1", 41234), 1);
            assertEquals(java.util.Map.of("tcp/ep 1", "local 127.0.0.1:9228 peer [0:0:0:0:0:0:0:1]:41234"),
                    StatsFileReader.read(file.path()).descriptions());
            g.describeEnds("fi_shm://a", "fi_shm://b", 2);
            assertEquals(java.util.Map.of("tcp/ep 1", "local fi_shm://a peer fi_shm://b and others"),
                    StatsFileReader.read(file.path()).descriptions());
            g.close();
            g.describeEnds("fi_shm://a", null, 0); // a late report after close: not published
            assertTrue(StatsFileReader.read(file.path()).descriptions().isEmpty());
            assertTrue(StatsFileReader.read(file.path()).counters().isEmpty());
        } finally {
            file.delete();
        }
    }

    /** A tool's private objects (the JIT warm-up's) are labelled as such, also those its threads make. */
    @Test
    void groupsMadeInAMarkedScopeAreLabelledWithTheMark() throws Exception {
        StatsFile file = StatsFile.create(dir, self(), selfStart(), 16);
        try {
            String[] made = new String[4];
            CounterGroup.marked("warm-up", () -> {
                made[0] = new CounterGroup(file, StatsFileDescriptor.TYPE_ENDPOINT, "tcp/ep 1").owner();
                made[1] = new CounterGroup(file, StatsFileDescriptor.TYPE_PROVIDER, "tcp").owner();
                Thread t = new Thread(() -> made[2] = new CounterGroup(file, StatsFileDescriptor.TYPE_COMPLETION_QUEUE,
                        "tcp/cq 2").owner());
                t.start();
                try {
                    t.join();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            made[3] = new CounterGroup(file, StatsFileDescriptor.TYPE_ENDPOINT, "tcp/ep 3").owner();
            assertEquals(List.of("tcp/ep 1 (warm-up)", "tcp", "tcp/cq 2 (warm-up)", "tcp/ep 3"), List.of(made));
        } finally {
            file.delete();
        }
    }

    @Test
    void aFreedCounterDisappearsAndItsRecordIsReusedOnlyLater() throws Exception {
        StatsFile file = StatsFile.create(dir, self(), selfStart(), 2);
        try {
            StatsCounter a = file.allocate(StatsFileDescriptor.TYPE_OTHER, "a");
            StatsCounter b = file.allocate(StatsFileDescriptor.TYPE_OTHER, "b");
            a.increment();
            file.free(a);
            file.free(a); // twice: nothing more
            assertEquals(List.of("b"), StatsFileReader.read(file.path()).counters().stream()
                    .map(StatsFileReader.CounterValue::label).toList());
            StatsCounter c = file.allocate(StatsFileDescriptor.TYPE_OTHER, "c");
            assertEquals(-1, c.id(), "full until the freed record's reuse delay passed");
            c.increment(); // a counter in no file counts, unseen
            assertEquals(1, c.get());
            Thread.sleep(StatsFile.REUSE_DELAY_NANOS / 1_000_000 + 50);
            StatsCounter d = file.allocate(StatsFileDescriptor.TYPE_OTHER, "d");
            assertEquals(a.id(), d.id());
            assertEquals(0, d.get(), "a reused record starts at 0");
            b.increment();
        } finally {
            file.delete();
        }
    }

    @Test
    void aLongLabelIsCutOnACharacterBoundary() throws Exception {
        StatsFile file = StatsFile.create(dir, self(), selfStart(), 1);
        try {
            file.allocate(StatsFileDescriptor.TYPE_OTHER, "é".repeat(100));
            String label = StatsFileReader.read(file.path()).counters().get(0).label();
            assertEquals("é".repeat(StatsFileDescriptor.MAX_LABEL_LENGTH / 2), label);
        } finally {
            file.delete();
        }
    }

    @Test
    void theFileOfADeadProcessIsRemovedALiveOneKept() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadPid = p.pid();
        long deadStart = StatsDirectory.startMillis(p.toHandle());
        p.waitFor();
        StatsFile dead = StatsFile.create(dir, deadPid, deadStart, 4);
        dead.allocate(StatsFileDescriptor.TYPE_OTHER, "left behind");
        // a live pid whose start time is not the file's: the pid was reused, the writer is dead
        StatsFile other = StatsFile.create(dir.resolve("other"), self(), selfStart() - 3_600_000, 4);
        Path reused = dir.resolve(StatsFileDescriptor.fileName(self() + 1_000_000));
        Files.move(other.path(), reused);
        StatsFile live = StatsFile.create(dir, self(), selfStart(), 4);
        try {
            assertEquals(List.of(live.path()), StatsDirectory.live(dir));
            assertFalse(Files.exists(dead.path()));
            assertFalse(Files.exists(reused), "a pid that runs no such process");
            assertTrue(Files.exists(live.path()));
        } finally {
            live.delete();
        }
    }

    @Test
    void aFileOfNoneCountsUnseen() {
        StatsFile none = StatsFile.none();
        StatsCounter c = none.allocate(StatsFileDescriptor.TYPE_OTHER, "x");
        c.increment();
        assertFalse(none.isLive());
        assertEquals(1, c.get());
        none.free(c);
    }
}
