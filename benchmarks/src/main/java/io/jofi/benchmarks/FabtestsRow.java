package io.jofi.benchmarks;

import java.util.Arrays;
import java.util.Locale;

/** fabtests' result table as the C tools print it, so compare scripts parse every tool alike. */
final class FabtestsRow {
    /** The most timed rounds a baseline keeps for {@link #printMedian} (8 bytes each). */
    static final int MAX_TIMED_ROUNDS = 1 << 26;

    private FabtestsRow() {
    }

    /**
     * Prints the header and one row: {@code bytes iters total time MB/sec usec/xfer Mxfers/sec}
     * with MB/sec = total / µs and Mxfers/sec = 1 / usec/xfer.
     *
     * @param total   bytes moved (ping-pong: 2·iters·size, as fi_pingpong)
     * @param usec    the timed interval in µs
     * @param perXfer µs per transfer (ping-pong: half the round trip)
     */
    static void print(int size, long iters, double total, double usec, double perXfer) {
        usec = Math.max(1e-3, usec);
        System.out.printf(Locale.ROOT, "%-8s%-8s%-8s%8s %10s%13s%13s%n", "bytes", "iters", "total", "time",
                "MB/sec", "usec/xfer", "Mxfers/sec");
        System.out.printf(Locale.ROOT, "%-8d%-8d%-8.0f%8.2fs%10.2f%11.3f%11.2f%n", size, iters, total,
                usec / 1e6, total / usec, perXfer, 1.0 / perXfer);
    }

    /**
     * Prints the median one-way latency of the timed rounds in the form of
     * {@code ./jofi pingpong --percentiles} ({@code SIZE lat p50 X usec/xfer}) and with its rank
     * rule (the ⌈n/2⌉-th smallest), so the compare scripts read every contender's median alike
     * and compare a median with a median, not with a mean.
     *
     * @param roundTrips the round trip of each timed round in ns (sorted in place)
     */
    static void printMedian(int size, long[] roundTrips) {
        Arrays.sort(roundTrips);
        int n = roundTrips.length;
        int rank = Math.max(0, Math.min(n - 1, (int) Math.ceil(0.5 * n) - 1));
        System.out.printf(Locale.ROOT, "%-8d%-8s p50 %.2f usec/xfer%n", size, "lat", roundTrips[rank] / 1000.0 / 2);
    }
}
