package io.jofi.provider.shm;

import java.util.concurrent.TimeUnit;

/**
 * When an endpoint looks at its peers' life and progress, and whether a peer made progress
 * (provider-shm/README.md "Failure model"). The look itself — the region state and the owner's pid and start
 * time, a read of {@code /proc/<pid>/stat} — is the endpoint's ({@code Peer.link.peerGone});
 * this class keeps it off the data path:
 *
 * <ul>
 * <li>peers with something pending (queued, awaiting an answer, a message half received) are
 *     looked at every {@value #WATCHED_MILLIS} ms;</li>
 * <li>every peer whose region is mapped every {@code peerCheckMillis}, pending or not: a peer
 *     that died while idle is found within that time (plus a progress pass);</li>
 * <li>the clock is read only on passes that may need it: when something is watched, on every
 *     64th pass of a spinning reader, and before the progress sleeps ({@link #clockWanted}).</li>
 * </ul>
 *
 * <p><b>Progress of a live peer.</b> A watched peer made progress when it consumed every ring
 * record that was there at the previous look (its ring head reached the tail seen then), or
 * sent us a record since. A peer without progress for {@code progressTimeoutMillis} is
 * {@link #stalled} (a stopped or hung process): its operations fail with {@code ETIMEDOUT}.
 * A peer that consumed our record and waits for its application (a receive to match) is not
 * stalled while it runs; a peer whose process the kernel shows stopped ({@code /proc/<pid>/stat}
 * state T or t) at every look for {@code progressTimeoutMillis} is, whatever it consumed before.
 * Not thread-safe: the endpoint's lock guards it.
 */
final class PeerLiveness {
    /** How often peers with pending operations are looked at. */
    static final long WATCHED_MILLIS = 50;
    private static final long WATCHED_NANOS = TimeUnit.MILLISECONDS.toNanos(WATCHED_MILLIS);

    private final long idleNanos;
    private final long stallNanos;
    private long lastWatched;
    private long lastIdle;
    private int passes;

    /**
     * @param peerCheckMillis       how often every mapped peer is looked at
     * @param progressTimeoutMillis how long a watched peer may make no progress; 0 = for ever
     */
    PeerLiveness(long peerCheckMillis, long progressTimeoutMillis) {
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, peerCheckMillis));
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, progressTimeoutMillis));
        long now = System.nanoTime();
        this.lastWatched = now;
        this.lastIdle = now;
    }

    /** Whether this progress pass reads the clock: when something is watched, else on every 64th pass. */
    boolean clockWanted(boolean watched) {
        return watched || (++passes & 63) == 0;
    }

    /** Whether the watched peers are due for a look at {@code now} (then the next one is timed from now). */
    boolean watchedDue(long now) {
        if (now - lastWatched < WATCHED_NANOS) {
            return false;
        }
        lastWatched = now;
        return true;
    }

    /** Whether every mapped peer is due for a look at {@code now}. */
    boolean allDue(long now) {
        if (now - lastIdle < idleNanos) {
            return false;
        }
        lastIdle = now;
        lastWatched = now;
        return true;
    }

    /**
     * Whether watched peer {@code p} made no progress for the progress timeout (see the class
     * comment), or its process has been stopped ({@code stopped}: the kernel's word) at every
     * look for longer than that — what it consumed before it stopped does not count then, since
     * an answer it owes (an acknowledgement, a read response, a match) cannot come while it is
     * stopped. False when the bound is off. The first look at a peer only starts its clocks.
     */
    boolean stalled(Peer p, long now, boolean stopped) {
        if (stallNanos == 0 || p.link == null) {
            return false;
        }
        if (!stopped) {
            p.stoppedSince = 0;
        } else if (p.stoppedSince == 0) {
            p.stoppedSince = now;
        } else if (now - p.stoppedSince > stallNanos) {
            return true;
        }
        long head = p.link.consumedHead();
        if (head - p.stallMark >= 0 || p.activity != p.activitySeen || p.progressAt == 0) {
            p.stallMark = p.link.claimedTail();
            p.activitySeen = p.activity;
            p.progressAt = now;
            return false;
        }
        return now - p.progressAt > stallNanos;
    }

    /** Whether a look at a watched peer asks the kernel whether its process is stopped: only when the bound is on. */
    boolean watchesStops() {
        return stallNanos != 0;
    }

    /** A watched peer's clock restarts when it becomes watched again (it was idle, not stalled). */
    static void unwatched(Peer p) {
        p.progressAt = 0;
        p.stoppedSince = 0;
    }
}
