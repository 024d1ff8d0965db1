package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;

/**
 * The live counters of a completion or event queue: entries written, error entries by errno
 * class (canceled, truncated, connection lost or refused, unknown source, other), the depth's high-water mark
 * and overruns. An event queue writes them under its lock (one writer); a completion queue
 * is written by many threads at once, so there "entries written" is the ring's producer
 * index, the mark rises by CAS and the errors and overruns (never a successful entry) are
 * atomic adds ({@link #sharedError}).
 */
final class CompletionCounters {
    final CounterGroup group;
    final StatsCounter written;
    final StatsCounter canceled;
    final StatsCounter truncated;
    final StatsCounter connection;
    /** {@code FI_SOURCE_ERR}'s entries: a message from an address the AV does not hold (an RDM server's first message from each new client). */
    final StatsCounter unknownSource;
    final StatsCounter otherErrors;
    final StatsCounter depthHighWater;
    final StatsCounter overruns;

    /**
     * The owner label of a queue of {@code kind} ({@code CompletionQueue}, {@code EventQueue})
     * that {@code provider}'s fabric or domain opened: {@code <provider>/<kind> <n>} (a CQ of
     * tcp's RDM endpoints is tcp's, though the util layer made it). A queue opened otherwise is
     * labelled by the package of its opener ({@link CounterGroup#ownerLabel(String, Class)},
     * called from its constructor: the stack walk skips the queue's own frames only).
     */
    static String owner(String provider, String kind) {
        return provider + "/" + kind + " " + CounterGroup.nextNumber();
    }

    CompletionCounters(int typeId, String owner, String entries) {
        group = new CounterGroup(StatsFile.process(), typeId, owner);
        written = group.counter(entries + " written");
        canceled = group.counter("errors canceled");
        truncated = group.counter("errors truncated");
        connection = group.counter("errors connection");
        unknownSource = group.counter("errors unknown source");
        otherErrors = group.counter("errors other");
        depthHighWater = group.counter("depth high-water mark");
        overruns = group.counter("overruns");
    }

    /** An error entry of errno {@code err} (positive) was written (one writer: the event queue's lock). */
    void error(int err) {
        errorCounter(err).increment();
    }

    /** An error entry of errno {@code err} (positive) was written by one of several writers (a completion queue). */
    void sharedError(int err) {
        errorCounter(err).addShared();
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
            case Errno.EADDRNOTAVAIL:
                return unknownSource;
            default:
                return otherErrors;
        }
    }
}
