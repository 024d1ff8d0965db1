package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.verbs.binding.VerbsConstants;

/**
 * Carries an RDM endpoint's transmit operations over its peer connections: an operation whose
 * connection is not established yet (or has others waiting before it) waits on that connection
 * in order, threaded through {@link TransmitSlots#next}; one on an established connection is
 * staged on that connection's {@link SendChain} and posted (with {@code FI_MORE} later, by the
 * next operation or the progress step); a completion is accounted to its connection, whose
 * failures decide its errno ({@code ECONNRESET} once the peer went) and may end it.
 *
 * <p>Not thread-safe: every method runs under the owning {@link VerbsRdmEndpoint}'s monitor.
 */
final class RdmTransmitter {
    private final TransmitSlots tx;
    private final int depth;
    /** The connection each slot's operation goes over (null for one failed at once). */
    private final RdmConnection[] conn;
    private RdmPeers peers;
    /** The connection whose chain holds work requests staged with FI_MORE, or null. */
    private RdmConnection staging;

    RdmTransmitter(TransmitSlots tx) {
        this.tx = tx;
        this.depth = tx.depth();
        this.conn = new RdmConnection[depth];
    }

    /** The connections it sends over (set once, before enable). */
    void peers(RdmPeers p) {
        this.peers = p;
    }

    /**
     * Sends {@code slot}'s operation (opened on {@link TransmitSlots}, its SGEs resolved) over
     * {@code c}: queued while {@code c} is set up or others wait before it, else staged and
     * (unless {@code FI_MORE}) posted.
     *
     * @return 0, or the negative errno of a post the device refused (nothing of the operation happened)
     */
    int send(RdmConnection c, int slot, long flags) {
        conn[slot] = c;
        if (c.state != RdmConnection.CONNECTED || c.waitCount > 0) {
            enqueue(c, slot);
            return 0;
        }
        stage(c, slot);
        if ((flags & Fi.FI_MORE) == 0 || c.chain.full()) {
            return post(c, slot);
        }
        return 0;
    }

    /** An operation towards a connection whose set-up failed at once (e.g. a loopback name): its error completion. */
    void failNow(int slot, int err) {
        conn[slot] = null;
        tx.fail(slot, err, 0);
    }

    /** Posts what {@code FI_MORE} left staged (the progress step, a fenced operation). */
    void postStaged() {
        if (staging != null) {
            post(staging, -1);
        }
    }

    private void enqueue(RdmConnection c, int slot) {
        tx.next[slot] = -1;
        if (c.waitCount == 0) {
            c.waitHead = slot;
        } else {
            tx.next[c.waitTail] = slot;
        }
        c.waitTail = slot;
        c.waitCount++;
    }

    /** Stages {@code slot}'s work request on {@code c}'s chain (posting another connection's chain first). */
    private void stage(RdmConnection c, int slot) {
        if (staging != null && staging != c) {
            post(staging, -1);
        }
        if (RdmTrace.ON) {
            RdmTrace.log(peers.name(), c, "stage slot " + slot);
        }
        tx.stage(c.chain, slot);
        c.outstanding++;
        staging = c;
    }

    /** Posts {@code c}'s chain; the current operation ({@code currentSlot}) answers the errno if it was refused. */
    private int post(RdmConnection c, int currentSlot) {
        if (staging == c) {
            staging = null;
        }
        int rc = tx.post(c.chain, currentSlot);
        c.outstanding -= tx.refused();
        return rc;
    }

    /** The connection is established: the operations queued on it go out in order. */
    void flushWaiting(RdmConnection c) {
        if (RdmTrace.ON) {
            RdmTrace.log(peers.name(), c, "established: posting what waits");
        }
        int slot = takeWaiting(c);
        while (slot >= 0) {
            int next = tx.next[slot];
            stage(c, slot);
            if (c.chain.full()) {
                post(c, -1);
            }
            slot = next;
        }
        post(c, -1);
    }

    /** The operations queued on {@code c} fail with {@code err} (its set-up failed, its peer went). */
    void failWaiting(RdmConnection c, int err) {
        int slot = takeWaiting(c);
        while (slot >= 0) {
            int next = tx.next[slot];
            tx.fail(slot, err, 0);
            conn[slot] = null;
            slot = next;
        }
    }

    /** Empties {@code c}'s wait queue; returns its first slot (-1 when empty), the rest linked by {@link TransmitSlots#next}. */
    private static int takeWaiting(RdmConnection c) {
        int head = c.waitHead;
        c.waitHead = -1;
        c.waitTail = -1;
        c.waitCount = 0;
        return head;
    }

    /** Crossed connects: the operations queued on {@code from} move to the end of {@code to}'s queue, in order. */
    void moveWaiting(RdmConnection from, RdmConnection to) {
        if (RdmTrace.ON) {
            RdmTrace.log(peers.name(), from, "crossed: " + from.waitCount + " queued move to conn@"
                    + Integer.toHexString(System.identityHashCode(to)));
        }
        for (int slot = from.waitHead; slot >= 0; slot = tx.next[slot]) {
            conn[slot] = to;
        }
        if (from.waitCount == 0) {
            return;
        }
        if (to.waitCount == 0) {
            to.waitHead = from.waitHead;
        } else {
            tx.next[to.waitTail] = from.waitHead;
        }
        to.waitTail = from.waitTail;
        to.waitCount += from.waitCount;
        from.waitHead = -1;
        from.waitTail = -1;
        from.waitCount = 0;
    }

    /** {@code c}'s native resources go: nothing of it stays staged. */
    void forget(RdmConnection c) {
        if (staging == c) {
            staging = null;
        }
    }

    /**
     * iWARP, {@code c} down for {@link MsgConnection#SWEEP_DELAY_NANOS} and the CQ drained: its
     * operations still without a completion never get one, so they complete here as the device
     * would have flushed them (an unconfirmed write {@code EIO}, R14: nothing pending is lost).
     */
    void sweep(RdmConnection c) {
        c.sweepAt = 0;
        for (int slot = 0; slot < depth && c.outstanding > 0; slot++) {
            if (tx.busy(slot) && conn[slot] == c) {
                onCompletion(slot, VerbsConstants.IBV_WC_WR_FLUSH_ERR);
            }
        }
    }

    /**
     * A work completion of transmit slot {@code slot}: the next step of its operation on the
     * same connection, or its completion. A failure towards a peer that went is
     * {@code ECONNRESET} (flushed ones too); any other failure leaves an RC queue pair in the
     * error state (e.g. a remote access error of an RMA with a wrong key or range), so that
     * connection ends now and the next operation to the peer connects again.
     */
    void onCompletion(int slot, int status) {
        if (!tx.busy(slot)) {
            return;
        }
        RdmConnection c = conn[slot];
        if (c != null && c.chain != null) {
            // an iWARP write's flush read or the swap's next compare-and-swap: the same slot's
            // next work request on the same connection (it stays outstanding there)
            status = tx.step(slot, status, c.chain);
            if (status == RmaSlots.CONTINUED) {
                return;
            }
        }
        if (c != null) {
            c.outstanding--;
        }
        conn[slot] = null;
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            tx.complete(slot);
        } else {
            // transport retries exceeded: the peer is gone (its DISCONNECTED may come later)
            if (c != null && status == VerbsConstants.IBV_WC_RETRY_EXC_ERR) {
                c.peerGone = true;
            }
            int err = c != null && c.peerGone ? Errno.ECONNRESET : TransmitSlots.errnoOf(status);
            tx.fail(slot, err, TransmitSlots.provErrnoOf(status));
            if (c != null && c.state == RdmConnection.CONNECTED && status != VerbsConstants.IBV_WC_WR_FLUSH_ERR) {
                peers.peerDown(c);
            }
        }
        if (c != null && c.state == RdmConnection.DOWN && c.outstanding == 0 && c.waitCount == 0) {
            peers.release(c);
        }
    }
}
