package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.CqWaitCond;
import io.jofi.Progress;
import io.jofi.WaitObj;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The waker's path costs no redundant wake-up: a completion that auto progress publishes
 * while a reader blocks in {@code sread} reaches the reader without waking the progress
 * engine's own I/O wait (its {@code Selector.wakeup()}, a system call and an extra pass per
 * message), and a reader sleeping in a manual engine is woken once per burst, not once per
 * completion. The engine is a real {@link ProgressEngine} with a step that sleeps in a
 * semaphore (its I/O wait) and counts the wake-ups it is given.
 */
@Timeout(60)
class WaitWakeupCountTest {

    private static final int MESSAGES = 200;

    /** A progress step: runs what the test hands it, else sleeps up to 1 ms in its "I/O wait". */
    private static final class CountingStep implements ProgressEngine.Step {
        final ConcurrentLinkedQueue<Runnable> work = new ConcurrentLinkedQueue<>();
        final Semaphore io = new Semaphore(0);
        final AtomicInteger wakeups = new AtomicInteger();

        @Override
        public int progress(long timeoutNanos) {
            Runnable r = work.poll();
            if (r != null) {
                r.run();
                return 1;
            }
            if (timeoutNanos > 0) {
                try {
                    io.tryAcquire(Math.min(timeoutNanos, TimeUnit.MILLISECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 0;
        }

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
            io.release();
        }
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD"})
    void autoProgressDeliversToABlockedReaderWithoutWakingItsOwnIoWait(WaitObj w) throws Exception {
        CountingStep step = new CountingStep();
        ProgressEngine engine = ProgressEngine.start(Progress.AUTO, "wake-count-auto", step);
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(64).format(CqFormat.CONTEXT).waitObj(w), null);
        cq.attachProgress(engine);
        try {
            CqEntry[] entry = {new CqEntry()};
            for (int i = 0; i < MESSAGES; i++) {
                CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> cq.sread(entry, 1, 0, 10_000));
                awaitWaiting(cq);
                step.work.add(() -> {
                    cq.reserve();
                    cq.complete(null, 0, 0, null, 0, 0, 0, 0);
                });
                assertEquals(1, read.get(10, TimeUnit.SECONDS), "the reader gets the completion");
            }
            assertEquals(0, step.wakeups.get(),
                    "auto progress woke its own I/O wait for completions it published itself");
        } finally {
            cq.detachProgress(engine);
            cq.close();
            engine.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD"})
    void aReaderSleepingInAManualEngineIsWokenOncePerBurst(WaitObj w) throws Exception {
        CountingStep step = new CountingStep();
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "wake-count-manual", step);
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(64).format(CqFormat.CONTEXT).waitObj(w)
                .waitCond(CqWaitCond.THRESHOLD), null);
        cq.attachProgress(engine);
        try {
            CqEntry[] entries = new CqEntry[8];
            for (int i = 0; i < entries.length; i++) {
                entries[i] = new CqEntry();
            }
            int bursts = 50;
            for (int i = 0; i < bursts; i++) {
                CompletableFuture<Integer> read = CompletableFuture.supplyAsync(
                        () -> cq.sread(entries, entries.length, 4, 10_000));
                awaitWaiting(cq);
                for (int k = 0; k < 4; k++) {
                    cq.reserve();
                    cq.completeDeferred(null, 0, 0, null, 0, 0, 0, 0);
                }
                cq.wakeReaders();
                assertEquals(4, read.get(10, TimeUnit.SECONDS), "the reader gets the whole burst");
            }
            assertTrue(step.wakeups.get() <= bursts,
                    "a reader sleeping in its engine was woken " + step.wakeups.get() + " times for " + bursts + " bursts");
        } finally {
            cq.detachProgress(engine);
            cq.close();
            engine.close();
        }
    }

    /** Until a reader is inside sread and, after its spin, asleep (the waiter count says it is there). */
    private static void awaitWaiting(UtilCompletionQueue cq) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cq.waitSupport().waiters() == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the reader did not start waiting");
            }
            Thread.onSpinWait();
        }
        Thread.sleep(1); // past any spin: the reader sleeps
    }
}
