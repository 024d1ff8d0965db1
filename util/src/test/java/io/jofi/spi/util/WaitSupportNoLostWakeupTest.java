package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.WaitObj;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wait/wake pair loses no wake-up: readers blocked in {@code sread} without a timeout on one
 * CQ, producers publishing in small bursts with pauses that let them fall asleep (and without
 * pauses, into the window between a reader's registration and its park). Every published
 * completion must be taken; a wake-up lost leaves every reader parked for good with completions
 * in the queue, which the watchdog reports when nothing is taken for {@value #STALL_MS} ms.
 * Six readers on one queue take more than one segment of {@link ParkedWaiters}' slots.
 */
@Timeout(300)
class WaitSupportNoLostWakeupTest {

    private static final long STALL_MS = 3_000;

    @Test
    void oneReaderOneProducer() throws Exception {
        run(1, 1, 30_000);
    }

    @Test
    void sixReadersTwoProducers() throws Exception {
        run(6, 2, 30_000);
    }

    @Test
    @Tag("soak")
    void soak() throws Exception {
        for (int round = 0; round < 20; round++) {
            run(1, 1, 200_000);
            run(6, 2, 200_000);
        }
    }

    private static void run(int readers, int producers, int messages) throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(
                new CqAttr().size(1024).format(CqFormat.CONTEXT).waitObj(WaitObj.UNSPEC), null);
        AtomicLong published = new AtomicLong();
        AtomicLong taken = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int r = 0; r < readers; r++) {
                threads.add(new Thread(() -> {
                    CqEntry[] entry = {new CqEntry()};
                    while (true) {
                        int n = cq.sread(entry, 1, 0, -1);
                        if (n == 1) {
                            taken.incrementAndGet();
                        } else if (stop.get()) {
                            return; // the queue closed at the end (-EAGAIN or -EBADF)
                        } else {
                            failure.compareAndSet(null, new AssertionError("sread answered " + n));
                            return;
                        }
                    }
                }, "no-lost-wakeup-reader-" + r));
            }
            int share = messages / producers;
            for (int p = 0; p < producers; p++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    int sent = 0;
                    while (sent < share && !stop.get()) {
                        int burst = Math.min(share - sent, 1 + random.nextInt(3));
                        for (int k = 0; k < burst; k++) {
                            if (!publish(cq, published, taken, stop)) {
                                return;
                            }
                        }
                        sent += burst;
                        switch (random.nextInt(4)) {
                            case 0 -> LockSupport.parkNanos(random.nextInt(50_000)); // readers fall asleep
                            case 1 -> Thread.yield();
                            default -> {
                                // straight on: a reader between its registration and its park
                            }
                        }
                    }
                }, "no-lost-wakeup-producer-" + p));
            }
            threads.forEach(Thread::start);
            long total = (long) share * producers;
            long last = -1;
            long lastChange = System.nanoTime();
            while (taken.get() < total && failure.get() == null) {
                long now = taken.get();
                if (now != last) {
                    last = now;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > TimeUnit.MILLISECONDS.toNanos(STALL_MS)) {
                    throw new AssertionError("lost wake-up: " + readers + " readers parked, " + now + " of "
                            + published.get() + " published completions taken, nothing for " + STALL_MS + " ms");
                }
                Thread.sleep(5);
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(total, taken.get());
        } finally {
            stop.set(true);
            cq.close(); // wakes the readers for good: they answer -EAGAIN and end
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
    }

    /**
     * The FD loses no wake-up either: one reader blocks in an application selector on the CQ's FD
     * (no CQ call meanwhile) and then reads until empty; two producers publish in bursts with
     * pauses. The raise that looks at the queue after setting its flag (and stays down when the
     * reader took the entry first) must never leave an unread entry behind a silent FD: the
     * select's timeout of {@value #STALL_MS} ms would report it.
     */
    @Test
    void aReaderOnTheFdMissesNothing() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(
                new CqAttr().size(1024).format(CqFormat.CONTEXT).waitObj(WaitObj.FD), null);
        int producers = 2;
        int share = 100_000;
        AtomicLong published = new AtomicLong();
        AtomicLong taken = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        try (java.nio.channels.Selector selector = java.nio.channels.Selector.open()) {
            java.nio.channels.SelectableChannel fd = ((io.jofi.WaitObject.Fd) cq.getWait()).channel();
            fd.configureBlocking(false);
            fd.register(selector, java.nio.channels.SelectionKey.OP_READ);
            for (int p = 0; p < producers; p++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int sent = 0; sent < share && !stop.get(); sent++) {
                        if (!publish(cq, published, taken, stop)) {
                            return;
                        }
                        switch (random.nextInt(8)) {
                            case 0 -> LockSupport.parkNanos(random.nextInt(20_000)); // the reader falls asleep
                            case 1 -> Thread.yield();
                            default -> {
                                // straight on: a publish while the reader reads
                            }
                        }
                    }
                }, "fd-no-lost-wakeup-producer-" + p));
            }
            threads.forEach(Thread::start);
            CqEntry[] entries = new CqEntry[16];
            for (int i = 0; i < entries.length; i++) {
                entries[i] = new CqEntry();
            }
            long total = (long) share * producers;
            while (taken.get() < total) {
                selector.selectedKeys().clear();
                if (selector.select(STALL_MS) == 0) {
                    throw new AssertionError("lost wake-up: the FD stayed silent for " + STALL_MS + " ms with "
                            + (published.get() - taken.get()) + " completions unread (" + taken.get() + " taken)");
                }
                int n;
                while ((n = cq.read(entries, entries.length)) > 0) {
                    taken.addAndGet(n);
                }
                assertEquals(-io.jofi.Errno.EAGAIN, n);
            }
            assertEquals(total, taken.get());
        } finally {
            stop.set(true);
            cq.close();
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
    }

    /**
     * One completion into {@code cq} once fewer than 512 are unread (never more than the queue
     * holds); false when the test stopped meanwhile.
     */
    private static boolean publish(UtilCompletionQueue cq, AtomicLong published, AtomicLong taken, AtomicBoolean stop) {
        while (published.get() - taken.get() >= 512) {
            if (stop.get()) {
                return false;
            }
            Thread.onSpinWait();
        }
        published.incrementAndGet();
        cq.reserve();
        cq.complete(null, 0, 0, null, 0, 0, 0, 0);
        return true;
    }
}
