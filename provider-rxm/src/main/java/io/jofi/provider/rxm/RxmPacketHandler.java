package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.HEADER_LENGTH;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.ArrivingMessage;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UnexpectedMessage;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;

/**
 * What an rxm endpoint's MSG completions mean, as libfabric's {@code rxm_cq.c}: it turns
 * every MSG completion into rxm's protocol — an arriving packet matched against the receive
 * queue (or held back, or kept unexpected), a rendezvous read from the sender's memory and
 * answered, an atomic executed, a transmit completed for the application (through the
 * {@link RxmSendPath}, which writes and posts the packets of a send) — and it follows the
 * connections' ends. Called under the endpoint's lock; allocation-free for eager messages that
 * find a receive.
 */
final class RxmPacketHandler implements RxmConnectionManager.Listener {
    private static final System.Logger LOG = System.getLogger(RxmPacketHandler.class.getName());
    private final Owner owner;
    private final RxmSendPath sendPath;
    private final ReceiveQueue rq;
    private final RxmTransmitPool transmits;
    /** The settings' {@link RxmSettings#rendezvousByWrite()}: rendezvous transmits complete by the writer. */
    private final boolean byWrite;
    private final RxmPacketHeader rxHeader = new RxmPacketHeader();

    private final ArrivingMessage arriving = new ArrivingMessage();
    private final RxmSegmentAssembly segments;
    private final RxmRendezvousReceiver rendezvous;
    private final RxmAtomics atomics;
    private final RxmCreditGrants creditGrants;
    private final RxmRendezvousWriter writer;
    /** Packets the rxm wire does not allow: refused (dropped), counted, logged once per episode. */
    private final RxmPacketRefusals refusals;

    /**
     * What the packet handler asks of its endpoint: its connections (made once it is enabled),
     * its bindings as they are now, and the drain of a closed MSG endpoint's completions; and
     * what its rendezvous receiver and atomics ask.
     */
    interface Owner extends RxmRendezvousReceiver.Owner, RxmAtomics.Owner {
        /** The peers with a connection, made or being made. */
        java.util.List<RxmConnection> connections();

        /** A packet arrived on {@code on}, {@code c}'s MSG endpoint: proof that it is connected. */
        void packetArrived(RxmConnection c, io.jofi.Endpoint on);

        /**
         * Ends {@code c} now if its end was held for a flush ({@link RxmConnectionManager#endHeldNow}): the
         * errno its operations failed with, or 0 when no end was held.
         */
        int endHeldNow(RxmConnection c, int err);

        /** Connects {@code c} again once its peer's "already" refusal is old enough; the work done. */
        int retryAfterAlready(RxmConnection c, long nowNanos);

        /** The bound receive CQ, or null. */
        UtilCompletionQueue receiveCq();

        /** Whether the MSG endpoints count the target-side RMA events themselves (FI_RMA_EVENT). */
        boolean countsTargetEvents();

        /** Handles what the MSG CQ holds of a MSG endpoint just closed (under the lock). */
        void drainClosed();
    }

    /**
     * @param rq       the receive queue arrivals are matched against
     * @param counters the endpoint's counters, which the handler's own join
     */
    RxmPacketHandler(Owner owner, RxmSendPath sendPath, ReceiveQueue rq, RxmTransmitPool transmits,
                     RxmSettings settings, io.jofi.spi.util.stats.CounterGroup counters) {
        this.owner = owner;
        this.sendPath = sendPath;
        this.rq = rq;
        this.transmits = transmits;
        this.byWrite = settings.rendezvousByWrite();
        this.segments = new RxmSegmentAssembly(rq);
        this.rendezvous = new RxmRendezvousReceiver(owner, rq, transmits, byWrite);
        this.atomics = new RxmAtomics(owner, transmits, settings.maxUnexpectedBytes(), counters);
        this.creditGrants = new RxmCreditGrants(transmits, rq, counters);
        this.writer = new RxmRendezvousWriter(sendPath, transmits);
        this.refusals = new RxmPacketRefusals(counters);
    }

    // =================================================================== MSG completions

    /** A successful MSG completion whose context is one of ours. */
    void completed(io.jofi.CqEntry e) {
        Object context = e.context();
        if (context instanceof RxmReceiveBuffer rb) {
            if (rb.postedOn != rb.connection.msgEndpoint && !endingConnection) {
                late(rb, e);
                return;
            }
            RxmConnection c = rb.connection;
            owner.packetArrived(c, rb.postedOn);
            if ((e.flags() & Fi.FI_REMOTE_WRITE) != 0) {
                // a peer's write with remote CQ data took the buffer (verbs: FI_RX_CQ_DATA,
                // immediate data consumes a receive): no packet in it, only the data to report
                if (!c.credits.packetCame(false)) {
                    beyondCredits(c);
                    return;
                }
                remoteWriteData(e);
                repost(rb);
                return;
            }
            rb.arrived(e);
            // (tcp's own tagged messages take none of the buffers credits count; the type byte
            // is looked at only where credits are on: tcp's default pays one compare)
            if (!rb.rawTagged && !c.credits.packetCame(c.credits.enabled() && isCreditGrant(rb))) {
                beyondCredits(c);
                return;
            }
            // with credits the sender is held back by withheld grants (RxmCreditGrants), so a
            // packet is always taken and its buffer posted again: a held buffer could be the one
            // the peer's grant needs. Before our connected event (connectionUsable) a packet
            // waits: a rendezvous read found the connection not connected (ECONNRESET)
            boolean credits = c.credits.enabled();
            if ((c.heldHead != null && !isCreditGrant(rb)) || !c.isConnected() || !handle(rb, credits)) {
                hold(c, rb);
            }
        } else if (context instanceof RxmTransmit t) {
            if (t.inUse) { // else ended with its connection already (connectionEnded)
                sent(t, e.flags());
            }
        } else if (context instanceof RxmRendezvousRead rr) {
            rendezvous.readCompleted(rr, 0);
        } else if (context == null && (e.flags() & Fi.FI_REMOTE_CQ_DATA) != 0) {
            remoteWriteData(e);
        }
    }

    /**
     * A packet of a MSG endpoint its connection no longer has: the progress pass read its
     * completion from the MSG CQ outside the lock, and before it took the lock another thread
     * ended the connection ({@code fi_av_remove}, a departure) — whose own drain of the CQ
     * ({@link #connectionEnded}) therefore did not see it. It is handled as that drain would have
     * handled it: a whole eager message stays receivable; anything that needs the connection to
     * go on (a rendezvous request, a segment, an atomic, a rendezvous step) is dropped, since its
     * sender had it failed with the connection. Before, a late rendezvous request became an
     * unexpected message after the end had cleared them, and the next receive took it and failed
     * with ECONNRESET reading it (RxmPeerLossTest, AUTO progress under load).
     */
    private void late(RxmReceiveBuffer rb, io.jofi.CqEntry e) {
        if ((e.flags() & Fi.FI_REMOTE_WRITE) != 0) {
            return; // a peer's write with remote CQ data over an ended connection: nothing to deliver
        }
        rb.arrived(e);
        if (rb.rawTagged || (rb.length >= HEADER_LENGTH
                && rxHeader.read(rb.buffer, 0).type == RxmWireDescriptor.TYPE_EAGER)) {
            handle(rb, true); // not posted again: its MSG endpoint is closed
        } else {
            LOG.log(System.Logger.Level.DEBUG, "rxm: a packet of the ended " + rb.connection + " dropped");
        }
    }

    /** A peer's RMA write with remote CQ data landed (the MSG provider applied it): the application hears of it. */
    private void remoteWriteData(io.jofi.CqEntry e) {
        UtilCompletionQueue cq = owner.receiveCq();
        if (cq != null) {
            cq.completeUnsolicited(null, e.flags(), e.len(), null, 0, e.data(), 0, Fi.FI_ADDR_NOTAVAIL);
        }
        UtilCounter counter = owner.countsTargetEvents() ? null : owner.counter(Fi.FI_REMOTE_WRITE); // else the MSG endpoint counted it
        if (counter != null) {
            counter.increment();
        }
    }

    /** The connection of a MSG operation's context while that operation is ours and in flight, else null. */
    static RxmConnection connectionOf(Object context) {
        if (context instanceof RxmTransmit t) {
            return t.inUse ? t.connection : null;
        }
        return context instanceof RxmRendezvousRead rr ? rr.connection : null;
    }

    /**
     * A failed MSG operation. On a connection whose end is held (a flush) the end comes now and
     * fails what is left with its errno ({@link RxmConnectionManager#endHeldNow}); a rendezvous
     * read in flight is not among what it fails (the end leaves each read to its MSG
     * completion), so the read this completion is for fails here, with the end's errno. Before,
     * its completion was dropped and its receive waited for ever (RxmRendezvousSenderGoneTest and
     * RxmRendezvousReadEndTest with one tcp drive per rxm pass: the end held by the
     * connection-management thread, then the read's error read by the application's pass).
     */
    void failed(Object context, int err) {
        RxmConnection c = connectionOf(context);
        int endErr = c == null ? 0 : owner.endHeldNow(c, err);
        if (endErr != 0) {
            if (context instanceof RxmRendezvousRead rr) {
                rendezvous.readCompleted(rr, endErr);
            }
            return; // the end failed every other operation, this one too
        }
        if (context instanceof RxmTransmit t && t.inUse) {
            if (t.kind == RxmTransmit.Kind.RENDEZVOUS && byWrite) {
                writer.failed(t, err == 0 ? Errno.EIO : err); // its other writes may still be in flight
            } else {
                sendPath.failTransmit(t, err == 0 ? Errno.EIO : err);
            }
        } else if (context instanceof RxmRendezvousRead rr) {
            rendezvous.readCompleted(rr, err == 0 ? Errno.EIO : err);
        }
        // a receive buffer fails only when its connection closes: it is not posted again
    }

    private void sent(RxmTransmit t, long flags) {
        switch (t.kind) {
            case EAGER, RMA -> sendPath.finishSend(t, 0);
            case ATOMIC -> { // done once the target's response came as well
                t.sent = true;
                if (t.peerDone) {
                    sendPath.finishSend(t, t.atomicError);
                }
            }
            case RENDEZVOUS -> {
                if (byWrite) {
                    writer.completed(t, flags);
                    return;
                }
                t.sent = true;
                if (t.peerDone) {
                    sendPath.finishSend(t, 0);
                }
            }
            default -> transmits.give(t);
        }
    }

    // =================================================================== back-pressure

    /** Connections with packets held back ({@link RxmConnection#heldHead}): 0 is the common case, one check per post. */
    private int holdingConnections;

    /**
     * A received packet: handled (and its buffer posted again), or false when its message found
     * neither a receive nor room among the unexpected ones.
     *
     * @param force take it unexpected whatever the limits (its connection ends)
     */
    private boolean handle(RxmReceiveBuffer rb, boolean force) {
        boolean taken = rb.rawTagged ? rawTagged(rb, force) : packet(rb, rb.length, force);
        if (taken) {
            repost(rb);
        }
        return taken;
    }

    /**
     * A credit grant carries no message, so no order to keep with packets held before it: it is
     * taken at once. Held behind them it would wait for the application's receives, while the
     * application may be waiting for the credits to send (two peers stuck on each other).
     */
    /** Whether {@code rb} holds a credit grant, by its type byte alone (its header is read once, when it is handled). */
    private static boolean isCreditGrant(RxmReceiveBuffer rb) {
        return !rb.rawTagged && rb.length >= HEADER_LENGTH
                && (rb.buffer.get(RxmWireDescriptor.TYPE_OFFSET) & 0xFF) == RxmWireDescriptor.TYPE_CREDIT;
    }

    /**
     * {@code c}'s peer sent a packet it held no credit for ({@link RxmCredits}): it ignores flow
     * control, and where we withhold grants (our unexpected messages at their limits) its
     * messages would be taken and copied for as long as it sends. The packet is dropped, its
     * buffer not posted again, and the connection ends at the next pass with
     * {@code ECONNABORTED}, as for a peer that does not read our atomic answers: what waits on it
     * fails and the peer sees the connection close.
     */
    private void beyondCredits(RxmConnection c) {
        if (c.credits.firstOverdraft()) {
            LOG.log(System.Logger.Level.WARNING, "rxm: " + c.peer + " sent beyond the credits granted to it ("
                    + c.credits + "); connection ended");
            owner.abort(c, Errno.ECONNABORTED, "the peer sent beyond the credits granted to it (it ignores flow control)");
        }
    }

    private void hold(RxmConnection c, RxmReceiveBuffer rb) {
        if (c.heldHead == null) {
            c.heldHead = rb;
            holdingConnections++;
        } else {
            c.heldTail.nextHeld = rb;
        }
        c.heldTail = rb;
    }

    /** After a receive was posted (or an unexpected message taken): held packets that now fit go on, in order. */
    void releaseHeld() {
        if (holdingConnections == 0) {
            return;
        }
        for (RxmConnection c : owner.connections()) {
            if (c.heldHead != null && c.isConnected()) {
                release(c, false);
            }
        }
    }

    private void release(RxmConnection c, boolean force) {
        while (c.heldHead != null) {
            RxmReceiveBuffer rb = c.heldHead;
            if (!handle(rb, force)) {
                return;
            }
            c.heldHead = rb.nextHeld;
            rb.nextHeld = null;
            if (c.heldHead == null) {
                c.heldTail = null;
                holdingConnections--;
            }
        }
    }

    /** Whether an eager message of {@code n} bytes that found no receive may be held unexpected (the first always). */
    private boolean admitsEager(int n, boolean force) {
        return force || rq.unexpectedCount() == 0 || rq.admits(n);
    }

    private boolean packet(RxmReceiveBuffer rb, int len, boolean force) {
        ByteBuffer b = rb.buffer;
        RxmConnection c = rb.connection;
        if (len < HEADER_LENGTH) {
            refusals.refuse(c, "a packet of " + len + " bytes, shorter than a header");
            return true;
        }
        RxmPacketHeader h = rxHeader.read(b, 0);
        if (!refusals.allowed(c, h)) {
            return true;
        }
        switch (h.type) {
            case RxmWireDescriptor.TYPE_EAGER -> {
                return eager(c, b, h, len, force);
            }
            case RxmWireDescriptor.TYPE_RNDV_REQUEST -> {
                return rendezvous.request(c, b, h, len, force);
            }
            case RxmWireDescriptor.TYPE_SEGMENT -> {
                return segments.segment(c, b, h, len, owner.sourceOf(c), force);
            }
            case RxmWireDescriptor.TYPE_RNDV_READ_DONE -> readDone(h.msgId);
            case RxmWireDescriptor.TYPE_RNDV_WRITE_DATA -> writer.offered(c, b, h, len);
            case RxmWireDescriptor.TYPE_RNDV_WRITE_DONE -> rendezvous.writeDone(c, h.msgId);
            case RxmWireDescriptor.TYPE_ATOMIC -> atomics.request(c, b, h, len);
            case RxmWireDescriptor.TYPE_ATOMIC_RESPONSE -> atomicResponse(b, h, len);
            case RxmWireDescriptor.TYPE_CREDIT -> creditGrants.received(c, h.ctrlData);
            default -> refusals.refuse(c, "packet type " + h.type + ", not one of the wire's");
        }
        return true;
    }

    /** A tagged eager message carried by the tcp header (no rxm header): the buffer is its payload. */
    private boolean rawTagged(RxmReceiveBuffer rb, boolean force) {
        boolean hasData = (rb.flags & Fi.FI_REMOTE_CQ_DATA) != 0;
        return deliverEager(rb.connection, rb.buffer, 0, rb.length, true, rb.tag, hasData, rb.data, force);
    }

    private void repost(RxmReceiveBuffer rb) {
        if (rb.postedOn == rb.connection.msgEndpoint) {
            int rc = rb.post();
            if (rc != 0) {
                LOG.log(System.Logger.Level.DEBUG, "rxm: posting a receive buffer again failed (the connection is closing): " + Errno.strerror(-rc));
            } else {
                creditGrants.grant(rb.connection);
            }
        }
    }

    private boolean eager(RxmConnection c, ByteBuffer b, RxmPacketHeader h, int len, boolean force) {
        int n = (int) h.size;
        if (h.size < 0 || h.size > len - HEADER_LENGTH) { // (not HEADER_LENGTH + size: a size near 2^63 wraps)
            refusals.refuse(c, "an eager packet of " + len + " bytes saying " + h.size);
            return true;
        }
        return deliverEager(c, b, HEADER_LENGTH, n, h.tagged(), h.tag, h.hasData(), h.data, force);
    }

    /**
     * An eager payload of {@code n} bytes at {@code at} of {@code b}: into a receive, or kept
     * unexpected; false (nothing taken) when there is no receive and no room for it unexpected.
     */
    private boolean deliverEager(RxmConnection c, ByteBuffer b, int at, int n, boolean tagged, long tag, boolean hasData,
                                 long data, boolean force) {
        long src = owner.sourceOf(c);
        ArrivingMessage m = arriving.set(tagged, tag, hasData, data, src, c.peerName, n);
        PostedReceive r = rq.match(m);
        if (r != null) {
            long placed = r.place(0, b, at, (int) Math.min(n, r.capacity()));
            rq.complete(r, m, placed);
            return true;
        }
        if (!admitsEager(n, force)) {
            return false;
        }
        ByteBuffer copy = ByteBuffer.allocate(n);
        copy.put(0, b, at, n);
        UnexpectedMessage u = rq.newUnexpected(n);
        u.set(tagged, tag, hasData, data, src, c.peerName, n).payload(RxmUnexpectedCopy.INSTANCE, copy, -1).origin(c);
        rq.arrived(u);
        return true;
    }

    /**
     * After a post: the FI_MATCH_COMPLETE rendezvous a receive took (or a discard dropped) move
     * now, and packets held back for room go on.
     */
    void matchedRendezvous() {
        rendezvous.matched();
        releaseHeld();
        creditGrants.resume(owner.connections());
    }

    private void readDone(long msgId) {
        RxmTransmit t = transmits.inFlight(msgId);
        if (t == null || t.kind != RxmTransmit.Kind.RENDEZVOUS) {
            LOG.log(System.Logger.Level.WARNING, "rxm: a read-done for unknown message " + msgId + " dropped");
            return;
        }
        t.peerDone = true;
        if (t.sent) {
            sendPath.finishSend(t, 0);
        }
    }

    /** Writes an atomic's request packet (rxm's atomic protocol: the target executes it in software). */
    void writeAtomicRequest(RxmTransmit t) {
        atomics.writeRequest(t);
    }

    /** The target's answer to one of our atomics: its result, then the completion once the request's send completed. */
    private void atomicResponse(ByteBuffer b, RxmPacketHeader h, int len) {
        RxmTransmit t = transmits.inFlight(h.msgId);
        if (t == null || t.kind != RxmTransmit.Kind.ATOMIC || t.peerDone) {
            LOG.log(System.Logger.Level.WARNING, "rxm: an atomic response for unknown message " + h.msgId + " dropped");
            return;
        }
        t.atomicError = RxmAtomics.readResponse(t, b, len);
        t.peerDone = true;
        if (t.sent) {
            sendPath.finishSend(t, t.atomicError);
        }
    }

    /** Tries again what waited for room or for a connection; returns the work done. */
    int retryDeferred() {
        int n = 0;
        if (sendPath.hasPending()) {
            long now = 0;
            for (RxmConnection c : owner.connections()) {
                if (c.pendingHead != null && c.isConnected()) {
                    n += sendPath.flush(c);
                } else if (c.alreadyAtNanos != 0) {
                    now = now == 0 ? System.nanoTime() : now;
                    n += owner.retryAfterAlready(c, now);
                }
            }
        }
        n += rendezvous.retry() + writer.retry();
        n += atomics.retry();
        n += creditGrants.retry(owner.connections());
        return n;
    }

    // =================================================================== connections

    /**
     * True while {@link #connectionEnded} drains the MSG CQ: the packets of the ending connection
     * read then are handled as usual (its MSG endpoint is already gone from it), not as late ones.
     */
    private boolean endingConnection;

    /** The endpoint closes or departs: the rendezvous offers go with the registrations. */
    void closeOffers() {
        rendezvous.closeOffers();
    }

    @Override
    public void grantCredits(RxmConnection c) {
        creditGrants.grant(c);
    }

    @Override
    public void connectionUsable(RxmConnection c) {
        if (c.heldHead != null) {
            release(c, c.credits.enabled());
        }
    }

    @Override
    public boolean awaitsMsgCompletions(RxmConnection c) {
        return sendPath.awaitsMsgCompletions(c);
    }

    @Override
    public void connectionEnded(RxmConnection c, int err, String why) {
        LOG.log(System.Logger.Level.DEBUG, "rxm: " + c + " ended: " + why);
        // the MSG endpoint is closed: what it completed before is handled first (a rendezvous
        // request that arrived then is abandoned below with the others), and what it held will
        // never complete (a close discards) — nor will the peer answer rendezvous sends
        endingConnection = true;
        try {
            owner.drainClosed();
        } finally {
            endingConnection = false;
        }
        if (c.heldHead != null) {
            // what arrived whole stays receivable: held messages become unexpected whatever the
            // limits (at most the connection's receive buffers); a held rendezvous is abandoned below
            release(c, true);
        }
        segments.abandon(c, err);
        rendezvous.connectionEnded(c, err);
        writer.connectionEnded(c);
        atomics.connectionEnded(c);
        sendPath.connectionEnded(c, err);
    }
}
