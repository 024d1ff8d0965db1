package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;

/**
 * The live counters of a completion or event queue: entries written, error entries by errno
 * class (canceled, truncated, connection lost or refused, other), the depth's high-water mark
 * and overruns.
 */
final class CompletionCounters {
    final CounterGroup group;
    final StatsCounter written;
    final StatsCounter canceled;
    final StatsCounter truncated;
    final StatsCounter connection;
    final StatsCounter otherErrors;
    final StatsCounter depthHighWater;
    final StatsCounter overruns;

    CompletionCounters(int typeId, String owner, String entries) {
        group = new CounterGroup(StatsFile.process(), typeId, owner);
        written = group.counter(entries + " written");
        canceled = group.counter("errors canceled");
        truncated = group.counter("errors truncated");
        connection = group.counter("errors connection");
        otherErrors = group.counter("errors other");
        depthHighWater = group.counter("depth high-water mark");
        overruns = group.counter("overruns");
    }

    /** An error entry of errno {@code err} (positive) was written. */
    void error(int err) {
        errorCounter(err).increment();
    }

    private StatsCounter errorCounter(int err) {
        switch (err) {
            case Errno.ECANCELED:
                return canceled;
            case Errno.ETRUNC:
                return truncated;
            case Errno.ECONNRESET, Errno.ECONNREFUSED, Errno.ECONNABORTED, Errno.ENOTCONN, Errno.EHOSTUNREACH,
                 Errno.ETIMEDOUT, Errno.EIO, Errno.ENODEV:
                return connection;
            default:
                return otherErrors;
        }
    }
}
