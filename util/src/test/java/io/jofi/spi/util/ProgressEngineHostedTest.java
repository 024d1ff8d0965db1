package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.WaitObj;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hosted engines ({@link ProgressEngine#hosted}) and progress on publish
 * ({@link UtilCompletionQueue#hostProgress}): a layered provider's pass runs on the thread of the
 * core's engine that published into the queue it reads, after the core's pass, with no thread of
 * its own; a pass asked for while another thread is in it is made by that thread; close waits for
 * a pass under way; a follower that throws stops itself, not its host. Real engines and queues.
 */
@Timeout(30)
class ProgressEngineHostedTest {

    /** A core's step: publishes what it is asked to into its CQ, else sleeps up to 1 ms. */
    static final class CoreStep implements ProgressEngine.Step {
        final UtilCompletionQueue cq;
        final AtomicInteger toPublish = new AtomicInteger();
        final AtomicInteger passes = new AtomicInteger();

        CoreStep(UtilCompletionQueue cq) {
            this.cq = cq;
        }

        @Override
        public int progress(long timeoutNanos) {
            passes.incrementAndGet();
            int n = toPublish.getAndSet(0);
            for (int i = 0; i < n; i++) {
                assertEquals(0, cq.reserve());
                cq.complete("m" + i, Fi.FI_RECV | Fi.FI_MSG, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            }
            if (n == 0 && timeoutNanos > 0) {
                LockSupport.parkNanos(Math.min(timeoutNanos, TimeUnit.MILLISECONDS.toNanos(1)));
            }
            return n;
        }

        @Override
        public void wakeup() {
        }
    }

    /** A layer's step: reads the core's CQ and records on which thread it found what. */
    static final class LayerStep implements ProgressEngine.Step {
        final UtilCompletionQueue cq;
        final CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
        final List<String> readOn = new CopyOnWriteArrayList<>();
        final AtomicInteger passes = new AtomicInteger();

        LayerStep(UtilCompletionQueue cq) {
            this.cq = cq;
        }

        @Override
        public int progress(long timeoutNanos) {
            assertEquals(0L, timeoutNanos, "a hosted pass never blocks");
            passes.incrementAndGet();
            int n = cq.read(entries, entries.length);
            for (int i = 0; i < n; i++) {
                readOn.add(entries[i].context() + "@" + Thread.currentThread().getName());
            }
            return Math.max(n, 0);
        }

        @Override
        public void wakeup() {
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out: " + what);
            Thread.sleep(1);
        }
    }

    @Test
    void theLayersPassRunsOnTheCoreThreadThatPublishedAndNoThreadOfItsOwn() throws Exception {
        for (boolean hostFirst : new boolean[] {true, false}) {
            UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().waitObj(WaitObj.UNSPEC), null);
            CoreStep core = new CoreStep(cq);
            LayerStep layer = new LayerStep(cq);
            ProgressEngine follower = ProgressEngine.hosted("test-layer-" + hostFirst, layer, null);
            ProgressEngine host = ProgressEngine.start(Progress.AUTO, "test-core-" + hostFirst, core);
            try {
                assertTrue(follower.isHosted());
                assertFalse(follower.isManual());
                assertNull(follower.thread(), "a hosted engine has no thread");
                if (hostFirst) {
                    cq.hostProgress(follower);
                    cq.attachProgress(host);
                } else {
                    cq.attachProgress(host); // the core's endpoint bound first, the layer's hosting after
                    cq.hostProgress(follower);
                }
                core.toPublish.set(3);
                awaitTrue(() -> layer.readOn.size() == 3, "the layer read what the core published");
                String coreThread = "test-core-" + hostFirst;
                assertEquals(List.of("m0@" + coreThread, "m1@" + coreThread, "m2@" + coreThread), layer.readOn);
                assertFalse(Thread.getAllStackTraces().keySet().stream()
                        .anyMatch(t -> t.getName().equals("test-layer-" + hostFirst)), "no thread for the layer");
                assertThrows(IllegalStateException.class, () -> cq.hostProgress(follower), "set once");

                // detached (the core's endpoint unbound): the core's passes no longer run the layer's
                cq.detachProgress(host);
                int afterDetach = core.passes.get();
                awaitTrue(() -> core.passes.get() > afterDetach + 2, "passes begun before the detach are over");
                int passes = layer.passes.get();
                int corePasses = core.passes.get();
                awaitTrue(() -> core.passes.get() > corePasses + 20, "the core keeps passing");
                assertEquals(passes, layer.passes.get(), "no layer pass once the host is detached");
            } finally {
                host.close();
                follower.close();
                cq.close();
            }
        }
    }

    /** Two endpoints of the core bound to the queue: the layer's pass runs until the last one goes. */
    @Test
    void hostingIsCountedPerAttachment() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().waitObj(WaitObj.UNSPEC), null);
        CoreStep core = new CoreStep(cq);
        LayerStep layer = new LayerStep(cq);
        ProgressEngine follower = ProgressEngine.hosted("test-layer-counted", layer, null);
        ProgressEngine host = ProgressEngine.start(Progress.AUTO, "test-core-counted", core);
        try {
            cq.hostProgress(follower);
            cq.attachProgress(host);
            cq.attachProgress(host);
            cq.detachProgress(host);
            core.toPublish.set(1);
            awaitTrue(() -> layer.readOn.size() == 1, "still hosted after one of two detached");
        } finally {
            host.close();
            follower.close();
            cq.close();
        }
    }

    /**
     * A thread that asks for a pass while another thread is in one does not wait and does not
     * lose its request: the thread in the pass makes one more before it lets go.
     */
    @Test
    void aPassAskedForDuringAPassIsMadeByTheThreadInIt() throws Exception {
        CountDownLatch inFirst = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger passes = new AtomicInteger();
        List<String> threads = new CopyOnWriteArrayList<>();
        ProgressEngine follower = ProgressEngine.hosted("test-follow", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                threads.add(Thread.currentThread().getName());
                if (passes.incrementAndGet() == 1) {
                    inFirst.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return 1;
            }

            @Override
            public void wakeup() {
            }
        }, null);
        Thread a = new Thread(follower::follow, "follower-a");
        a.start();
        assertTrue(inFirst.await(10, TimeUnit.SECONDS));
        long t0 = System.nanoTime();
        assertEquals(0, follower.follow(), "left to the thread in the pass");
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "did not wait for it");
        assertEquals(1, passes.get());
        release.countDown();
        a.join(10_000);
        assertEquals(2, passes.get(), "the request was served");
        assertEquals(List.of("follower-a", "follower-a"), threads);
        follower.close();
        assertEquals(0, follower.follow(), "closed: no pass");
        assertEquals(2, passes.get());
    }

    /**
     * A completion the follower's own pass causes in the queue it reads — a send it posts that the
     * core completes at once, on the pass's thread, after the pass's read — is read by one more
     * pass before the pass lets go, not left for the host's next pass: here the core publishes one
     * completion and then sleeps in its I/O wait, never woken, and every link of a chain of twenty
     * (each read posting the next) is read within the host's first pass. Before, each link waited
     * for the host's idle wait to run out (100 ms), one host pass per link.
     */
    @Test
    void aCompletionPublishedInsideThePassIsReadBeforeThePassLetsGo() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().waitObj(WaitObj.UNSPEC), null);
        CoreStep core = new CoreStep(cq);
        core.toPublish.set(1);
        int links = 20;
        AtomicInteger read = new AtomicInteger();
        AtomicInteger hostPassesAtEnd = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        CqEntry[] entry = {new CqEntry()};
        CountDownLatch attached = new CountDownLatch(1);
        ProgressEngine follower = ProgressEngine.hosted("test-chain", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                int n = cq.read(entry, 1); // one look, as a layer's pass reads its queue once
                if (n != 1) {
                    return 0;
                }
                if (read.incrementAndGet() < links) {
                    assertEquals(0, cq.reserve()); // the post the entry caused, completed at once
                    cq.complete("link", Fi.FI_SEND | Fi.FI_MSG, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
                } else {
                    hostPassesAtEnd.set(core.passes.get());
                    done.countDown();
                }
                return 1;
            }

            @Override
            public void wakeup() {
            }
        }, null);
        ProgressEngine host = ProgressEngine.start(Progress.AUTO, "test-chain-core", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                if (core.passes.get() == 0) {
                    try {
                        assertTrue(attached.await(10, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    return core.progress(0); // the first pass publishes the chain's first link
                }
                core.passes.incrementAndGet(); // then only its idle wait, which nobody cuts short
                LockSupport.parkNanos(timeoutNanos);
                return 0;
            }

            @Override
            public void wakeup() {
            }
        });
        try {
            cq.hostProgress(follower);
            cq.attachProgress(host);
            attached.countDown();
            assertTrue(done.await(20, TimeUnit.SECONDS), "the chain ended; links read: " + read.get());
            assertEquals(1, hostPassesAtEnd.get(), "host passes the chain of " + links + " took");
        } finally {
            host.close();
            follower.close();
            cq.close();
        }
    }

    /** Closing a hosted engine waits for a pass under way on a host's thread (R15: nothing runs after). */
    @Test
    void closeWaitsForAPassUnderWay() throws Exception {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ProgressEngine follower = ProgressEngine.hosted("test-close", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                inPass.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 0;
            }

            @Override
            public void wakeup() {
            }
        }, null);
        Thread a = new Thread(follower::follow, "in-pass");
        a.start();
        assertTrue(inPass.await(10, TimeUnit.SECONDS));
        CountDownLatch closed = new CountDownLatch(1);
        Thread closer = new Thread(() -> {
            follower.close();
            closed.countDown();
        }, "closer");
        closer.start();
        assertFalse(closed.await(200, TimeUnit.MILLISECONDS), "close returned while the pass ran");
        release.countDown();
        assertTrue(closed.await(10, TimeUnit.SECONDS), "close returned once the pass ended");
        a.join(10_000);
        assertFalse(follower.isRunning());
    }

    /** A follower that throws stops (failure reported to its handler) and its host goes on. */
    @Test
    void aFollowerThatThrowsStopsItselfNotItsHost() throws Exception {
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().waitObj(WaitObj.UNSPEC), null);
        CoreStep core = new CoreStep(cq);
        IllegalStateException boom = new IllegalStateException("simulated layer bug");
        AtomicInteger layerPasses = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Throwable> handed = new java.util.concurrent.atomic.AtomicReference<>();
        ProgressEngine follower = ProgressEngine.hosted("test-throws", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                layerPasses.incrementAndGet();
                throw boom;
            }

            @Override
            public void wakeup() {
            }
        }, (e, t) -> handed.set(t));
        ProgressEngine host = ProgressEngine.start(Progress.AUTO, "test-core-throws", core);
        try {
            cq.hostProgress(follower);
            cq.attachProgress(host);
            awaitTrue(() -> handed.get() != null, "the follower's failure reported");
            assertSame(boom, follower.failure());
            assertFalse(follower.isRunning());
            int corePasses = core.passes.get();
            awaitTrue(() -> core.passes.get() > corePasses + 20, "the host keeps passing");
            assertTrue(host.isRunning());
            assertEquals(1, layerPasses.get(), "a stopped follower is not run again");
        } finally {
            host.close();
            follower.close();
            cq.close();
        }
    }

    @Test
    void onlyAnotherHostedEngineCanBeHosted() {
        ProgressEngine host = ProgressEngine.start(Progress.MANUAL, "test-manual", new CoreStep(null));
        ProgressEngine hosted = ProgressEngine.hosted("test-h", new CoreStep(null), null);
        assertThrows(IllegalArgumentException.class, () -> host.host(host));
        assertThrows(IllegalArgumentException.class, () -> hosted.host(hosted));
        assertEquals(0, host.follow(), "follow() of an engine that is not hosted does nothing");
        host.close();
        hosted.close();
    }
}
