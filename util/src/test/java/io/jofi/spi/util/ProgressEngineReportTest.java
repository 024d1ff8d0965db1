package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Progress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's own report of a failed step cannot end its thread (README "Failure model"): out of
 * descriptors, the JVM's first log record threw ({@code NoClassDefFoundError} of the formatter's
 * time-zone data) out of the engine's failure path, outside the step's {@code try}, and the thread
 * died with the failure never handed to the provider. Here the engine's real
 * {@code System.Logger} (java.util.logging) gets a handler that throws that error, as the
 * formatter did; the failure handler that throws the first time is called again.
 */
@Timeout(30)
class ProgressEngineReportTest {
    private final Logger jul = Logger.getLogger(ProgressEngine.class.getName());
    private final ThrowingHandler throwing = new ThrowingHandler();

    /** A log handler that fails as the formatter did without descriptors, while {@link #failing}. */
    static final class ThrowingHandler extends Handler {
        volatile boolean failing = true;
        final AtomicInteger published = new AtomicInteger();

        @Override
        public void publish(LogRecord r) {
            if (failing) {
                throw new NoClassDefFoundError("Could not initialize class sun.util.calendar.ZoneInfoFile");
            }
            published.incrementAndGet();
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    @BeforeEach
    void throwingLogger() {
        jul.addHandler(throwing);
        jul.setUseParentHandlers(false);
    }

    @AfterEach
    void restoreLogger() {
        jul.removeHandler(throwing);
        jul.setUseParentHandlers(true);
    }

    @Test
    void autoThreadSurvivesALoggerThatThrowsAndReportsOnceItCan() throws Exception {
        ProgressFailureTest.ThrowingStep step = new ProgressFailureTest.ThrowingStep();
        AtomicInteger handled = new AtomicInteger();
        AtomicReference<Throwable> uncaught = new AtomicReference<>();
        ProgressEngine engine = ProgressEngine.start(Progress.AUTO, "jofi-test-report", step,
                (e, t) -> handled.incrementAndGet());
        engine.thread().setUncaughtExceptionHandler((t, e) -> uncaught.set(e));
        try {
            step.armed = true;
            awaitTrue(() -> handled.get() == 1, "the failure reached the provider although the log call threw");
            assertSame(step.boom, engine.failure());
            assertFalse(engine.isRunning());
            Thread.sleep(300);
            assertTrue(engine.thread().isAlive(), "the thread stays to log it once the logger works again");
            throwing.failing = false;
            awaitTrue(() -> throwing.published.get() == 1, "logged once the logger took records again");
            engine.thread().join(2_000);
            assertFalse(engine.thread().isAlive(), "then the thread ends");
            assertNull(uncaught.get(), "nothing escaped the thread");
            assertEquals(1, handled.get(), "the handler is called once when it returns");
        } finally {
            engine.close();
        }
    }

    @Test
    void aHandlerThatThrowsIsCalledAgainUntilItReports() throws Exception {
        throwing.failing = false;
        ProgressFailureTest.ThrowingStep step = new ProgressFailureTest.ThrowingStep();
        AtomicInteger calls = new AtomicInteger();
        ProgressEngine auto = ProgressEngine.start(Progress.AUTO, "jofi-test-report-handler", step, (e, t) -> {
            if (calls.incrementAndGet() < 3) {
                throw new NoClassDefFoundError("io/jofi/SomethingNotLoadedYet"); // as a class load without descriptors
            }
        });
        try {
            step.armed = true;
            awaitTrue(() -> calls.get() == 3, "called again until it returned");
            auto.thread().join(2_000);
            assertFalse(auto.thread().isAlive());
            Thread.sleep(300);
            assertEquals(3, calls.get(), "not after it returned");
        } finally {
            auto.close();
        }

        ProgressFailureTest.ThrowingStep manualStep = new ProgressFailureTest.ThrowingStep();
        AtomicInteger manualCalls = new AtomicInteger();
        ProgressEngine manual = ProgressEngine.start(Progress.MANUAL, "jofi-test-report-manual", manualStep, (e, t) -> {
            if (manualCalls.incrementAndGet() == 1) {
                throw new NoClassDefFoundError("io/jofi/SomethingNotLoadedYet");
            }
        });
        try {
            manualStep.armed = true;
            assertEquals(0, manual.drive(), "nothing escapes the application's call");
            assertEquals(1, manualCalls.get());
            assertEquals(0, manual.drive());
            assertEquals(2, manualCalls.get(), "the next drive reports again");
            assertEquals(0, manual.drive());
            assertEquals(2, manualCalls.get(), "and not once it returned");
        } finally {
            manual.close();
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what);
            }
            Thread.sleep(5);
        }
    }
}
