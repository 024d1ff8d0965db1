package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fi;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Bounded waiting: every wait of the kit goes through here, loops over non-blocking reads
 * under a deadline while driving progress (so it works with {@code Progress.MANUAL} as well
 * as {@code AUTO}), and fails with a message that names what it waited for. Nothing here
 * measures or asserts durations; the deadline only keeps a broken provider from hanging the
 * build.
 */
public final class Await {
    private final long timeoutMs;
    private final Runnable progress;
    private final CqEntry[] one = {new CqEntry()};

    /**
     * @param timeoutMs how long any single wait may take before the test fails
     * @param progress  drives progress on every object the test opened (e.g. a zero-count
     *                  read on each CQ): called between attempts
     */
    public Await(long timeoutMs, Runnable progress) {
        this.timeoutMs = timeoutMs;
        this.progress = progress;
    }

    /**
     * The kit's basic wait, for a provider's own tests too: the next successful completion on
     * {@code cq} within {@code timeoutMs}, reading with non-blocking reads (each read drives
     * progress); fails naming the completion if it does not come or an error comes instead.
     */
    public static CqEntry awaitCompletion(CompletionQueue cq, CqEntry entry, long timeoutMs) {
        return new Await(timeoutMs, () -> { }).completion(cq, entry, "a completion on " + cq);
    }

    /** The per-wait bound in milliseconds. */
    public long timeoutMs() {
        return timeoutMs;
    }

    /**
     * Waits for the next successful completion on {@code cq} and copies it into
     * {@code into}. An error completion at the head fails the test with that error's
     * description.
     *
     * @param expected what the test waits for, in words, for the failure message
     */
    public CqEntry completion(CompletionQueue cq, CqEntry into, String expected) {
        return completionFrom(cq, into, null, expected);
    }

    /**
     * As {@link #completion}, reading with {@code readFrom}; {@code srcAddr[0]} receives the
     * sender's {@code fi_addr_t} (R10).
     */
    public CqEntry completionFrom(CompletionQueue cq, CqEntry into, long[] srcAddr, String expected) {
        long deadline = deadline();
        one[0] = into;
        try {
            while (true) {
                int rc = srcAddr == null ? cq.read(one, 1) : cq.readFrom(one, 1, srcAddr);
                if (rc == 1) {
                    return into;
                }
                if (rc == -Errno.EAVAIL) {
                    CqErrEntry err = new CqErrEntry();
                    int erc = cq.readErr(err, 0);
                    fail("waiting for " + expected + ": got an error completion instead: "
                            + (erc == 1 ? err + " (" + Errno.strerror(err.err()) + ")" : "readErr returned " + erc));
                }
                if (rc != -Errno.EAGAIN) {
                    fail("waiting for " + expected + ": read returned " + rc + " (" + Errno.strerror(-rc) + ")");
                }
                pause(deadline, expected);
            }
        } finally {
            one[0] = null;
        }
    }

    /**
     * Waits until {@code cq} reports an error at its head ({@code -EAVAIL}) and takes it with
     * {@code readErr} into {@code into}. A successful completion before it fails the test.
     */
    public CqErrEntry error(CompletionQueue cq, CqErrEntry into, String expected) {
        long deadline = deadline();
        CqEntry[] buf = {new CqEntry()};
        while (true) {
            int rc = cq.read(buf, 1);
            if (rc == -Errno.EAVAIL) {
                int erc = cq.readErr(into, 0);
                if (erc != 1) {
                    fail("waiting for " + expected + ": read returned -EAVAIL but readErr returned " + erc);
                }
                return into;
            }
            if (rc == 1) {
                fail("waiting for " + expected + ": got a successful completion instead: " + buf[0]);
            }
            if (rc != -Errno.EAGAIN) {
                fail("waiting for " + expected + ": read returned " + rc + " (" + Errno.strerror(-rc) + ")");
            }
            pause(deadline, expected);
        }
    }

    /**
     * Reads {@code cq} until it returns something other than {@code -EAGAIN} or the deadline
     * passes, and returns that code (the entry, if any, is in {@code buf[0]}).
     */
    public int anyRead(CompletionQueue cq, CqEntry[] buf, String expected) {
        long deadline = deadline();
        while (true) {
            int rc = cq.read(buf, 1);
            if (rc != -Errno.EAGAIN) {
                return rc;
            }
            pause(deadline, expected);
        }
    }

    /**
     * Waits for the next event on {@code eq}; fails if it is not {@code event} or if an
     * error event is at the head.
     */
    public EqEntry event(EventQueue eq, EqEntry into, int event, String expected) {
        long deadline = deadline();
        while (true) {
            int rc = eq.read(into, 0);
            if (rc == 1) {
                if (into.event() != event) {
                    fail("waiting for " + expected + ": got event " + into.event() + " instead: " + into);
                }
                return into;
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry err = new EqErrEntry();
                int erc = eq.readErr(err, 0);
                fail("waiting for " + expected + ": got an error event instead: "
                        + (erc == 1 ? err + " (" + Errno.strerror(err.err()) + ")" : "readErr returned " + erc));
            }
            if (rc != -Errno.EAGAIN) {
                fail("waiting for " + expected + ": eq read returned " + rc + " (" + Errno.strerror(-rc) + ")");
            }
            pause(deadline, expected);
        }
    }

    /** Waits until {@code eq} has an error event at its head and takes it into {@code into}. */
    public EqErrEntry errorEvent(EventQueue eq, EqErrEntry into, String expected) {
        long deadline = deadline();
        EqEntry entry = new EqEntry();
        while (true) {
            int rc = eq.read(entry, Fi.FI_PEEK);
            if (rc == -Errno.EAVAIL) {
                int erc = eq.readErr(into, 0);
                if (erc != 1) {
                    fail("waiting for " + expected + ": read returned -EAVAIL but readErr returned " + erc);
                }
                return into;
            }
            if (rc == 1) {
                fail("waiting for " + expected + ": got event " + entry.event() + " instead: " + entry);
            }
            if (rc != -Errno.EAGAIN) {
                fail("waiting for " + expected + ": eq read returned " + rc + " (" + Errno.strerror(-rc) + ")");
            }
            pause(deadline, expected);
        }
    }

    /** Drives progress until {@code condition} holds; fails naming {@code expected} at the deadline. */
    public void until(BooleanSupplier condition, String expected) {
        long deadline = deadline();
        while (!condition.getAsBoolean()) {
            pause(deadline, expected);
        }
    }

    /**
     * Joins {@code thread}; if it is still alive at the deadline, interrupts it and fails
     * naming {@code expected}.
     */
    public void join(Thread thread, String expected) {
        try {
            thread.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted while waiting for " + expected);
        }
        if (thread.isAlive()) {
            thread.interrupt();
            fail("timed out after " + timeoutMs + " ms waiting for " + expected);
        }
    }

    /**
     * Drives progress a few rounds without waiting for anything: used before checking that
     * something has NOT happened (e.g. that a send with {@code FI_MATCH_COMPLETE} has not
     * completed while no receive is posted). Bounded by a round count, not by time.
     */
    public void settle() {
        for (int i = 0; i < 200; i++) {
            progress.run();
            Thread.yield();
        }
    }

    private long deadline() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    private void pause(long deadline, String expected) {
        if (System.nanoTime() - deadline > 0) {
            fail("timed out after " + timeoutMs + " ms waiting for " + expected);
        }
        progress.run();
        Thread.yield();
    }
}
