package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.Errno;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A thread blocked in {@code WaitSet.await} when the set is closed or its provider departs
 * is woken and told why — {@code -EBADF} / {@code -ENODEV} (R15: data-path calls answer
 * {@code -ENODEV}), as the CQ, EQ and counter do — not a timeout's {@code -EAGAIN}.
 */
class UtilWaitSetShutdownTest {

    private static final long BOUND_S = 10;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aBlockedAwaitLearnsOfDepartureOrClose(boolean departure) throws Exception {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr().waitObj(WaitObj.UNSPEC));
        CompletableFuture<Integer> waiter = new CompletableFuture<>();
        Thread t = new Thread(() -> waiter.complete(set.await(-1)), "set-waiter");
        t.setDaemon(true);
        t.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
        while (set.waitSupport().waiters() < 1) {
            if (System.nanoTime() > deadline) {
                fail("the waiter did not start waiting");
            }
            Thread.sleep(1);
        }
        if (departure) {
            set.depart();
        } else {
            set.close();
        }
        try {
            assertEquals(departure ? -Errno.ENODEV : -Errno.EBADF, waiter.get(BOUND_S, TimeUnit.SECONDS));
        } catch (TimeoutException e) {
            fail("await was not woken");
        } finally {
            set.close();
        }
    }
}
