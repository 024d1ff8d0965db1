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

    private final PrintStream err;
    private final String name;
    private long next;
    private int size;

    /** A progress line on {@code err}; none when {@code err} is null (a silent run). */
    ProgressLine(PrintStream err, String name) {
        this.err = err;
        this.name = name;
    }

    /** Starts a size: the first line comes after {@link #INTERVAL_NANOS}. */
    void start(int size) {
        this.size = size;
        this.next = System.nanoTime() + INTERVAL_NANOS;
    }

    /** Iteration {@code i} of {@code total} (warm-up included). */
    void tick(long i, long total) {
        if ((i & 63) == 0 && err != null) {
            long now = System.nanoTime();
            if (now - next > 0) {
                next = now + INTERVAL_NANOS;
                err.println(name + ": " + PerfReport.sizeText(size) + " bytes: " + i + "/" + total + " iterations");
            }
        }
    }
}
