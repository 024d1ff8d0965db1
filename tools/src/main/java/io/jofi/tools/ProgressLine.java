package io.jofi.tools;

import java.io.PrintStream;

/**
 * The progress line on stderr for long runs: nothing during the first few seconds of a size,
 * then one line every few seconds. {@link #tick} reads the clock only every 64th iteration,
 * so the timed loop pays one branch per iteration; printing (the only allocation) happens at
 * most once per interval.
 */
final class ProgressLine {
    static final long INTERVAL_NANOS = 3_000_000_000L;
    /**
     * The interval of the JIT warm-up's line ({@link #forWarmUp}): short, so that the warm-up
     * takes the printing branch of {@link #tick} too and the compiled code has it.
     */
    static final long WARM_UP_INTERVAL_NANOS = 20_000_000L;
    private static final PrintStream NOWHERE = new PrintStream(java.io.OutputStream.nullOutputStream());

    private final PrintStream err;
    private final String name;
    private final long intervalNanos;
    private long next;
    private int size;

    /** A progress line on {@code err} every {@link #INTERVAL_NANOS}. */
    ProgressLine(PrintStream err, String name) {
        this(err, name, INTERVAL_NANOS);
    }

    private ProgressLine(PrintStream err, String name, long intervalNanos) {
        this.err = err;
        this.name = name;
        this.intervalNanos = intervalNanos;
    }

    /**
     * The JIT warm-up's line: printed nowhere, but through the same code as the measured
     * run's (a silent line that skipped the branches would leave them out of the compiled
     * code, and the measured run would deoptimize it at its first line).
     */
    static ProgressLine forWarmUp(String name) {
        return new ProgressLine(NOWHERE, name, WARM_UP_INTERVAL_NANOS);
    }

    /** Starts a size: the first line comes after one interval. */
    void start(int size) {
        this.size = size;
        this.next = System.nanoTime() + intervalNanos;
    }

    /**
     * Iteration {@code i} of {@code total} (warm-up included).
     *
     * @return whether a line was printed (the caller's next timing starts after it)
     */
    boolean tick(long i, long total) {
        return (i & 63) == 0 && due(i, total);
    }

    /**
     * Iteration {@code i} of {@code total}, the clock read at every call: for callers that call
     * once per window of messages, not per message.
     *
     * @return whether a line was printed (the caller's next timing starts after it)
     */
    boolean due(long i, long total) {
        long now = System.nanoTime();
        if (now - next > 0) {
            next = now + intervalNanos;
            err.println(name + ": " + PerfReport.sizeText(size) + " bytes: " + i + "/" + total + " iterations");
            return true;
        }
        return false;
    }
}
