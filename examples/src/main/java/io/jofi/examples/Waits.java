package io.jofi.examples;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import java.util.function.IntSupplier;

/**
 * The three waits every example needs, written once: an event on an EQ, a completion on a CQ,
 * and a post retried while its queue is full. Copy it along with an example.
 *
 * <p>The queues must be opened with a wait object ({@code WaitObj.UNSPEC} is the provider's
 * choice): {@code sread} on a queue opened with {@code WaitObj.NONE} returns {@code -ENOSYS}
 * at once. Every wait is bounded, so a broken peer is an exception, never a hang.
 */
public final class Waits {
    /** How long any single wait may take. */
    public static final int TIMEOUT_MS = 10_000;
    /** A zero-count read takes nothing: it only drives progress (API R1). */
    private static final CqEntry[] NONE = new CqEntry[0];

    private Waits() {
    }

    /** Blocks for the next event on {@code eq} and checks it is {@code event} (e.g. {@code Fi.FI_CONNECTED}). */
    public static EqEntry forEvent(EventQueue eq, int event) throws FabricException {
        EqEntry entry = new EqEntry();
        int rc = eq.sread(entry, TIMEOUT_MS, 0);
        if (rc == -Errno.EAVAIL) {
            // An error event (a rejected connect, a failed registration) waits out of band.
            EqErrEntry err = new EqErrEntry();
            eq.readErr(err, 0);
            throw new FabricException(err.err(), "error event: " + eq.strerror(err.provErrno(), err.errData()));
        }
        if (rc != 1) {
            throw new FabricException(-rc, "no event within " + TIMEOUT_MS + " ms: " + Errno.strerror(-rc));
        }
        if (entry.event() != event) {
            throw new FabricException(Errno.FI_EOTHER, "expected event " + event + ", got " + entry.event());
        }
        return entry;
    }

    /** Blocks for the next completion on {@code cq}; an error completion becomes an exception. */
    public static CqEntry forCompletion(CompletionQueue cq) throws FabricException {
        CqEntry[] entry = {new CqEntry()}; // a real data path allocates these once and reuses them
        int rc = cq.sread(entry, 1, 0, TIMEOUT_MS);
        if (rc == -Errno.EAVAIL) {
            CqErrEntry err = new CqErrEntry();
            cq.readErr(err, 0);
            throw new FabricException(err.err(), "operation " + err.context() + " failed: "
                    + cq.strerror(err.provErrno(), err.errData()));
        }
        if (rc != 1) {
            throw new FabricException(-rc, "no completion within " + TIMEOUT_MS + " ms: " + Errno.strerror(-rc));
        }
        return entry[0];
    }

    /**
     * Posts with {@code post} (a data-path call: {@code 0} or {@code -errno}), retrying while
     * it answers {@code -EAGAIN} (the queue is full until completions are read): a
     * zero-count read of {@code cq} drives progress meanwhile, as fi_cq(3) allows.
     */
    public static void post(CompletionQueue cq, IntSupplier post, String what) throws FabricException {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000L;
        int rc;
        while ((rc = post.getAsInt()) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            cq.read(NONE, 0);
            Thread.onSpinWait();
        }
        if (rc != 0) {
            throw new FabricException(-rc, what + " failed: " + Errno.strerror(-rc));
        }
    }
}
