package io.jofi.provider.tcp;

/**
 * One connection's progress clock for the progress timeout ({@link TcpSettings#progressTimeout}):
 * how long it has been waiting for its peer without a byte moving either way. Fed by
 * {@link ProgressWatchdog} on the domain's progress thread under the connection's lock.
 *
 * <p>The clock counts only time this side watched: a gap between checks longer than
 * {@link #maxGapNanos} (a manual-progress application that did not drive progress for a while)
 * restarts it, so a peer is never blamed for bytes this side did not read.
 */
final class StallWatch {
    private long mark;
    private long since;
    private long lastCheck;

    /**
     * @param progressMark bytes moved so far (received + sent)
     * @param waiting      whether the connection waits for its peer (operations pending)
     * @param now          {@code System.nanoTime()}
     * @param timeoutNanos the progress timeout
     * @return whether it has waited with no byte moved for the whole timeout
     */
    boolean stalled(long progressMark, boolean waiting, long now, long timeoutNanos) {
        boolean watched = now - lastCheck <= maxGapNanos(timeoutNanos);
        lastCheck = now;
        if (!waiting || progressMark != mark || !watched) {
            mark = progressMark;
            since = now;
            return false;
        }
        return now - since >= timeoutNanos;
    }

    /** The longest gap between checks that still counts as watching: a quarter of the timeout, at least 1 s. */
    static long maxGapNanos(long timeoutNanos) {
        return Math.max(1_000_000_000L, timeoutNanos / 4);
    }
}
