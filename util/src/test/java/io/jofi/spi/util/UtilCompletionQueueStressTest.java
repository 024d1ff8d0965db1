package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Errno;
import io.jofi.Fi;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Many producers and readers on one {@link UtilCompletionQueue}: every completion is seen
 * exactly once, per producer in order by every reader, errors only through {@code readErr};
 * and a second CQ driven into overrun by unsolicited completions loses none it accepted.
 * Fixed counts; every wait is bounded by a deadline whose expiry fails with what was missing.
 */
class UtilCompletionQueueStressTest {

    private static final long DEADLINE_S = 60;

    private static final int PRODUCERS = 4;
    private static final int PER_PRODUCER = 200_000;
    private static final int READERS = 3;
    private static final int TOTAL = PRODUCERS * PER_PRODUCER;
    /** Every ERROR_EVERY-th operation of a producer fails. */
    private static final int ERROR_EVERY = 97;

    /** Contexts allocated up front, so that ids come back by identity and nothing boxes in the loop. */
    private static final Long[] IDS = new Long[TOTAL];

    static {
        for (int i = 0; i < TOTAL; i++) {
            IDS[i] = (long) i;
        }
    }

    private static boolean isErrorId(int id) {
        return (id % PER_PRODUCER) % ERROR_EVERY == ERROR_EVERY - 1;
    }

    @Test
    void everyCompletionIsSeenExactlyOnceInProducerOrder() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(1024).format(CqFormat.TAGGED), null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        AtomicIntegerArray seen = new AtomicIntegerArray(TOTAL);
        AtomicIntegerArray seenAsError = new AtomicIntegerArray(TOTAL);
        AtomicInteger consumed = new AtomicInteger();
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();

        for (int p = 0; p < PRODUCERS; p++) {
            final int producer = p;
            threads.add(new Thread(() -> {
                int base = producer * PER_PRODUCER;
                for (int i = 0; i < PER_PRODUCER; i++) {
                    int id = base + i;
                    while (cq.reserve() != 0) {
                        if (stop.get() || System.nanoTime() > deadline) {
                            problems.add("producer " + producer + " could not reserve room for #" + i
                                    + " (credits never came back?)");
                            return;
                        }
                        Thread.yield();
                    }
                    if (isErrorId(id)) {
                        cq.completeError(IDS[id], Fi.FI_SEND, 0, null, 0, 0, id, 0, Errno.ECANCELED, producer,
                                null, 0, producer);
                    } else {
                        cq.complete(IDS[id], Fi.FI_RECV, i, null, 0, producer, id, producer);
                    }
                }
            }, "producer-" + p));
        }
        for (int r = 0; r < READERS; r++) {
            final int reader = r;
            threads.add(new Thread(() -> {
                CqEntry[] buf = new CqEntry[64];
                for (int i = 0; i < buf.length; i++) {
                    buf[i] = new CqEntry();
                }
                long[] src = new long[64];
                CqErrEntry err = new CqErrEntry();
                int[] last = new int[PRODUCERS];
                java.util.Arrays.fill(last, -1);
                int round = 0;
                while (consumed.get() < TOTAL) {
                    if (stop.get() || System.nanoTime() > deadline) {
                        return;
                    }
                    int batch = 1 + (round++ * 7 + reader * 13) % 64;
                    int n = (round & 1) == 0 ? cq.read(buf, batch) : cq.readFrom(buf, batch, src);
                    if (n > 0) {
                        for (int i = 0; i < n; i++) {
                            int id = (int) (long) (Long) buf[i].context();
                            if ((round & 1) != 0 && src[i] != id / PER_PRODUCER) {
                                problems.add("reader " + reader + ": #" + id + " came with source " + src[i]);
                            }
                            if (buf[i].tag() != id) {
                                problems.add("reader " + reader + ": #" + id + " came with tag " + buf[i].tag());
                            }
                            if (isErrorId(id)) {
                                problems.add("reader " + reader + ": error #" + id + " was returned by read");
                            }
                            check(reader, id, last, seen, problems);
                        }
                        consumed.addAndGet(n);
                    } else if (n == -Errno.EAVAIL) {
                        if (cq.readErr(err, 0) == 1) {
                            int id = (int) (long) (Long) err.context();
                            if (!isErrorId(id) || err.err() != Errno.ECANCELED || err.tag() != id) {
                                problems.add("reader " + reader + ": readErr gave #" + id + " err " + err.err());
                            }
                            seenAsError.incrementAndGet(id);
                            check(reader, id, last, seen, problems);
                            consumed.incrementAndGet();
                        } // else another reader took it
                    } else if (n == -Errno.EAGAIN) {
                        Thread.yield();
                    } else {
                        problems.add("reader " + reader + ": read returned " + Errno.name(n));
                        return;
                    }
                    if (problems.size() > 20) {
                        stop.set(true);
                    }
                }
            }, "reader-" + r));
        }
        runAll(threads, deadline, stop);

        assertTrue(problems.isEmpty(), () -> "problems: " + problems);
        assertEquals(TOTAL, consumed.get(), "completions consumed before the deadline");
        int errors = 0;
        for (int id = 0; id < TOTAL; id++) {
            if (seen.get(id) != 1) {
                fail("#" + id + " was seen " + seen.get(id) + " times");
            }
            if (isErrorId(id)) {
                errors++;
                assertEquals(1, seenAsError.get(id), "error #" + id + " through readErr");
            }
        }
        assertTrue(errors > 0);
        CqEntry[] buf = {new CqEntry()};
        assertEquals(-Errno.EAGAIN, cq.read(buf, 1), "nothing left");
        assertEquals(cq.capacity(), countReservable(cq), "every credit came back");
        cq.close();
    }

    /** Takes every remaining credit; returns how many there were. */
    private static int countReservable(UtilCompletionQueue cq) {
        int n = 0;
        while (cq.reserve() == 0) {
            n++;
        }
        return n;
    }

    private static void check(int reader, int id, int[] last, AtomicIntegerArray seen, Queue<String> problems) {
        int producer = id / PER_PRODUCER;
        int seq = id % PER_PRODUCER;
        if (seq <= last[producer]) {
            problems.add("reader " + reader + ": producer " + producer + "'s #" + seq + " after #" + last[producer]);
        }
        last[producer] = seq;
        if (seen.incrementAndGet(id) != 1) {
            problems.add("#" + id + " seen twice");
        }
    }

    private static final int RACE_ROUNDS = 200;
    private static final int RACE_CAPACITY = 4096;

    /**
     * Readers contend for the head far more often when they start together on a full queue
     * than when they trail producers: the round structure makes the lost-CAS retry path (a
     * torn copy that must be thrown away) run thousands of times.
     */
    @Test
    void readersRacingForAFullQueueTakeEachEntryOnce() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(RACE_CAPACITY).format(CqFormat.TAGGED), null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        int total = RACE_ROUNDS * RACE_CAPACITY;
        Long[] ids = new Long[total];
        for (int i = 0; i < total; i++) {
            ids[i] = (long) i;
        }
        AtomicIntegerArray seen = new AtomicIntegerArray(total);
        AtomicInteger round = new AtomicInteger(-1);
        AtomicInteger consumed = new AtomicInteger();
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            final int reader = r;
            threads.add(new Thread(() -> {
                CqEntry[] buf = new CqEntry[64];
                for (int i = 0; i < buf.length; i++) {
                    buf[i] = new CqEntry();
                }
                int lastId = -1;
                int k = reader;
                for (int rd = 0; rd < RACE_ROUNDS; rd++) {
                    while (round.get() < rd) {
                        if (stop.get() || System.nanoTime() > deadline) {
                            return;
                        }
                        Thread.onSpinWait();
                    }
                    int end = (rd + 1) * RACE_CAPACITY;
                    while (consumed.get() < end) {
                        if (stop.get() || System.nanoTime() > deadline) {
                            return;
                        }
                        int n = cq.read(buf, 1 + (k++ * 11) % 64);
                        for (int i = 0; i < n; i++) {
                            int id = (int) (long) (Long) buf[i].context();
                            if (id <= lastId || buf[i].tag() != id) {
                                problems.add("reader " + reader + ": #" + id + " (tag " + buf[i].tag() + ") after #"
                                        + lastId);
                                stop.set(true);
                            }
                            lastId = id;
                            if (seen.incrementAndGet(id) != 1) {
                                problems.add("#" + id + " seen twice");
                                stop.set(true);
                            }
                        }
                        if (n > 0) {
                            consumed.addAndGet(n);
                        } else if (n != -Errno.EAGAIN) {
                            problems.add("reader " + reader + ": read returned " + Errno.name(n));
                            stop.set(true);
                        }
                    }
                }
            }, "racer-" + r));
        }
        threads.add(new Thread(() -> {
            for (int rd = 0; rd < RACE_ROUNDS; rd++) {
                while (consumed.get() < rd * RACE_CAPACITY) {
                    if (stop.get() || System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.yield();
                }
                for (int i = 0; i < RACE_CAPACITY; i++) {
                    int id = rd * RACE_CAPACITY + i;
                    if (cq.reserve() != 0) {
                        problems.add("round " + rd + ": no room for entry " + i + " of a drained queue");
                        stop.set(true);
                        return;
                    }
                    cq.complete(ids[id], 0, 0, null, 0, 0, id, Fi.FI_ADDR_NOTAVAIL);
                }
                round.set(rd);
            }
        }, "filler"));
        runAll(threads, deadline, stop);

        assertTrue(problems.isEmpty(), () -> "problems: " + problems);
        assertEquals(total, consumed.get(), "entries consumed before the deadline");
        for (int id = 0; id < total; id++) {
            if (seen.get(id) != 1) {
                fail("#" + id + " was seen " + seen.get(id) + " times");
            }
        }
        cq.close();
    }

    private static final int UNSOLICITED_PRODUCERS = 2;
    private static final int UNSOLICITED_EACH = 50_000;
    private static final int RESERVED_POSTS = 20_000;

    /**
     * R6 under contention: every accepted unsolicited completion is read once; a reserved post
     * is read once when it completed before the overrun (fi_cq(3): an overrun CQ reports no
     * additional completion, so one written after it is dropped, never read twice or invented);
     * once overrun, posts are refused with -EOVERRUN.
     */
    @Test
    void overrunLosesNoAcceptedCompletionAndRefusesLaterPosts() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(256), null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        int total = UNSOLICITED_PRODUCERS * UNSOLICITED_EACH + RESERVED_POSTS;
        Long[] ids = new Long[total];
        for (int i = 0; i < total; i++) {
            ids[i] = (long) i;
        }
        AtomicIntegerArray accepted = new AtomicIntegerArray(total);
        AtomicIntegerArray seen = new AtomicIntegerArray(total);
        // A reserved post that completed while the CQ was not overrun yet must be read.
        AtomicIntegerArray mustSee = new AtomicIntegerArray(total);
        AtomicInteger producersLeft = new AtomicInteger(UNSOLICITED_PRODUCERS + 1);
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();

        for (int p = 0; p < UNSOLICITED_PRODUCERS; p++) {
            final int base = p * UNSOLICITED_EACH;
            threads.add(new Thread(() -> {
                for (int i = 0; i < UNSOLICITED_EACH && !stop.get(); i++) {
                    int id = base + i;
                    boolean ok = i % 13 == 0
                            ? cq.completeUnsolicitedError(ids[id], 0, 0, null, 0, 0, 0, 0, Errno.EIO, 0, null, 0,
                                    Fi.FI_ADDR_NOTAVAIL)
                            : cq.completeUnsolicited(ids[id], Fi.FI_REMOTE_CQ_DATA, 0, null, 0, id, 0,
                                    Fi.FI_ADDR_NOTAVAIL);
                    if (ok) {
                        accepted.set(id, 1);
                    }
                }
                producersLeft.decrementAndGet();
            }, "unsolicited-" + p));
        }
        threads.add(new Thread(() -> {
            int base = UNSOLICITED_PRODUCERS * UNSOLICITED_EACH;
            posts:
            for (int i = 0; i < RESERVED_POSTS; i++) {
                int rc;
                while ((rc = cq.reserve()) != 0) {
                    if (rc == -Errno.EOVERRUN) {
                        break posts; // R6: refused for good once overrun
                    }
                    if (rc != -Errno.EAGAIN) {
                        problems.add("reserve returned " + Errno.name(rc));
                        break posts;
                    }
                    if (stop.get() || System.nanoTime() > deadline) {
                        problems.add("reserved post #" + i + " never found room");
                        break posts;
                    }
                    Thread.yield();
                }
                accepted.set(base + i, 1);
                cq.complete(ids[base + i], Fi.FI_SEND, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
                if (!cq.isOverrun()) {
                    mustSee.set(base + i, 1);
                }
            }
            producersLeft.decrementAndGet();
        }, "reserved"));
        threads.add(new Thread(() -> {
            // Read only once the CQ is overrun, so that the overrun surely happens.
            while (!cq.isOverrun()) {
                if (stop.get() || System.nanoTime() > deadline) {
                    problems.add("the CQ never overran");
                    return;
                }
                Thread.yield();
            }
            CqEntry[] buf = new CqEntry[16];
            for (int i = 0; i < buf.length; i++) {
                buf[i] = new CqEntry();
            }
            CqErrEntry err = new CqErrEntry();
            while (true) {
                if (stop.get() || System.nanoTime() > deadline) {
                    problems.add("reader did not finish before the deadline");
                    return;
                }
                boolean done = producersLeft.get() == 0;
                int n = cq.read(buf, 16);
                if (n > 0) {
                    for (int i = 0; i < n; i++) {
                        seen.incrementAndGet((int) (long) (Long) buf[i].context());
                    }
                } else if (n == -Errno.EAVAIL) {
                    if (cq.readErr(err, 0) != 1 || err.err() != Errno.EIO) {
                        problems.add("readErr after -EAVAIL gave err " + err.err());
                        return;
                    }
                    seen.incrementAndGet((int) (long) (Long) err.context());
                } else if (n == -Errno.EOVERRUN) {
                    if (done) {
                        return;
                    }
                    Thread.yield();
                } else {
                    problems.add("read on an overrun CQ returned " + Errno.name(n));
                    return;
                }
            }
        }, "overrun-reader"));
        runAll(threads, deadline, stop);

        assertTrue(problems.isEmpty(), () -> "problems: " + problems);
        assertTrue(cq.isOverrun());
        int lost = 0;
        int firstReserved = UNSOLICITED_PRODUCERS * UNSOLICITED_EACH;
        for (int id = 0; id < firstReserved; id++) {
            assertEquals(accepted.get(id), seen.get(id), "#" + id + " accepted " + accepted.get(id) + " times, seen "
                    + seen.get(id) + " times");
            lost += 1 - accepted.get(id);
        }
        for (int id = firstReserved; id < total; id++) {
            int n = seen.get(id);
            assertTrue(n <= accepted.get(id) && n >= mustSee.get(id), "reserved #" + id + ": accepted "
                    + accepted.get(id) + ", completed before the overrun " + mustSee.get(id) + ", seen " + n);
        }
        assertTrue(lost > 0, "some unsolicited completions were refused");
        assertEquals(-Errno.EOVERRUN, cq.reserve(), "posts are refused once overrun (R6)");
        CqEntry[] buf = {new CqEntry()};
        assertEquals(-Errno.EOVERRUN, cq.read(buf, 1));
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, cq.readErr(err, 0));
        assertEquals(Errno.EOVERRUN, err.err());
        cq.close();
    }

    private static void runAll(List<Thread> threads, long deadline, AtomicBoolean stop) throws InterruptedException {
        for (Thread t : threads) {
            t.setDaemon(true);
            t.start();
        }
        for (Thread t : threads) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            t.join(Math.max(1, left));
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
            if (t.isAlive()) {
                fail(t.getName() + " did not stop (state " + t.getState() + ")");
            }
        }
    }
}
