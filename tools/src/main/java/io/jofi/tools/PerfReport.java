package io.jofi.tools;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * fabtests' result table: the header {@code bytes iters total time MB/sec usec/xfer Mxfers/sec}
 * and one row per size in fabtests' format (sizes and totals as {@code 64}, {@code 1k},
 * {@code 1.5m}; counts as {@code 10k}); with {@code -m} fabtests' machine-readable lines
 * ({@code - { xfer_size: ..., iterations: ..., ... }}); with {@code --percentiles} a percentile line
 * (p50, p99, p99.9 of the one-way latency: half the round trip of each timed iteration).
 */
public final class PerfReport {
    private final PrintStream out;
    private final boolean machine;
    private final boolean percentiles;
    private final String commandLine;
    private final String name;
    private boolean headerDone;

    public PerfReport(PrintStream out, boolean machine, boolean percentiles, String commandLine, String name) {
        this.out = out;
        this.machine = machine;
        this.percentiles = percentiles;
        this.commandLine = commandLine;
        this.name = name;
    }

    boolean percentilesWanted() {
        return percentiles;
    }

    /**
     * One row: {@code iterations} timed iterations of {@code xfersPerIteration} transfers of
     * {@code size} bytes in {@code elapsedNanos}. Pingpong: 2 transfers (MB/sec =
     * 2·iters·size / µs, usec/xfer = half the round trip); bw: the window.
     */
    public void row(int size, long iterations, int xfersPerIteration, long elapsedNanos) {
        long total = (long) xfersPerIteration * iterations * size;
        double usec = elapsedNanos / 1000;
        if (usec <= 0) {
            usec = 1; // a timer too coarse for the run: avoid a division by zero, as the C peer does
        }
        double perXfer = usec / iterations / xfersPerIteration;
        if (machine) {
            if (!headerDone) {
                out.println("---");
                out.println("jofi " + name + " " + commandLine + " :");
                headerDone = true;
            }
            out.printf(Locale.ROOT, "- { xfer_size: %d, iterations: %d, total: %d, time: %f, MB/sec: %f, usec/xfer: %f, Mxfers/sec: %f }%n",
                    size, iterations, total, usec / 1_000_000.0, total / usec, perXfer, 1.0 / perXfer);
        } else {
            if (!headerDone) {
                out.printf(Locale.ROOT, "%-8s%-8s%-8s%8s %10s%13s%13s%n", "bytes", "iters", "total", "time",
                        "MB/sec", "usec/xfer", "Mxfers/sec");
                headerDone = true;
            }
            out.printf(Locale.ROOT, "%-8s%-8s%-8s%8.2fs%10.2f%11.2f%11.2f%n", sizeText(size), countText(iterations),
                    sizeText(total), usec / 1_000_000.0, total / usec, perXfer, 1.0 / perXfer);
        }
        out.flush();
    }

    /**
     * The percentile line of one size: {@code samples[0, n)} are round-trip (pingpong) or
     * per-window (bw) times in ns, {@code divisor} the transfers they cover. Sorts the array.
     */
    void percentiles(int size, long[] samples, int n, int divisor) {
        if (n == 0) {
            return;
        }
        Arrays.sort(samples, 0, n);
        double p50 = samples[index(n, 0.50)] / 1000.0 / divisor;
        double p99 = samples[index(n, 0.99)] / 1000.0 / divisor;
        double p999 = samples[index(n, 0.999)] / 1000.0 / divisor;
        double max = samples[n - 1] / 1000.0 / divisor;
        // the tail a mean carries: iterations that took a millisecond or more (a lost core)
        int stalls = 0;
        for (int i = n - 1; i >= 0 && samples[i] >= STALL_NANOS; i--) {
            stalls++;
        }
        if (machine) {
            out.printf(Locale.ROOT, "  # latency { xfer_size: %d, p50_usec: %f, p99_usec: %f, p99.9_usec: %f, max_usec: %f, iters_over_1ms: %d }%n",
                    size, p50, p99, p999, max, stalls);
        } else {
            out.printf(Locale.ROOT, "%-8s%-8s p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f usec/xfer, %d iterations >= 1 ms%n",
                    sizeText(size), "lat", p50, p99, p999, max, stalls);
        }
        out.flush();
    }

    /** An iteration at least this long (ns) counts as a stall in the percentile line. */
    static final long STALL_NANOS = 1_000_000L;

    /** The nearest-rank index of percentile {@code p} in {@code n} sorted samples. */
    static int index(int n, double p) {
        int rank = (int) Math.ceil(p * n);
        return Math.max(0, Math.min(n - 1, rank - 1));
    }

    /** fabtests' size_str: 64, 1k, 1.5k, 64k, 1m (tenths only below 10 units). */
    static String sizeText(long size) {
        long base = 1;
        String mag = "";
        if (size >= (1L << 30)) {
            base = 1L << 30;
            mag = "g";
        } else if (size >= (1L << 20)) {
            base = 1L << 20;
            mag = "m";
        } else if (size >= (1L << 10)) {
            base = 1L << 10;
            mag = "k";
        }
        long whole = size / base;
        long tenth = whole < 10 ? (size % base) * 10 / base : 0;
        return tenth != 0 ? whole + "." + tenth + mag : whole + mag;
    }

    /** fabtests' cnt_str: 10k, 1m, 100. */
    static String countText(long n) {
        if (n >= 1_000_000_000L) {
            return n / 1_000_000_000L + "b";
        }
        if (n >= 1_000_000L) {
            return n / 1_000_000L + "m";
        }
        if (n >= 1000L) {
            return n / 1000L + "k";
        }
        return Long.toString(n);
    }
}
