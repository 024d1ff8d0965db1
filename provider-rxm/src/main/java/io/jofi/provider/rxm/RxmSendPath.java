package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.HEADER_LENGTH;

import io.jofi.Domain;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;

/**
 * The send path of an rxm endpoint, as libfabric's {@code rxm_msg.c}: it admits a
 * transmit (the peer's connection, CQ room, a pooled transmit), writes its packets (eager:
 * header and payload in the transmit's bounce buffer; segments; rendezvous: header and the
 * descriptor of the application's registered buffers; an RMA passed through; an atomic's
 * request), posts them on the peer's MSG connection or queues them behind a connection being
 * made, and completes transmits for the application. Arrivals and MSG completions are
 * {@link RxmPacketHandler}'s; it calls back here to finish what it sees sent or answered.
 *
 * <p>Called under the endpoint's lock; allocation-free.
 */
final class RxmSendPath implements RxmSendQueue {
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

    /**
     * What the send path asks of its endpoint, as the endpoint has it at the time of the post:
     * its connections (made once it is enabled), its bindings (the transmit CQ and counters) and
     * the writer of atomic requests (the packet handler's {@link RxmAtomics}).
     */
    interface Owner {
        /** The connection to the peer {@code fiAddr} names in the bound AV; null when it names none. */
        RxmConnection connectionTo(long fiAddr);

        /** Starts connecting {@code c}; 0, or a negative errno. */
        int connect(RxmConnection c);

        /** The bound transmit CQ. */
        UtilCompletionQueue transmitCq();

        /** The bound counter of a completion with these flags, or null. */
        UtilCounter counter(long completionFlags);

        /** A fresh key for a rendezvous registration. */
        long nextKey();

        /** Writes an atomic's request packet into {@code t}. */
        void writeAtomicRequest(RxmTransmit t);
    }

    private final Owner owner;
    private final Domain domain;
    private final RxmTransmitPool transmits;
    private final RxmSettings settings;
    private final RxmPacketHeader txHeader = new RxmPacketHeader();
    private final RxmRegistrationCache registrations = new RxmRegistrationCache();
    private final RxmSegmentSender segmentSender;
    /** Transmits waiting for connections (flushed by the progress pass once they connect). */
    private int pendingCount;
    /** Why the last {@link #admit} refused (read right after it). */
    private int refusal;

    /** @param domain the MSG domain, where rendezvous buffers are registered */
    RxmSendPath(Owner owner, Domain domain, RxmTransmitPool transmits, RxmSettings settings) {
        this.owner = owner;
        this.domain = domain;
        this.transmits = transmits;
        this.settings = settings;
        this.segmentSender = new RxmSegmentSender(this, transmits, settings);
    }

    // =================================================================== the funnels

    /** A message or tagged message: eager, in segments or by rendezvous by its size and completion level. */
    int send(ByteBuffer buf, Msg msg, long length, long destAddr, boolean tagged, long tag, long data, long flags,
             Object context) {
        RxmTransmit t = admit(destAddr, PostChecks.reportsToCq(flags));
        if (t == null) {
            return refusal;
        }
        RxmConnection c = t.connection;
        t.context = context;
        t.flags = flags;
        t.completionFlags = Fi.FI_SEND | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG);
        RxmPacketHeader h = txHeader.clear();
        h.connId = c.remoteIndex & 0xFFFF_FFFFL;
        h.op = tagged ? RxmWireDescriptor.OP_TAGGED : RxmWireDescriptor.OP_MSG;
        h.tag = tagged ? tag : 0;
        h.flags = (flags & Fi.FI_REMOTE_CQ_DATA) != 0 ? RxmWireDescriptor.FLAG_REMOTE_CQ_DATA : 0;
        h.data = (flags & Fi.FI_REMOTE_CQ_DATA) != 0 ? data : 0;
        h.size = length;
        // FI_DELIVERY_COMPLETE goes by rendezvous whatever the size: its completion waits for
        // the receiver's read-done, which comes once the data is in the receive (or held);
        // above the eager limit up to the SAR limit a message goes in segments
        boolean rendezvous = length > settings.sarLimit()
                || ((flags & (Fi.FI_DELIVERY_COMPLETE | Fi.FI_MATCH_COMPLETE)) != 0 && length > 0);
        if ((flags & Fi.FI_MATCH_COMPLETE) != 0) {
            h.opData = RxmWireDescriptor.OP_DATA_MATCH_COMPLETE;
        }
        int rc = rendezvous ? sendRendezvous(t, h, buf, msg, length) : length > settings.eagerLimit()
                ? sendSegmented(t, h, buf, msg, length) : sendEager(t, h, buf, msg, (int) length);
        if (rc != 0) {
            refund(t);
        }
        return rc;
    }

    /**
     * An RMA, passed through to the MSG connection of the peer (rxm's way): the MSG provider
     * moves the bytes and serves the target side; an inject is copied into a bounce buffer first.
     */
    int rma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length, long peerAddr, long addr,
            long key, long data, long flags, Object context) {
        RxmTransmit t = admit(peerAddr, PostChecks.reportsToCq(flags));
        if (t == null) {
            return refusal;
        }
        t.kind = RxmTransmit.Kind.RMA;
        t.context = context;
        t.flags = flags;
        t.completionFlags = Fi.FI_RMA | (read ? Fi.FI_READ : Fi.FI_WRITE);
        int rc = passRma(t, read, buf, desc, msg, length, addr, key, data);
        if (rc != 0) {
            refund(t);
        }
        return rc;
    }

    /**
     * An atomic, as rxm's atomic request packet; the target executes it and answers with the old
     * value ({@link RxmAtomics}); the completion comes once both the request's send and the
     * response are in.
     */
    int atomic(int op, long operand, long compare, ByteBuffer result, long destAddr, long addr, long key, long flags,
               Object context) {
        RxmTransmit t = admit(destAddr, true);
        if (t == null) {
            return refusal;
        }
        t.kind = RxmTransmit.Kind.ATOMIC;
        t.context = context;
        t.flags = flags;
        t.completionFlags = Fi.FI_ATOMIC | (result != null ? Fi.FI_READ : Fi.FI_WRITE);
        t.atomicOp = op;
        t.operand = operand;
        t.compare = compare;
        t.result = result;
        t.atomicCount = 0;
        t.remoteAddr = addr;
        t.remoteKey = key;
        owner.writeAtomicRequest(t);
        int rc = submit(t);
        if (rc != 0) {
            refund(t);
        }
        return rc;
    }

    /** A typed atomic ({@code count} elements of {@code datatype}): rxm's request packet with them. */
    int typedAtomic(long kind, int datatype, int op, int count, ByteBuffer buf, ByteBuffer compare, ByteBuffer result,
                    long destAddr, long addr, long key, long flags, Object context) {
        RxmTransmit t = admit(destAddr, true);
        if (t == null) {
            return refusal;
        }
        t.kind = RxmTransmit.Kind.ATOMIC;
        t.context = context;
        t.flags = flags;
        t.completionFlags = Fi.FI_ATOMIC | (kind != 0 ? Fi.FI_READ : Fi.FI_WRITE);
        t.atomicOp = op;
        t.atomicCount = count;
        t.atomicDatatype = datatype;
        t.atomicKind = kind;
        t.typedOperands = buf;
        t.typedCompares = compare;
        t.result = result;
        t.remoteAddr = addr;
        t.remoteKey = key;
        owner.writeAtomicRequest(t);
        int rc = submit(t);
        if (rc != 0) {
            refund(t);
        }
        return rc;
    }

    /**
     * What every funnel takes before it builds its operation — the peer's connection
     * ({@code -EINVAL}: not in the AV), CQ room when the operation reports (R6) and a pooled
     * transmit ({@code -EAGAIN}: none free). Null with {@link #refusal} set when one is missing;
     * nothing is then held.
     */
    private RxmTransmit admit(long fiAddr, boolean reports) {
        RxmConnection c = owner.connectionTo(fiAddr);
        if (c == null) {
            refusal = -Errno.EINVAL;
            return null;
        }
        if (reports) {
            int rc = owner.transmitCq().reserve();
            if (rc != 0) {
                refusal = rc;
                return null;
            }
        }
        RxmTransmit t = transmits.take();
        if (t == null) {
            if (reports) {
                owner.transmitCq().unreserve();
            }
            refusal = -Errno.EAGAIN;
            return null;
        }
        t.connection = c;
        t.reports = reports;
        return t;
    }

    /** Gives back what {@link #admit} took, for an operation that was refused after it. */
    private void refund(RxmTransmit t) {
        boolean reports = t.reports;
        transmits.give(t);
        if (reports) {
            owner.transmitCq().unreserve();
        }
    }

    // =================================================================== packets

    /** An eager message: header and payload copied into the transmit's packet, sent. */
    private int sendEager(RxmTransmit t, RxmPacketHeader h, ByteBuffer buf, Msg msg, int n) {
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
    private int sendSegmented(RxmTransmit t, RxmPacketHeader h, ByteBuffer buf, Msg msg, long length) {
        return segmentSender.send(t, h, buf, msg, length, t.flags & PASSED_FLAGS);
    }

    /**
     * A rendezvous: the application's buffers registered for remote reads with the MSG domain,
     * the descriptor sent; the transmit completes when the receiver says it read them.
     */
    private int sendRendezvous(RxmTransmit t, RxmPacketHeader h, ByteBuffer buf, Msg msg, long length) {
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
                MemoryRegion mr = registrations.acquire(domain, b, owner.nextKey());
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
    private int passRma(RxmTransmit t, boolean read, ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long addr,
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
    @Override
    public int submit(RxmTransmit t) {
        RxmConnection c = t.connection;
        if (!c.isConnected() || c.pendingHead != null) {
            if (c.state == RxmConnection.State.IDLE) {
                int rc = owner.connect(c);
                if (rc != 0) {
                    return rc;
                }
            }
            queuePending(c, t);
            return 0;
        }
        return postNow(t);
    }

    /** Puts {@code t} at the end of {@code c}'s pending sends (posted in order by {@link RxmPacketHandler#retryDeferred}). */
    @Override
    public void queuePending(RxmConnection c, RxmTransmit t) {
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
            boolean takesReceive = credits.remoteDataTakesReceive() && (t.postFlags & Fi.FI_REMOTE_CQ_DATA) != 0;
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
    int flush(RxmConnection c) {
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

    @Override
    public void failTransmit(RxmTransmit t, int err) {
        err = err == Errno.ENODEV ? Errno.ECANCELED : err; // the MSG provider departed under it: R15's cancel
        if (t.kind == RxmTransmit.Kind.CONTROL || t.kind == RxmTransmit.Kind.SEGMENT) {
            transmits.give(t);
        } else {
            finishSend(t, err);
        }
    }

    @Override
    public void finishSend(RxmTransmit t, int err) {
        closeRegions(t);
        UtilCounter counter = owner.counter(t.kind == RxmTransmit.Kind.RMA || t.kind == RxmTransmit.Kind.ATOMIC
                ? t.completionFlags : Fi.FI_SEND);
        if (t.reports) {
            UtilCompletionQueue cq = owner.transmitCq();
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
    }


    // =================================================================== what waits and what ends

    /** Whether transmits wait for connections (the progress pass then flushes them). */
    boolean hasPending() {
        return pendingCount > 0;
    }

    /**
     * Departure (R6, R15): every transmit still in flight ends with {@code err}. Called once the
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

    /** Whether operations on {@code c} wait for a MSG completion (a held end waits for them). */
    boolean awaitsMsgCompletions(RxmConnection c) {
        for (RxmTransmit t : transmits.all()) {
            // (one still queued for the connection was never posted: no MSG completion comes for it)
            boolean queued = t.nextPending != null || c.pendingTail == t;
            if (t.inUse && t.connection == c && (!t.sent || t.outstanding > 0) && !queued) {
                return true;
            }
        }
        return false;
    }

    /** {@code c} ended: what waited for it and what was in flight on it fail with {@code err}. */
    void connectionEnded(RxmConnection c, int err) {
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
