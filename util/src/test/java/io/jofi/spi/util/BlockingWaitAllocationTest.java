package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A wait that blocks allocates nothing (docs/API.md: the data path never allocates): CQ {@code sread}, EQ {@code sread}, {@code WaitSet.await} and {@code Counter.await},
 * each on the timeout path (nothing comes) and on the woken path (a producer thread
 * publishes once the waiter is parked), measured with the JVM's per-thread allocation
 * counter on the waiting thread after warm-up.
 */
@Timeout(120)
class BlockingWaitAllocationTest {
    /** Blocking calls measured per case (each blocks about a millisecond or until woken). */
    private static final int CALLS = 400;
    /** The counter itself may cost a few bytes; 32 B per call would be 12.8 KB. */
    private static final long TOLERANCE_BYTES = 1024;

    enum Path { TIMEOUT, WOKEN }

    private com.sun.management.ThreadMXBean bean;
    private UtilCompletionQueue cq;
    private UtilEventQueue eq;
    private UtilCounter counter;
    private UtilWaitSet set;
    private UtilCompletionQueue member;
    private final CqEntry[] entries = {new CqEntry()};
    private final EqEntry eqEntry = new EqEntry();

    @BeforeEach
    void open() throws Exception {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);
        cq = new UtilCompletionQueue(new CqAttr().size(64).format(CqFormat.CONTEXT).waitObj(WaitObj.UNSPEC), null);
        eq = new UtilEventQueue(new EqAttr().flags(Fi.FI_WRITE).waitObj(WaitObj.UNSPEC), null);
        counter = new UtilCounter(new CounterAttr().waitObj(WaitObj.UNSPEC), null);
        set = new UtilWaitSet(new WaitAttr().waitObj(WaitObj.UNSPEC));
        member = new UtilCompletionQueue(new CqAttr().size(64).format(CqFormat.CONTEXT).waitObj(WaitObj.SET)
                .waitSet(set), null);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {cq, eq, counter, member, set}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void cqSreadAllocatesNothing(Path path) throws Exception {
        measure("CQ sread", path, () -> cq.sread(entries, 1, 0, path == Path.TIMEOUT ? 1 : 10_000), () -> {
            assertEquals(0, cq.reserve());
            cq.complete("c", Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        }, 1);
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void eqSreadAllocatesNothing(Path path) throws Exception {
        EqEntry event = new EqEntry().event(1).data(7);
        measure("EQ sread", path, () -> eq.sread(eqEntry, path == Path.TIMEOUT ? 1 : 10_000, 0),
                () -> assertEquals(1, eq.write(event, 0)), 1);
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void waitSetAwaitAllocatesNothing(Path path) throws Exception {
        measure("WaitSet.await", path, () -> {
            int rc = set.await(path == Path.TIMEOUT ? 1 : 10_000);
            if (rc == 0 && member.read(entries, 1) != 1) {
                return -Errno.EIO; // woken without the completion
            }
            return rc;
        }, () -> {
            assertEquals(0, member.reserve());
            member.complete("c", Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        }, 0);
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void counterAwaitAllocatesNothing(Path path) throws Exception {
        measure("Counter.await", path, () -> counter.await(counter.read() + 1, path == Path.TIMEOUT ? 1 : 10_000),
                counter::increment, 0);
    }

    /**
     * Runs {@code call} {@link #CALLS} times after as many warm-up calls and asserts that the
     * calling thread allocated (almost) nothing. On the woken path a producer thread runs
     * {@code publish} each time the caller is parked in the call, and the call must
     * return {@code wokenRc}; on the timeout path it must return {@code -EAGAIN}.
     */
    private void measure(String what, Path path, IntSupplier call, Runnable publish, int wokenRc) throws Exception {
        Thread caller = Thread.currentThread();
        Producer producer = path == Path.WOKEN ? new Producer(caller, publish) : null;
        int expected = path == Path.WOKEN ? wokenRc : -Errno.EAGAIN;
        try {
            run(what, call, expected, producer); // warm-up: let the JIT compile the paths
            long tid = caller.getId();
            // two measured passes, the smaller counts: a one-time JVM event cannot fail it,
            // anything allocated per call shows in both
            long allocated = Long.MAX_VALUE;
            for (int pass = 0; pass < 2; pass++) {
                long before = bean.getThreadAllocatedBytes(tid);
                run(what, call, expected, producer);
                allocated = Math.min(allocated, bean.getThreadAllocatedBytes(tid) - before);
            }
            assertTrue(allocated <= TOLERANCE_BYTES, what + " (" + path + "): " + allocated + " bytes allocated by "
                    + CALLS + " blocking calls (" + (double) allocated / CALLS + " B/call)");
        } finally {
            if (producer != null) {
                producer.stop();
            }
        }
    }

    private static void run(String what, IntSupplier call, int expected, Producer producer) {
        for (int i = 0; i < CALLS; i++) {
            if (producer != null) {
                producer.request();
            }
            int rc = call.getAsInt();
            if (rc != expected) {
                throw new AssertionError(what + " returned " + rc + " at call " + i + ", expected " + expected);
            }
        }
    }

    /** Publishes once per request, as soon as the caller is parked (so that the call really blocks). */
    private static final class Producer {
        private final Thread caller;
        private final Runnable publish;
        private final Thread thread;
        private volatile boolean stop;
        private volatile int requested;
        private volatile Throwable failure;

        Producer(Thread caller, Runnable publish) {
            this.caller = caller;
            this.publish = publish;
            this.thread = new Thread(this::loop, "blocking-wait-producer");
            thread.setDaemon(true);
            thread.start();
        }

        void request() {
            requested++;
        }

        private void loop() {
            int done = 0;
            try {
                while (!stop) {
                    if (done == requested) {
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                        continue;
                    }
                    Thread.State s = caller.getState();
                    if (s == Thread.State.TIMED_WAITING || s == Thread.State.WAITING) {
                        publish.run();
                        done++;
                    } else {
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join(10_000);
            if (failure != null) {
                throw new AssertionError("the producer failed", failure);
            }
        }
    }
}
