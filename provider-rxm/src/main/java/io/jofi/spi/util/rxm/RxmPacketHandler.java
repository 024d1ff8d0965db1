package io.jofi.spi.util.rxm;

import static io.jofi.spi.util.rxm.RxmWireDescriptor.HEADER_LENGTH;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.spi.util.ArrivingMessage;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UnexpectedMessage;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;

/**
 * What an {@link RxmEndpoint}'s packets do: it writes the packets of a send (eager: header and
 * payload in the transmit's bounce buffer; rendezvous: header and the descriptor of the
 * application's registered buffers), and it turns every MSG completion into rxm's protocol —
 * an arriving packet matched against the receive queue, a rendezvous read from the sender's
 * memory and answered, a transmit completed for the application. Called under the endpoint's
 * lock; allocation-free for eager messages that find a receive.
 */
final class RxmPacketHandler implements RxmConnectionManager.Listener {
    private static final System.Logger LOG = System.getLogger(RxmPacketHandler.class.getName());
    private static final long PASSED_FLAGS = Fi.FI_TRANSMIT_COMPLETE | Fi.FI_DELIVERY_COMPLETE;
    /**
     * The completion levels whose rendezvous request goes delivery complete on the MSG
     * connection, so that its MSG send stays pending until the peer's provider has taken it: a
     * stopped peer that never takes it leaves an operation pending there, which the MSG
     * provider's progress timeout bounds (tcp: {@code ETIMEDOUT}); sent as written, the wait for
     * the read-done had nothing pending that any timeout watched. Only for sends whose
     * application asked for the peer's word (delivery, match complete): an acked request of every
     * rendezvous held a connection's end for its ack, and a connection a peer ended under it was
     * found later (RxmRandomPacketTest's reconnects). A peer that took the request and holds it
     * (no receive posted: a running peer) is waited for, as libfabric's rxm waits.
     */
    static final long PEER_ANSWER_LEVELS = Fi.FI_DELIVERY_COMPLETE | Fi.FI_MATCH_COMPLETE;

    private final RxmEndpoint ep;
    private final ReceiveQueue rq;
    private final RxmTransmitPool transmits;
    private final RxmPacketHeader rxHeader = new RxmPacketHeader();

    private final ArrivingMessage arriving = new ArrivingMessage();
    private final RxmSegmentAssembly segments;
    private final RxmSegmentSender segmentSender;
    private final RxmRendezvousReceiver rendezvous;
    private final RxmAtomics atomics;
    private final RxmCreditGrants creditGrants;
    private final RxmRendezvousWriter writer;
    private final RxmRegistrationCache registrations = new RxmRegistrationCache();
    /** Packets the rxm wire does not allow: refused (dropped), counted, logged once per episode. */
    private final RxmPacketRefusals refusals;

    RxmPacketHandler(RxmEndpoint ep) {
        this.ep = ep;
        this.rq = ep.receives;
        this.transmits = ep.transmits;
        this.segments = new RxmSegmentAssembly(rq);
        this.segmentSender = new RxmSegmentSender(this, transmits, ep.settings());
        this.rendezvous = new RxmRendezvousReceiver(ep);
        this.atomics = new RxmAtomics(ep);
        this.creditGrants = new RxmCreditGrants(transmits, rq, ep.counters());
        this.writer = new RxmRendezvousWriter(this, transmits);
        this.refusals = new RxmPacketRefusals(ep.counters());
    }

    // =================================================================== sending

    /** An eager message: header and payload copied into the transmit's packet, sent. */
    int sendEager(RxmTransmit t, RxmPacketHeader h, ByteBuffer buf, Msg msg, int n) {
        t.kind = RxmTransmit.Kind.EAGER;
        h.type = RxmWireDescriptor.TYPE_EAGER;
        ByteBuffer p = t.packet;
        p.clear();
        h.write(p, 0);
        if (buf != null) {
            p.put(HEADER_LENGTH, buf, buf.position(), n);
        } else {
            int at = HEADER_LENGTH;
            for (int i = 0; i < msg.iovCount(); i++) {
                ByteBuffer b = msg.iov(i);
                int k = b.remaining();
                p.put(at, b, b.position(), k);
                at += k;
            }
        }
        p.limit(HEADER_LENGTH + n);
        t.postFlags = t.flags & PASSED_FLAGS;
        return submit(t);
    }

    /** A message above the eager limit, at most the SAR limit: in segments ({@link RxmSegmentSender}). */
    int sendSegmented(RxmTransmit t, RxmPacketHeader h, ByteBuffer buf, Msg msg, long length) {
        return segmentSender.send(t, h, buf, msg, length, t.flags & PASSED_FLAGS);
    }

    /**
     * A rendezvous: the application's buffers registered for remote reads with the MSG domain,
     * the descriptor sent; the transmit completes when the receiver says it read them.
     */
    int sendRendezvous(RxmTransmit t, RxmPacketHeader h, ByteBuffer buf, Msg msg, long length) {
        t.kind = RxmTransmit.Kind.RENDEZVOUS;
        h.type = RxmWireDescriptor.TYPE_RNDV_REQUEST;
        h.msgId = t.index;
        ByteBuffer p = t.packet;
        p.clear();
        h.write(p, 0);
        int count = buf != null ? 1 : msg.iovCount();
        try {
            for (int i = 0; i < count; i++) {
                ByteBuffer b = buf != null ? buf : msg.iov(i);
                MemoryRegion mr = registrations.acquire(ep.domain(), b, ep.nextKey());
                t.locals[t.regionCount] = b;
                t.regions[t.regionCount++] = mr;
                RxmPacketHeader.writeRendezvousIov(p, HEADER_LENGTH, i, mr.address(), b.remaining(), mr.key());
            }
        } catch (FabricException e) {
            closeRegions(t);
            return -e.errno();
        }
        RxmPacketHeader.writeRendezvousCount(p, HEADER_LENGTH, count);
        p.limit(HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH);
        t.postFlags = (t.flags & PEER_ANSWER_LEVELS) != 0 ? Fi.FI_DELIVERY_COMPLETE : 0;
        int rc = submit(t);
        if (rc != 0) {
            closeRegions(t);
        }
        return rc;
    }

    /** An RMA passed through to the MSG connection; an inject's bytes copied into the transmit's packet buffer. */
    int passRma(RxmTransmit t, boolean read, ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long addr,
                long key, long data) {
        io.jofi.RmaMsg rma = t.rma;
        if (msg instanceof io.jofi.RmaMsg m) {
            rma.iovCount(m.iovCount());
            for (int i = 0; i < m.iovCount(); i++) {
                rma.iov(i, m.iov(i), m.desc(i));
            }
            rma.rmaIovCount(m.rmaIovCount());
            for (int i = 0; i < m.rmaIovCount(); i++) {
                rma.rmaIov(i, m.rmaAddr(i), m.rmaLen(i), m.rmaKey(i));
            }
        } else {
            ByteBuffer local = buf;
            MemoryRegion localDesc = desc;
            if (!read && (t.flags & Fi.FI_INJECT) != 0 && length <= t.packet.capacity()) {
                ByteBuffer p = t.packet;
                p.clear();
                p.put(0, buf, buf.position(), (int) length);
                p.limit((int) length);
                local = p;
                localDesc = t.packetDesc;
            }
            rma.iovCount(1).iov(0, local, localDesc);
            rma.rmaIovCount(1).rmaIov(0, addr, length, key);
        }
        rma.context(t).data(data).addr(0);
        t.rmaRead = read;
        t.postFlags = t.flags & (Fi.FI_REMOTE_CQ_DATA | Fi.FI_TRANSMIT_COMPLETE | Fi.FI_DELIVERY_COMPLETE
                | Fi.FI_COMMIT_COMPLETE | Fi.FI_FENCE);
        return submit(t);
    }

    /**
     * Posts a formatted transmit to its MSG connection — or, while the connection is being made
     * (or earlier transmits still wait), queues it behind them: the post is accepted (0) as on
     * every JOFI RDM endpoint, and the queue goes out in order once the connection is up.
     */
    int submit(RxmTransmit t) {
        RxmConnection c = t.connection;
        if (!c.isConnected() || c.pendingHead != null) {
            if (c.state == RxmConnection.State.IDLE) {
                int rc = ep.connections.connect(c);
                if (rc != 0) {
                    return rc;
                }
            }
            queuePending(c, t);
            return 0;
        }
        return postNow(t);
    }

    /** Puts {@code t} at the end of {@code c}'s pending sends (posted in order by {@link #retryDeferred}). */
    void queuePending(RxmConnection c, RxmTransmit t) {
        if (c.pendingTail == null) {
            c.pendingHead = t;
        } else {
            c.pendingTail.nextPending = t;
        }
        c.pendingTail = t;
        pendingCount++;
    }

    /**
     * Posts {@code t} on its connection's MSG endpoint now: 0, or a negative errno —
     * {@code -EAGAIN} also when it would take one of the peer's receives and rxm's credit flow
     * control has none free for it ({@link RxmCredits}), and when the MSG endpoint found its
     * connection gone before the end's event was read ({@link RxmConnection#refusedWhileEnding}):
     * every caller then waits as for a full queue, and the end, read at the next pass, fails or
     * drops what waits with its own errno — an errno for the end, not one for each way it was
     * found.
     */
    static int postNow(RxmTransmit t) {
        return RxmConnection.refusedWhileEnding(post(t));
    }

    private static int post(RxmTransmit t) {
        io.jofi.Endpoint m = t.connection.msgEndpoint;
        RxmCredits credits = t.connection.credits;
        if (t.kind == RxmTransmit.Kind.RMA) {
            if (t.rmaRead) {
                return m.readMsg(t.rma, t.postFlags);
            }
            boolean takesReceive = credits.remoteDataTakesReceive && (t.postFlags & Fi.FI_REMOTE_CQ_DATA) != 0;
            if (takesReceive && !credits.take(false)) {
                return -Errno.EAGAIN;
            }
            int rc = m.writeMsg(t.rma, t.postFlags);
            if (rc != 0 && takesReceive) {
                credits.giveBack();
            }
            return rc;
        }
        if (!credits.take(t.grantsCredits)) {
            return -Errno.EAGAIN;
        }
        int rc = sendPacket(m, t);
        if (rc != 0) {
            credits.giveBack();
        }
        return rc;
    }

    private static int sendPacket(io.jofi.Endpoint m, RxmTransmit t) {
        ByteBuffer p = t.packet;
        p.position(0);
        // the peer's index of us is known once connected: a packet built while the connection
        // was being made (and queued) carries it only from here on
        p.putLong(RxmWireDescriptor.CONN_ID_OFFSET, t.connection.remoteIndex & 0xFFFF_FFFFL);
        if (t.postFlags == 0) {
            return m.send(p, t.packetDesc, 0, t);
        }
        t.msg.buffer(p, t.packetDesc).context(t);
        return m.sendMsg(t.msg, t.postFlags);
    }

    /**
     * Posts what waited for a connection now connected; stops at a full MSG queue, no credit or
     * a connection found gone ({@link #postNow}): tried again next pass, or failed by the end.
     */
    private int flush(RxmConnection c) {
        int n = 0;
        while (c.pendingHead != null && c.isConnected()) {
            RxmTransmit t = c.pendingHead;
            int rc = postNow(t);
            if (rc == -Errno.EAGAIN) {
                return n;
            }
            c.pendingHead = t.nextPending;
            if (c.pendingHead == null) {
                c.pendingTail = null;
            }
            t.nextPending = null;
            pendingCount--;
            n++;
            if (rc != 0) {
                failTransmit(t, -rc);
            }
        }
        return n;
    }

    void failTransmit(RxmTransmit t, int err) {
        err = err == Errno.ENODEV ? Errno.ECANCELED : err; // the MSG provider departed under it: R15's cancel
        if (t.kind == RxmTransmit.Kind.CONTROL || t.kind == RxmTransmit.Kind.SEGMENT) {
            transmits.give(t);
        } else {
            finishSend(t, err);
        }
    }

    /** Transmits waiting for connections (flushed by the progress pass once they connect). */
    private int pendingCount;

    void finishSend(RxmTransmit t, int err) {
        closeRegions(t);
        UtilCounter counter = ep.counter(t.kind == RxmTransmit.Kind.RMA || t.kind == RxmTransmit.Kind.ATOMIC
                ? t.completionFlags : Fi.FI_SEND);
        if (t.reports) {
            UtilCompletionQueue cq = ep.transmitCq();
            if (err != 0) {
                cq.completeError(t.context, t.completionFlags, 0, null, 0, 0, 0, 0, err, 0, null, 0,
                        Fi.FI_ADDR_NOTAVAIL);
            } else if ((t.flags & Fi.FI_COMPLETION) != 0) {
                cq.complete(t.context, t.completionFlags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            } else {
                cq.unreserve();
            }
        }
        if (counter != null) {
            if (err != 0) {
                counter.incrementError();
            } else {
                counter.increment();
            }
        }
        transmits.give(t);
    }

    private void closeRegions(RxmTransmit t) {
        for (int i = 0; i < t.regionCount; i++) {
            registrations.release(t.regions[i]);
            t.regions[i] = null;
        }
        t.regionCount = 0;
    }

    /** The endpoint closes or departs: the cached registrations go (after {@link #failInFlight}). */
    void closeRegistrations() {
        registrations.closeAll();
        rendezvous.closeOffers();
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
            ep.connections.packetArrived(c, rb.postedOn);
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
        UtilCompletionQueue cq = ep.receiveCq();
        if (cq != null) {
            cq.completeUnsolicited(null, e.flags(), e.len(), null, 0, e.data(), 0, Fi.FI_ADDR_NOTAVAIL);
        }
        UtilCounter counter = ep.countsTargetEvents() ? null : ep.counter(Fi.FI_REMOTE_WRITE); // else the MSG endpoint counted it
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
     * fails what is left with its errno ({@link RxmConnectionManager#endHeldNow}).
     */
    void failed(Object context, int err) {
        RxmConnection c = connectionOf(context);
        if (c != null && ep.connections.endHeldNow(c, err)) {
            return; // the end failed this operation too
        }
        if (context instanceof RxmTransmit t && t.inUse) {
            if (t.kind == RxmTransmit.Kind.RENDEZVOUS && ep.settings().rendezvousByWrite()) {
                writer.failed(t, err == 0 ? Errno.EIO : err); // its other writes may still be in flight
            } else {
                failTransmit(t, err == 0 ? Errno.EIO : err);
            }
        } else if (context instanceof RxmRendezvousRead rr) {
            rendezvous.readCompleted(rr, err == 0 ? Errno.EIO : err);
        }
        // a receive buffer fails only when its connection closes: it is not posted again
    }

    private void sent(RxmTransmit t, long flags) {
        switch (t.kind) {
            case EAGER, RMA -> finishSend(t, 0);
            case ATOMIC -> { // done once the target's response came as well
                t.sent = true;
                if (t.peerDone) {
                    finishSend(t, t.atomicError);
                }
            }
            case RENDEZVOUS -> {
                if (ep.settings().rendezvousByWrite()) {
                    writer.completed(t, flags);
                    return;
                }
                t.sent = true;
                if (t.peerDone) {
                    finishSend(t, 0);
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
            ep.connections.abort(c, Errno.ECONNABORTED, "the peer sent beyond the credits granted to it (it ignores flow control)");
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
        for (RxmConnection c : ep.connections.connections()) {
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
                return segments.segment(c, b, h, len, c.fiAddr(ep.addressVector()), force);
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
        long src = c.fiAddr(ep.addressVector());
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
        creditGrants.resume(ep.connections.connections());
    }

    private void readDone(long msgId) {
        RxmTransmit t = transmits.inFlight(msgId);
        if (t == null || t.kind != RxmTransmit.Kind.RENDEZVOUS) {
            LOG.log(System.Logger.Level.WARNING, "rxm: a read-done for unknown message " + msgId + " dropped");
            return;
        }
        t.peerDone = true;
        if (t.sent) {
            finishSend(t, 0);
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
            finishSend(t, t.atomicError);
        }
    }

    /** Tries again what waited for room or for a connection; returns the work done. */
    int retryDeferred() {
        int n = 0;
        if (pendingCount > 0) {
            long now = 0;
            for (RxmConnection c : ep.connections.connections()) {
                if (c.pendingHead != null && c.isConnected()) {
                    n += flush(c);
                } else if (c.alreadyAtNanos != 0) {
                    now = now == 0 ? System.nanoTime() : now;
                    n += ep.connections.retryAfterAlready(c, now);
                }
            }
        }
        n += rendezvous.retry() + writer.retry();
        n += atomics.retry();
        n += creditGrants.retry(ep.connections.connections());
        return n;
    }

    // =================================================================== connections

    /**
     * True while {@link #connectionEnded} drains the MSG CQ: the packets of the ending connection
     * read then are handled as usual (its MSG endpoint is already gone from it), not as late ones.
     */
    private boolean endingConnection;

    /**
     * Departure (R15): every transmit still in flight ends with {@code err}. Called once the
     * connections were ended and the endpoint stopped reading the MSG CQ, so no completion of
     * the MSG provider can come for them any more.
     */
    void failInFlight(int err) {
        for (RxmTransmit t : transmits.all()) {
            if (t.inUse) {
                failTransmit(t, err);
            }
        }
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
        for (RxmTransmit t : transmits.all()) {
            // (one still queued for the connection was never posted: no MSG completion comes for it)
            boolean queued = t.nextPending != null || c.pendingTail == t;
            if (t.inUse && t.connection == c && (!t.sent || t.outstanding > 0) && !queued) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void connectionEnded(RxmConnection c, int err, String why) {
        LOG.log(System.Logger.Level.DEBUG, "rxm: " + c + " ended: " + why);
        // the MSG endpoint is closed: what it completed before is handled first (a rendezvous
        // request that arrived then is abandoned below with the others), and what it held will
        // never complete (a close discards) — nor will the peer answer rendezvous sends
        endingConnection = true;
        try {
            ep.drainClosed();
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
        for (RxmTransmit t = c.pendingHead; t != null; ) {
            RxmTransmit next = t.nextPending;
            t.nextPending = null;
            pendingCount--;
            failTransmit(t, err);
            t = next;
        }
        c.pendingHead = null;
        c.pendingTail = null;
        for (RxmTransmit t : transmits.all()) {
            if (t.inUse && t.connection == c) {
                failTransmit(t, err);
            }
        }
    }
}
