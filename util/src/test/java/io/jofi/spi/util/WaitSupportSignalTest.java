package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.WaitObj;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code signal()} (R4, fi_cq(3) "unblock any thread waiting") through the real queues. */
class WaitSupportSignalTest {

    private static final long BOUND_S = 10;

    private static CompletableFuture<Integer> sreadForever(UtilCompletionQueue cq, String name) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(cq.sread(new CqEntry[] {new CqEntry()}, 1, 0, -1));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    private static void awaitWaiters(WaitSupport ws, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
        while (ws.waiters() < n) {
            if (System.nanoTime() > deadline) {
                fail(n + " readers did not start waiting within " + BOUND_S + " s");
            }
            Thread.sleep(1);
        }
    }

    /** One signal while two threads wait: both return -EAGAIN, not only the first to look. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD", "YIELD"})
    void oneSignalReleasesEveryWaitingReader(WaitObj w) throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(8).waitObj(w), null);
        try {
            CompletableFuture<Integer> a = sreadForever(cq, "reader-a");
            CompletableFuture<Integer> b = sreadForever(cq, "reader-b");
            awaitWaiters(cq.waitSupport(), 2);
            assertEquals(0, cq.signal());
            try {
                assertEquals(-Errno.EAGAIN, a.get(BOUND_S, TimeUnit.SECONDS));
                assertEquals(-Errno.EAGAIN, b.get(BOUND_S, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                fail("a reader waiting when signal() was called is still blocked");
            }
            // Delivered to the waiters: not remembered for a later read as well.
            assertEquals(-Errno.EAGAIN, cq.sread(new CqEntry[] {new CqEntry()}, 1, 0, 0));
            assertEquals(0, cq.waitSupport().waiters());
        } finally {
            closeReleasingReaders(cq);
        }
    }

    /** A remembered signal (nobody waiting) releases exactly one later blocking read. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD"})
    void aRememberedSignalIsConsumedOnce(WaitObj w) throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(8).waitObj(w), null);
        try {
            assertEquals(0, cq.signal());
            CompletableFuture<Integer> a = sreadForever(cq, "reader-a");
            assertEquals(-Errno.EAGAIN, a.get(BOUND_S, TimeUnit.SECONDS));
            CompletableFuture<Integer> b = sreadForever(cq, "reader-b");
            awaitWaiters(cq.waitSupport(), 1);
            assertTrue(!b.isDone(), "a second read also consumed the one remembered signal");
            assertEquals(0, cq.signal());
            assertEquals(-Errno.EAGAIN, b.get(BOUND_S, TimeUnit.SECONDS));
        } finally {
            closeReleasingReaders(cq);
        }
    }

    private static void closeReleasingReaders(UtilCompletionQueue cq) throws FabricException {
        cq.close(); // wakes any reader a failed assertion left behind
    }
}
