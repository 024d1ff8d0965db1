package io.jofi.provider.rxm;

import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.WaitObject;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.UtilEventQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The connection-event thread of an {@link RxmEndpoint} whose AUTO progress is hosted
 * ({@link ProgressEngine#hosted}): the MSG provider's progress thread runs the endpoint's pass
 * after each of its own, but connection events come from the MSG provider's connection-management
 * thread, which hosts nothing. This thread sleeps on the MSG event queue and runs the pass when an
 * event arrives (a peer's connection request must not wait for the next message), and at least
 * every {@link #IDLE_MS} whatever happened — so that a completion that no host published (none is
 * known; the post paths run the pass for their own) still moves. It is not on the data path: a
 * message wakes the MSG provider's thread and the application's, not this one.
 */
final class RxmEventWaiter {
    /** The longest sleep between two passes. */
    static final long IDLE_MS = 100;
    /** The sleep after a pass that left the event queue ready (its events wait for held ends). */
    private static final long STALLED_MS = 1;

    private final BooleanSupplier enabled;
    private final EventQueue msgEq;
    private final ProgressEngine engine;
    private final Thread thread;

    /**
     * @param enabled whether the endpoint is still enabled (the thread ends when it is not)
     * @param engine  the endpoint's hosted engine, whose pass this thread runs
     */
    RxmEventWaiter(BooleanSupplier enabled, EventQueue msgEq, ProgressEngine engine, String name) {
        this.enabled = enabled;
        this.msgEq = msgEq;
        this.engine = engine;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Waits for the thread to end (it ends once the endpoint is no longer enabled). */
    void join() {
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        WaitObject.MutexCond wait = null;
        try {
            wait = (WaitObject.MutexCond) msgEq.getWait();
        } catch (FabricException | ClassCastException e) {
            // no condition to sleep on: a pass every STALLED_MS instead
        }
        UtilEventQueue eq = msgEq instanceof UtilEventQueue u ? u : null;
        boolean stalled = false;
        while (enabled.getAsBoolean() && engine.isRunning()) {
            try {
                if (wait == null) {
                    Thread.sleep(STALLED_MS);
                } else {
                    wait.mutex().lock();
                    try {
                        if (stalled || eq == null || !eq.isReady(0)) {
                            wait.cond().await(stalled ? STALLED_MS : IDLE_MS, TimeUnit.MILLISECONDS);
                        }
                    } finally {
                        wait.mutex().unlock();
                    }
                }
            } catch (InterruptedException e) {
                return;
            }
            int work = engine.follow();
            stalled = work == 0 && eq != null && eq.isReady(0);
        }
    }
}
