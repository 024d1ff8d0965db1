package io.jofi.provider.rxm;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The connection ends an {@link RxmConnectionManager} holds for the application's next progress
 * pass instead of ending the connection at once (as libfabric's {@code rxm_conn.c} defers a
 * connection's cleanup to the progress thread). The connection-management thread must not end a
 * connection itself, because the application's thread may hold MSG completions it has read but
 * not yet handled (the ack of a send that did complete), which the end would fail; and either
 * thread holds an end while the connection's operations await MSG completions, at most
 * {@link #END_GRACE_NANOS}. Serialised by the endpoint's lock.
 */
final class RxmHeldEnds {
    /**
     * How long a held end waits for the MSG completions of the connection's operations in
     * flight: the MSG provider reports the end on its CM channel and the completions through its
     * CQ, and with its own progress thread (verbs, AUTO) the completion of an operation that did
     * complete can reach the CQ just after the end — a fin that the peer had received failed with
     * ECONNRESET (VerbsRxmInteropTest in the VM).
     */
    static final long END_GRACE_NANOS = 50_000_000L;

    /** What the held ends ask of the connection manager when they come due. */
    interface Owner {
        /** The connection {@code msgEndpoint} belongs to now; null when it was ended or replaced. */
        RxmConnection connectionOf(Object msgEndpoint);

        /** Whether operations on {@code c} still await MSG completions. */
        boolean awaitsMsgCompletions(RxmConnection c);

        /** Ends {@code c} for the peer's doing or a failure (counted, closed, its operations failed). */
        void fail(RxmConnection c, int err, String why);
    }

    /** An ended MSG endpoint, and why, waiting for the application's thread since {@code notedAt}. */
    private record Held(Object msgEndpoint, int err, String why, long notedAt) {
    }

    private final Owner owner;
    private final List<Held> held = new ArrayList<>();

    RxmHeldEnds(Owner owner) {
        this.owner = owner;
    }

    /** Whether an end is held. */
    boolean isEmpty() {
        return held.isEmpty();
    }

    /** Holds the end of {@code msgEndpoint}'s connection, noted at {@code notedAt} (System.nanoTime). */
    void hold(Object msgEndpoint, int err, String why, long notedAt) {
        held.add(new Held(msgEndpoint, err, why, notedAt));
    }

    /**
     * Ends the connections whose end is due: no operation awaits a MSG completion any more, or
     * the grace is over.
     *
     * @return the connections ended
     */
    int endDue() {
        if (held.isEmpty()) {
            return 0;
        }
        long now = System.nanoTime();
        int ended = 0;
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held d = it.next();
            RxmConnection c = owner.connectionOf(d.msgEndpoint());
            if (c != null && now - d.notedAt() < END_GRACE_NANOS && owner.awaitsMsgCompletions(c)) {
                continue; // its operations' completions may still come: a later pass ends it
            }
            it.remove();
            if (c != null) { // else ended or replaced meanwhile
                owner.fail(c, d.err(), d.why());
                ended++;
            }
        }
        return ended;
    }

    /**
     * Ends {@code c} now if its end is held: a MSG error completion of one of its operations (a
     * flush) means the MSG provider completes nothing more of it, and every operation left then
     * fails with the end's errno (ECONNRESET when the peer shut down), not with the flush's —
     * except {@code ETIMEDOUT}: the MSG provider's progress timeout ended the connection (its
     * shutdown event, read first, looked like the peer's), and every operation left fails with
     * {@code ETIMEDOUT}, as the MSG provider's own did.
     *
     * @param opErr the errno of the MSG error completion
     * @return the errno {@code c}'s operations failed with, or 0 when {@code c} had no held end
     */
    int endNow(RxmConnection c, int opErr) {
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held d = it.next();
            if (d.msgEndpoint() == c.msgEndpoint && owner.connectionOf(d.msgEndpoint()) == c) {
                it.remove();
                int err = opErr == io.jofi.Errno.ETIMEDOUT ? io.jofi.Errno.ETIMEDOUT : d.err();
                owner.fail(c, err, d.why());
                return err;
            }
        }
        return 0;
    }
}
