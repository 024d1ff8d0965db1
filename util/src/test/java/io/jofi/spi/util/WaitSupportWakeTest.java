package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.WaitObj;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A reader parked in {@code sread} is woken once per message: it blocks (a voluntary context
 * switch in {@code /proc/thread-self/status}, a count the machine's load does not change) once to
 * wait for each message and not again on its way out — a producer that still held a lock the
 * woken reader needs (to leave the waiter registry) made it block a second time for most messages.
 */
@Timeout(120)
class WaitSupportWakeTest {

    private static final int MESSAGES = 200;

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD"})
    void aParkedReaderIsWokenOncePerMessage(WaitObj w) throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(64).format(CqFormat.CONTEXT).waitObj(w), null);
        try {
            long[] switches = new long[2];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger taken = new AtomicInteger();
            Thread reader = new Thread(() -> {
                try {
                    CqEntry[] entry = {new CqEntry()};
                    switches[0] = voluntarySwitches();
                    for (int i = 0; i < MESSAGES; i++) {
                        assertEquals(1, cq.sread(entry, 1, 0, 10_000), "message " + i);
                        assertEquals(i, entry[0].context());
                        taken.set(i + 1);
                    }
                    switches[1] = voluntarySwitches();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "wake-once-reader");
            reader.start();
            for (int i = 0; i < MESSAGES && failure.get() == null; i++) {
                awaitParked(reader, cq.waitSupport(), taken, i);
                cq.reserve();
                cq.complete(i, 0, 0, null, 0, 0, 0, 0);
            }
            reader.join(TimeUnit.SECONDS.toMillis(30));
            if (failure.get() != null) {
                throw new AssertionError("reader failed", failure.get());
            }
            long blocked = switches[1] - switches[0];
            assertTrue(blocked >= MESSAGES, "the reader slept for each message: " + blocked + " for " + MESSAGES);
            assertTrue(blocked < MESSAGES * 13L / 10, "the reader blocked " + blocked + " times for "
                    + MESSAGES + " messages (once to wait for each, nothing more expected)");
        } finally {
            cq.close();
        }
    }

    /** Until {@code reader} took {@code messages} and is parked in {@code ws} again (past any spin: asleep). */
    static void awaitParked(Thread reader, WaitSupport ws, AtomicInteger taken, int messages) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(taken.get() == messages && LockSupport.getBlocker(reader) == ws
                && reader.getState() == Thread.State.TIMED_WAITING)) {
            if (System.nanoTime() > deadline || !reader.isAlive()) {
                throw new AssertionError("the reader did not park");
            }
            Thread.sleep(0, 100_000);
        }
    }

    /** The calling thread's voluntary context switches so far. */
    static long voluntarySwitches() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("no voluntary_ctxt_switches in /proc/thread-self/status");
    }
}
