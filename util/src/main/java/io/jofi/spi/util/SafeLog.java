package io.jofi.spi.util;

import java.time.ZoneId;

/**
 * Logs through {@link System.Logger} from threads that must not die of a log call (progress
 * threads, their failure reports): a log call that throws is answered with {@code false}, for
 * the caller to say it again later.
 *
 * <p>A log call can throw: the JVM's first java.util.logging record makes the formatter load
 * time-zone data, which opens a file; out of descriptors ({@code EMFILE}), that class's
 * initializer fails, and every later record throws {@code NoClassDefFoundError}. {@link #prepare()}
 * loads that data while descriptors are there (progress engines call it when they start), so
 * the logging of the whole JVM, not only ours, survives a later exhaustion.
 */
public final class SafeLog {
    private SafeLog() {
    }

    /**
     * Logs {@code message} (with {@code cause}, may be {@code null}) at {@code level}.
     *
     * @return whether the record was handed to the logger without a throwable; {@code false}
     *         when the logger threw (what it threw is dropped: the caller keeps the record to
     *         try again, as {@link EpisodeWarning} does)
     */
    public static boolean log(System.Logger logger, System.Logger.Level level, String message, Throwable cause) {
        try {
            if (cause == null) {
                logger.log(level, message);
            } else {
                logger.log(level, message, cause);
            }
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Loads what a log record's formatting loads lazily from files (the default time zone and
     * its rules), so that it is there once the process has no descriptor left. Cheap after the
     * first call; never throws (if it cannot load them now, a log call will try again).
     */
    public static void prepare() {
        try {
            ZoneId.systemDefault().getRules();
        } catch (Throwable t) {
            // No descriptor now either: the log calls that need it fail, and SafeLog.log says so.
        }
    }
}
