package io.jofi.provider.tcp;

import io.jofi.spi.util.EpisodeWarning;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The deadlines of a fabric's connection management, checked after every pass of its CM loop
 * (at least every 100 ms): an accepted socket whose connection request has not arrived whole
 * within the connection-setup timeout ({@link TcpSettings#connectionSetupTimeout}) is closed
 * (half-open and slowloris connections cannot hold descriptors), and a listener whose
 * {@code accept} failed (e.g. {@code EMFILE}: the process is out of file descriptors) stops
 * selecting {@code OP_ACCEPT} for {@link #ACCEPT_BACKOFF_MS} instead of spinning on a readiness
 * it cannot serve — the pending connections wait in the kernel's backlog meanwhile. Failed
 * accepts are said once per episode ({@link EpisodeWarning}: a warning when the first fails, a
 * line when none failed for {@link #ACCEPT_QUIET_MS}); the log call can never end the CM thread.
 */
final class ConnectionSetupTimer implements Runnable {
    /** How long a listener stops accepting after {@code accept} failed. */
    static final long ACCEPT_BACKOFF_MS = 100;
    /** How long accepting must go without a failure for the episode of failures to be over. */
    static final long ACCEPT_QUIET_MS = 1000;

    private static final System.Logger LOG = System.getLogger(ConnectionSetupTimer.class.getName());

    /** A connection set-up in progress that the timer may end. */
    interface Setup {
        /** The deadline passed: close the socket (on the CM loop thread; must not throw). */
        void expire();
    }

    private final long timeoutNanos;
    /** Built with the fabric, so that nothing of it is loaded when the process has no descriptor left. */
    private final EpisodeWarning acceptWarning = new EpisodeWarning(LOG, "tcp: accept failed",
            "; not accepting for " + ACCEPT_BACKOFF_MS + " ms at a time, connections wait in the backlog", ACCEPT_QUIET_MS);
    /** Guarded by this. */
    private final Map<Setup, Long> deadlines = new IdentityHashMap<>();
    /** Listening keys whose OP_ACCEPT is off, with when to turn it back on; guarded by this. */
    private final Map<SelectionKey, Long> paused = new IdentityHashMap<>();
    /** Accept failures seen (tests, diagnostics); guarded by this. */
    private long acceptFailures;

    /** @param timeoutMillis the connection-setup timeout; 0 turns deadlines off */
    ConnectionSetupTimer(long timeoutMillis) {
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMillis));
    }

    /** {@code s} started (an accepted socket whose request is to be read). */
    synchronized void start(Setup s) {
        if (timeoutNanos > 0) {
            deadlines.put(s, System.nanoTime() + timeoutNanos);
        }
    }

    /** {@code s} finished (request read) or ended otherwise: no deadline any more. */
    synchronized void done(Setup s) {
        deadlines.remove(s);
    }

    /** How many set-ups wait for their deadline (tests). */
    synchronized int pending() {
        return deadlines.size();
    }

    /** How many times {@code accept} failed (tests). */
    synchronized long acceptFailures() {
        return acceptFailures;
    }

    /**
     * {@code accept} on {@code listening} failed with {@code cause}: stop selecting
     * {@code OP_ACCEPT} for a while (the readiness stays until a socket is taken, so selecting
     * it again at once would spin) and say so, once per episode.
     */
    void acceptFailed(SelectionKey listening, IOException cause) {
        long now = System.nanoTime();
        synchronized (this) {
            acceptFailures++;
            paused.put(listening, now + TimeUnit.MILLISECONDS.toNanos(ACCEPT_BACKOFF_MS));
        }
        try {
            listening.interestOps(0);
        } catch (RuntimeException closed) {
            return; // the listener was closed meanwhile: nothing to resume
        }
        acceptWarning.failed(now, cause.getMessage());
    }

    /** After every CM pass: expire set-ups past their deadline, resume listeners whose pause ended. */
    @Override
    public void run() {
        List<Setup> expired = null;
        List<SelectionKey> resume = null;
        long now = System.nanoTime();
        acceptWarning.tick(now);
        synchronized (this) {
            if (deadlines.isEmpty() && paused.isEmpty()) {
                return;
            }
            for (Map.Entry<Setup, Long> e : deadlines.entrySet()) {
                if (now - e.getValue() >= 0) {
                    (expired == null ? expired = new ArrayList<>() : expired).add(e.getKey());
                }
            }
            if (expired != null) {
                for (Setup s : expired) {
                    deadlines.remove(s);
                }
            }
            for (Map.Entry<SelectionKey, Long> e : paused.entrySet()) {
                if (now - e.getValue() >= 0) {
                    (resume == null ? resume = new ArrayList<>() : resume).add(e.getKey());
                }
            }
            if (resume != null) {
                for (SelectionKey k : resume) {
                    paused.remove(k);
                }
            }
        }
        if (expired != null) {
            for (Setup s : expired) {
                s.expire();
            }
        }
        if (resume != null) {
            for (SelectionKey k : resume) {
                try {
                    if (k.isValid()) {
                        k.interestOps(SelectionKey.OP_ACCEPT);
                    }
                } catch (RuntimeException closed) {
                    // closed meanwhile
                }
            }
        }
    }
}
