package io.jofi.spi.util;

import java.util.concurrent.TimeUnit;

/**
 * A warning about a recurring failure said once per episode, not once per failure, through
 * {@link SafeLog} (it never throws): one {@code WARNING} when the first failure of an episode
 * comes, one line when the episode is over — no failure for {@code quietMillis} — with how many
 * failures it held and for how long. A warning the logger could not take (out of descriptors)
 * is said at the end of its episode instead, and the end is said again at the next tick until
 * the logger takes it, so no episode goes unreported. Thread-safe; nothing is allocated unless
 * something is logged.
 */
public final class EpisodeWarning {
    private final System.Logger logger;
    private final String subject;
    private final String consequence;
    private final long quietNanos;
    /** Guarded by this. */
    private boolean inEpisode;
    private long started;
    private long lastFailure;
    private long failures;
    private String firstCause;
    private boolean startSaid;

    /**
     * @param logger      where to say it
     * @param subject     what failed, e.g. {@code "tcp: accept failed"}
     * @param consequence what happens meanwhile, appended to the first warning (may be empty)
     * @param quietMillis how long without a failure ends an episode
     */
    public EpisodeWarning(System.Logger logger, String subject, String consequence, long quietMillis) {
        this.logger = logger;
        this.subject = subject;
        this.consequence = consequence;
        this.quietNanos = TimeUnit.MILLISECONDS.toNanos(quietMillis);
    }

    /**
     * It failed again at {@code nowNanos} ({@link System#nanoTime()}) for {@code cause}: the first
     * failure of an episode is said, later ones are only counted.
     */
    public void failed(long nowNanos, String cause) {
        synchronized (this) {
            lastFailure = nowNanos;
            failures++;
            if (inEpisode) {
                return;
            }
            inEpisode = true;
            started = nowNanos;
            failures = 1;
            firstCause = cause;
        }
        boolean said = SafeLog.log(logger, System.Logger.Level.WARNING, subject + " (" + cause + ")" + consequence, null);
        synchronized (this) {
            startSaid = said;
        }
    }

    /**
     * Ends the episode when it has been quiet long enough at {@code nowNanos}, saying so; call it
     * regularly (e.g. from a progress loop's ticker).
     */
    public void tick(long nowNanos) {
        String line;
        System.Logger.Level level;
        long last;
        synchronized (this) {
            if (!inEpisode || nowNanos - lastFailure < quietNanos) {
                return;
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(lastFailure - started);
            line = subject + " " + failures + (failures == 1 ? " time" : " times") + " in " + ms + " ms; none for "
                    + TimeUnit.NANOSECONDS.toMillis(quietNanos) + " ms now"
                    + (startSaid ? "" : " (the first, " + firstCause + ", could not be logged when it came)");
            level = startSaid ? System.Logger.Level.INFO : System.Logger.Level.WARNING;
            last = lastFailure;
        }
        if (SafeLog.log(logger, level, line, null)) {
            synchronized (this) {
                inEpisode = lastFailure != last; // a failure meanwhile: the episode goes on
            }
        }
    }
}
