package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqAttr;
import io.jofi.Errno;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * fi_cq(3): "fi_cq_signal is only available if the CQ was configured with a wait object" —
 * {@code FI_WAIT_SET} is one. A signal on a member of a wait set wakes the set's waiters
 * (as libfabric's util CQ signals its wait set); only a CQ without a wait object answers
 * {@code -ENOSYS} (R4).
 */
class WaitSetMemberSignalTest {

    private static final long BOUND_S = 10;

    @Test
    void signalOnAWaitSetMemberWakesTheSet() throws Exception {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(8).waitObj(WaitObj.SET).waitSet(set), null);
        CompletableFuture<Integer> waiter = new CompletableFuture<>();
        Thread t = new Thread(() -> waiter.complete(set.await(-1)), "set-waiter");
        t.setDaemon(true);
        try {
            t.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
            while (set.waitSupport().waiters() < 1) {
                if (System.nanoTime() > deadline) {
                    fail("the wait set's waiter did not start waiting");
                }
                Thread.sleep(1);
            }
            assertEquals(0, cq.signal(), "a CQ whose wait object is a wait set can be signalled");
            try {
                assertEquals(0, waiter.get(BOUND_S, TimeUnit.SECONDS), "await reports the member's signal");
            } catch (TimeoutException e) {
                fail("signal() on a member did not wake the wait set");
            }
            // The blocking read of a SET member is still ENOSYS (R4): nothing else changed.
            assertEquals(-Errno.ENOSYS, cq.sread(new io.jofi.CqEntry[] {new io.jofi.CqEntry()}, 1, 0, -1));
        } finally {
            cq.close();
            set.close(); // wakes a waiter a failed assertion left behind
        }
    }

    @Test
    void tryWaitDoesNotSwallowAMemberSignal() throws Exception {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(8).waitObj(WaitObj.SET).waitSet(set), null);
        try {
            assertEquals(0, TryWait.tryWait(set));
            assertEquals(0, cq.signal());
            assertEquals(-Errno.EAGAIN, TryWait.tryWait(set), "the signal is reported, not dropped");
            assertEquals(0, TryWait.tryWait(set), "and then consumed");
        } finally {
            cq.close();
            set.close();
        }
    }
}
