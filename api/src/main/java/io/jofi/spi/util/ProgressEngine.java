package io.jofi.spi.util;

import io.jofi.Progress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a provider's progress function, written once, in either progress mode:
 * <ul>
 * <li>{@link Progress#AUTO}: on a thread of its own, which calls the step with a blocking
 *     timeout so that it sleeps in the provider's I/O wait (a selector, a doorbell) when
 *     there is nothing to do;</li>
 * <li>{@link Progress#MANUAL}: inside the application's calls on CQs, counters, EQs and
 *     endpoints, which call {@link #drive()} (non-blocking) — and, in blocking reads,
 *     {@link #await(long)}.</li>
 * </ul>
 * The step never runs on two threads at once (single-writer principle): a thread that finds
 * another one progressing skips rather than waits, so a provider's progress state needs no
 * lock of its own.
 */
public final class ProgressEngine implements AutoCloseable {

    /** A provider's progress function. */
    public interface Step {
        /**
         * Moves data: one pass over the provider's transports. With {@code timeoutNanos > 0}
         * it may block up to that long waiting for I/O when it finds nothing to do.
         *
         * @return how much work was done (0 when nothing)
         */
        int progress(long timeoutNanos);

        /** Makes a {@link #progress} blocked in its I/O wait return soon (e.g. {@code Selector.wakeup()}). */
        void wakeup();
    }

    /** How long the auto-progress thread sleeps in one step when idle (it is woken on close). */
    static final long AUTO_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Progress mode;
    private final Step step;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    private ProgressEngine(Progress mode, Step step, String threadName) {
        this.mode = mode;
        this.step = step;
        if (mode == Progress.AUTO) {
            thread = new Thread(this::runAuto, threadName);
            thread.setDaemon(true);
            thread.start();
        } else {
            thread = null;
        }
    }

    /**
     * Starts an engine. {@code Progress.UNSPEC} means {@code AUTO} (the default of API.md).
     *
     * @param threadName the name of the auto-progress thread (e.g. {@code jofi-tcp-progress-1})
     */
    public static ProgressEngine start(Progress mode, String threadName, Step step) {
        Objects.requireNonNull(step, "step");
        Progress m = mode == null || mode == Progress.UNSPEC ? Progress.AUTO : mode;
        return new ProgressEngine(m, step, threadName);
    }

    /** {@code AUTO} or {@code MANUAL}. */
    public Progress mode() {
        return mode;
    }

    /** Whether the application's calls must drive progress. */
    public boolean isManual() {
        return mode == Progress.MANUAL;
    }

    /**
     * Called at the top of the application's data-path calls: one non-blocking progress pass
     * in manual mode; nothing in auto mode. Never blocks.
     *
     * @return the work done, 0 if none or skipped
     */
    public int drive() {
        if (mode != Progress.MANUAL || !running) {
            return 0;
        }
        return runStep(0L);
    }

    /**
     * Called by a blocking read in manual mode: one progress pass that may block up to
     * {@code nanos} in the provider's I/O wait. In auto mode, or when another thread is
     * progressing, it does not block (the caller waits on its queue's wait object instead).
     *
     * @return the work done, or -1 when it could not progress (another thread is)
     */
    public int await(long nanos) {
        if (mode != Progress.MANUAL || !running) {
            return -1;
        }
        if (!busy.compareAndSet(false, true)) {
            return -1;
        }
        try {
            return step.progress(nanos);
        } finally {
            busy.set(false);
        }
    }

    /** Wakes a thread blocked in the step ({@link #await} or the auto thread). */
    public void wakeup() {
        step.wakeup();
    }

    /** The exception that stopped the auto thread, if one did. */
    public Throwable failure() {
        return failure;
    }

    /** Whether the engine is running. */
    public boolean isRunning() {
        return running;
    }

    /** The auto-progress thread, or {@code null} in manual mode (for tests that prove it ends). */
    public Thread thread() {
        return thread;
    }

    private int runStep(long timeoutNanos) {
        if (!busy.compareAndSet(false, true)) {
            return 0;
        }
        try {
            return step.progress(timeoutNanos);
        } finally {
            busy.set(false);
        }
    }

    private void runAuto() {
        try {
            while (running) {
                if (busy.compareAndSet(false, true)) {
                    try {
                        step.progress(AUTO_IDLE_NANOS);
                    } finally {
                        busy.set(false);
                    }
                } else {
                    Thread.onSpinWait();
                }
            }
        } catch (Throwable t) {
            // A progress step must not throw; if it does the provider is broken. Keep the
            // cause for the provider to report (it fails its objects with EIO) and stop.
            failure = t;
            running = false;
        }
    }

    /**
     * Stops the engine: the auto thread is woken and joined (bounded), so that no thread of
     * the provider outlives it (R15). Idempotent.
     */
    @Override
    public void close() {
        running = false;
        if (thread != null && thread != Thread.currentThread()) {
            step.wakeup();
            boolean interrupted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (thread.isAlive() && System.nanoTime() < deadline) {
                try {
                    thread.join(100);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                step.wakeup();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                throw new IllegalStateException("progress thread " + thread.getName() + " did not stop within 10 s");
            }
        }
    }
}
