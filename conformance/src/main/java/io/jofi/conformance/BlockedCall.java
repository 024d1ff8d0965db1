package io.jofi.conformance;

import java.util.function.IntSupplier;

/**
 * A blocking data-path call ({@code sread}, {@code await}, ...) run on its own thread, so
 * that the test thread can wake it (signal, write, add, interrupt) and then join it under a
 * bound. Records the call's return code and whether the thread's interrupt status was still
 * set when the call returned (R4: "the interrupt status is kept").
 *
 * <p>No test needs to know when the thread has actually blocked: every waking action the
 * kit uses is remembered (a signal while nobody waits, R4; a written event; an interrupt
 * status), so waking before or after the block gives the same outcome.
 */
public final class BlockedCall {
    private final Thread thread;
    private volatile int rc = Integer.MIN_VALUE;
    private volatile boolean interruptedAfter;
    private volatile Throwable thrown;

    private BlockedCall(String name, IntSupplier call) {
        this.thread = new Thread(() -> {
            try {
                rc = call.getAsInt();
                interruptedAfter = Thread.currentThread().isInterrupted();
            } catch (Throwable t) {
                thrown = t;
            }
        }, name);
        thread.setDaemon(true);
    }

    /** Starts {@code call} on a new daemon thread named {@code name}. */
    public static BlockedCall start(String name, IntSupplier call) {
        BlockedCall c = new BlockedCall(name, call);
        c.thread.start();
        return c;
    }

    /** Interrupts the calling thread (the Java "signal from an external source", R4). */
    public void interrupt() {
        thread.interrupt();
    }

    /**
     * Waits (bounded) for the call to return and gives its return code; fails naming
     * {@code expected} if it does not return in time or threw.
     */
    public int join(Await await, String expected) {
        await.join(thread, expected);
        if (thrown != null) {
            throw new AssertionError(expected + ": the call threw " + thrown, thrown);
        }
        return rc;
    }

    /** Whether the thread's interrupt status was set when the call returned. */
    public boolean interruptedAfter() {
        return interruptedAfter;
    }
}
