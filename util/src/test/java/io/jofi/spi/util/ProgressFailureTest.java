package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddrFormat;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EqAttr;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.WaitObj;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README "Failure model": a progress step that throws is caught, logged, handed to the provider's
 * {@link ProgressEngine.FailureHandler} once, and never thrown out of an application's call;
 * {@link UtilDomain#progressFailed} turns it into error completions, an EQ error event and
 * {@code -EIO} posts. Real engines, real util queues; the step is a test step that throws.
 */
@Timeout(30)
class ProgressFailureTest {

    /** A step that counts its calls and throws {@link #boom} from the call {@link #armed} says. */
    static final class ThrowingStep implements ProgressEngine.Step {
        final IllegalStateException boom = new IllegalStateException("simulated provider bug in the step");
        final AtomicInteger calls = new AtomicInteger();
        volatile boolean armed;

        @Override
        public int progress(long timeoutNanos) {
            calls.incrementAndGet();
            if (armed) {
                throw boom;
            }
            if (timeoutNanos > 0) {
                LockSupportSleep.sleep(Math.min(timeoutNanos, TimeUnit.MILLISECONDS.toNanos(5)));
            }
            return 0;
        }

        @Override
        public void wakeup() {
        }
    }

    /** Parks without a checked exception (the step's idle wait). */
    static final class LockSupportSleep {
        static void sleep(long nanos) {
            java.util.concurrent.locks.LockSupport.parkNanos(nanos);
        }
    }

    /** Records the handler's calls. */
    static final class Recorder implements ProgressEngine.FailureHandler {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicReference<Throwable> cause = new AtomicReference<>();
        final AtomicReference<Thread> thread = new AtomicReference<>();
        final CountDownLatch called = new CountDownLatch(1);

        @Override
        public void progressFailed(ProgressEngine engine, Throwable t) {
            calls.incrementAndGet();
            cause.set(t);
            thread.set(Thread.currentThread());
            called.countDown();
        }
    }

    @Test
    void autoThreadStepThatThrowsIsHandedToTheHandlerOnceAndTheThreadEnds() throws Exception {
        ThrowingStep step = new ThrowingStep();
        Recorder rec = new Recorder();
        ProgressEngine engine = ProgressEngine.start(Progress.AUTO, "jofi-test-failing-auto", step, rec);
        try {
            step.armed = true;
            assertTrue(rec.called.await(10, TimeUnit.SECONDS), "the handler must be called when the AUTO step throws");
            assertSame(step.boom, rec.cause.get(), "the handler gets what the step threw");
            assertSame(engine.thread(), rec.thread.get(), "called on the thread whose step threw");
            engine.thread().join(10_000);
            assertFalse(engine.thread().isAlive(), "the auto thread ends");
            assertFalse(engine.isRunning(), "the engine has stopped");
            assertSame(step.boom, engine.failure(), "failure() names the cause");
            assertEquals(1, rec.calls.get(), "called once");
            int calls = step.calls.get();
            assertEquals(0, engine.drive(), "drive after the failure does nothing");
            assertEquals(calls, step.calls.get(), "the step never runs again");
        } finally {
            engine.close();
        }
    }

    @Test
    void manualStepThatThrowsNeverEscapesTheApplicationsRead() throws Exception {
        ThrowingStep step = new ThrowingStep();
        Recorder rec = new Recorder();
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "jofi-test-failing-manual", step, rec);
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().waitObj(WaitObj.MUTEX_COND), null);
        try {
            cq.attachProgress(engine);
            CqEntry[] buf = {new CqEntry()};
            assertEquals(-Errno.EAGAIN, cq.read(buf, 1), "a healthy step");
            step.armed = true;
            assertEquals(-Errno.EAGAIN, cq.read(buf, 1), "the read whose progress pass threw returns, never throws");
            assertEquals(1, rec.calls.get(), "the handler was called");
            assertSame(Thread.currentThread(), rec.thread.get(), "on the application's thread that drove the step");
            assertSame(step.boom, engine.failure());
            int calls = step.calls.get();
            assertEquals(-Errno.EAGAIN, cq.read(buf, 1));
            assertEquals(-Errno.EAGAIN, cq.sread(buf, 1, 1, 20), "a blocking read times out, no throw");
            assertEquals(calls, step.calls.get(), "the step never runs again");
            assertEquals(1, rec.calls.get(), "the handler is called once");
        } finally {
            cq.detachProgress(engine);
            cq.close();
            engine.close();
        }
    }

    @Test
    void manualAwaitThatThrowsReturnsAndCallsTheHandler() {
        ThrowingStep step = new ThrowingStep();
        Recorder rec = new Recorder();
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "jofi-test-failing-await", step, rec);
        try {
            step.armed = true;
            engine.await(TimeUnit.MILLISECONDS.toNanos(10));
            assertEquals(1, rec.calls.get(), "the handler was called from await");
            assertEquals(-1, engine.await(TimeUnit.MILLISECONDS.toNanos(10)), "a stopped engine does not progress");
        } finally {
            engine.close();
        }
    }

    @Test
    void withoutAHandlerTheFailureIsStillCaughtAndKept() {
        ThrowingStep step = new ThrowingStep();
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "jofi-test-failing-nohandler", step);
        try {
            step.armed = true;
            assertEquals(0, engine.drive(), "no throw");
            assertSame(step.boom, engine.failure());
            assertFalse(engine.isRunning());
        } finally {
            engine.close();
        }
    }

    @Test
    void handlerThatThrowsIsContained() {
        ThrowingStep step = new ThrowingStep();
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "jofi-test-failing-handler", step,
                (e, t) -> {
                    throw new IllegalArgumentException("a broken handler");
                });
        try {
            step.armed = true;
            assertEquals(0, engine.drive(), "neither the step's nor the handler's throw escapes");
        } finally {
            engine.close();
        }
    }

    // ------------------------------------------------------------------ UtilDomain.progressFailed

    /** An endpoint of the test domain: one pending receive, failed on departure as providers do. */
    static final class PendingEndpoint extends AbstractFid {
        final EndpointBindings bindings;
        Object pending;

        PendingEndpoint(ProgressEngine engine) {
            super(FidClass.ENDPOINT, "ep");
            bindings = new EndpointBindings(engine, EndpointBindings.ALL_COUNTER_ROLES);
        }

        /** A post: the data-path check, then room on the CQ. */
        synchronized int post(Object context) {
            int rc = dataPathCheck();
            if (rc != 0) {
                return rc;
            }
            rc = bindings.rxCq().reserve();
            if (rc == 0) {
                pending = context;
            }
            return rc;
        }

        @Override
        protected synchronized void onDeparture() {
            if (pending != null) {
                bindings.rxCq().completeError(pending, Fi.FI_RECV | Fi.FI_MSG, 0, null, 0, 0, 0, 0, departureError(),
                        0, null, 0, Fi.FI_ADDR_NOTAVAIL);
                pending = null;
            }
        }

        @Override
        protected void onClose() {
            bindings.releaseAll(this);
        }
    }

    /** A domain whose engine (MANUAL) runs a {@link ThrowingStep} and reports to {@link UtilDomain#progressFailed}. */
    static final class FailingDomain extends UtilDomain {
        final ThrowingStep step = new ThrowingStep();
        final ProgressEngine engine;

        FailingDomain(UtilFabric fabric) throws FabricException {
            super(fabric, new Info().addrFormat(AddrFormat.SOCKADDR_IN), "domain-ctx");
            engine = ProgressEngine.start(Progress.MANUAL, "jofi-test-domain", step, this::progressFailed);
        }

        @Override
        public io.jofi.Endpoint endpoint(Info info, Object context) throws FabricException {
            throw new FabricException(Errno.ENOSYS, "the test opens its endpoints with open()");
        }

        /** Opens an endpoint (not an io.jofi.Endpoint: only what the failure path needs) through adopt. */
        PendingEndpoint open() throws FabricException {
            ensureOpen("endpoint");
            return adopt(new PendingEndpoint(engine));
        }

        @Override
        protected void onClose() throws FabricException {
            try {
                super.onClose();
            } finally {
                engine.close();
            }
        }
    }

    @Test
    void domainProgressFailureFailsPendingOperationsReportsOnTheEqAndRefusesPosts() throws Exception {
        ProviderResources resources = new ProviderResources();
        UtilFabricDomainTest.TestFabric fabric = new UtilFabricDomainTest.TestFabric(resources);
        FailingDomain d = new FailingDomain(fabric);
        UtilCompletionQueue cq = (UtilCompletionQueue) d.openCq(new CqAttr(), "cq");
        UtilEventQueue eq = (UtilEventQueue) fabric.openEq(new EqAttr(), "eq");
        PendingEndpoint ep = d.open();
        ep.bindings.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.bindings.bind(eq, 0);
        assertEquals(0, ep.post("pending-recv"), "a post before the failure");

        d.step.armed = true;
        CqEntry[] buf = {new CqEntry()};
        assertEquals(-Errno.EAVAIL, cq.read(buf, 1), "the read that drove the failing step finds the error at once");
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertEquals("pending-recv", e.context(), "the pending operation completed");
        assertEquals(Errno.EIO, e.err(), "with EIO");

        EqErrEntry ev = new EqErrEntry();
        assertEquals(1, eq.readErr(ev, 0), "an error event on the endpoint's EQ");
        assertSame(d, ev.fid(), "the domain failed");
        assertEquals(Errno.EIO, ev.err());
        assertNotNull(ev.errData());
        String why = new String(ev.errData(), 0, ev.errDataSize(), StandardCharsets.UTF_8);
        assertTrue(why.contains(d.step.boom.getMessage()), "errData names the cause: " + why);
        assertTrue(eq.strerror(ev.provErrno(), ev.errData()).contains(Errno.strerror(Errno.EIO)));

        assertEquals(-Errno.EIO, ep.post("later"), "posts after the failure answer -EIO");
        FabricException ex = assertThrows(FabricException.class, () -> d.openCq(null, null));
        assertEquals(Errno.EIO, ex.errno(), "control calls on the failed domain throw EIO");
        assertTrue(ex.getMessage().contains(d.step.boom.getMessage()), ex.getMessage());
        assertTrue(ep.toString().endsWith("[failed]"), ep.toString());

        ep.close();
        cq.close();
        eq.close();
        d.close();
        fabric.close();
        assertEquals(0, resources.size(), "everything closes as usual after the failure");
    }
}
