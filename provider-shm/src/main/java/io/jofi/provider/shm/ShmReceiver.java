package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.UtilCompletionQueue;
import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * Receives messages: the posted receives (untagged and tagged, in posting order), the
 * unexpected queue for messages no receive took yet (bounded by the unexpected budget), the
 * match of a message against them ({@code (tag ^ sent) & ~ignore == 0}, {@code FI_DIRECTED_RECV}
 * by source), the placement of a message's fragments (reassembled per sender), multi-receive
 * buffers, {@code FI_PEEK}/{@code FI_CLAIM}/{@code FI_DISCARD} and cancel.
 *
 * <p>Completions are written by {@link ShmReceiveCompletions}; CMA messages, whose bytes stay
 * in the sender, by {@link ShmCmaReceiver}. Runs under the endpoint's lock; {@link #held} is
 * also read without it (the wait bridge).
 */
final class ShmReceiver {
    private final ShmEndpoint ep;
    private final ShmReceiveCompletions completions;
    /** FI_DIRECTED_RECV: a receive's source address filters senders. */
    private final boolean directed;
    private final ShmPostedReceive[] free;
    private int freeCount;
    private final ArrayList<ShmPostedReceive> msgRecvs;
    private final ArrayList<ShmPostedReceive> tagRecvs;
    final UnexpectedList msgUnexpected = new UnexpectedList(false);
    final UnexpectedList tagUnexpected = new UnexpectedList(true);
    /** Bytes the buffered unexpected messages count ({@link ShmUnexpectedMessage#footprint()}), and the budget for them. */
    private long unexpectedBytes;
    private final long unexpectedLimit;
    /** FI_OPT_MIN_MULTI_RECV: a multi-receive buffer is released once less than this is left. */
    long minMultiRecv = 1;
    /**
     * A message record was left in the ring because the unexpected budget is spent (volatile:
     * the MANUAL wait bridge reads it): the ring is not slept on (the record would wake the
     * step at once) and posting a receive wakes the progress to try it again.
     */
    volatile boolean held;
    /** Set by the handler of the record at hand: leave it in the ring. */
    boolean holdRecord;

    ShmReceiver(ShmEndpoint ep, ShmReceiveCompletions completions, int queueSize, long unexpectedLimit,
                boolean directed) {
        this.ep = ep;
        this.completions = completions;
        this.unexpectedLimit = unexpectedLimit;
        this.directed = directed;
        this.free = new ShmPostedReceive[queueSize];
        this.msgRecvs = new ArrayList<>(queueSize);
        this.tagRecvs = new ArrayList<>(queueSize);
    }

    // =================================================================== posting

    /**
     * A receive ({@code fi_recv} family, {@code fi_trecv} family): takes the oldest buffered
     * message it matches (a multi-receive as many as fit), else waits posted; 0 or a negative
     * errno (nothing posted then).
     */
    int post(ByteBuffer buf, Msg msg, long srcAddr, boolean tagged, long tag, long ignore, long flags, Object context) {
        if (!ep.enabled) {
            return -Errno.EOPBADSTATE;
        }
        if (ep.ringFailed) {
            return -Errno.EIO; // nothing can arrive any more (ShmFaults.failOwnRing)
        }
        boolean multi = (flags & Fi.FI_MULTI_RECV) != 0;
        if (multi && (tagged || (ep.caps & Fi.FI_MULTI_RECV) == 0)) {
            return -Errno.ENOSYS;
        }
        int iovs = msg == null ? 1 : msg.iovCount();
        UtilCompletionQueue rxCq = ep.rxCq; // bound (UtilEndpoint: -ENOCQ)
        if (freeCount == 0 && msgRecvs.size() + tagRecvs.size() >= ep.queueSize) {
            return -Errno.EAGAIN;
        }
        int rc = rxCq.reserve();
        if (rc != 0) {
            return rc;
        }
        budgetFreed(); // it may take a buffered message, or the one held in the ring
        ShmPostedReceive op = take();
        op.context = context;
        op.tagged = tagged;
        op.tag = tag;
        op.ignore = ignore;
        op.src = directed ? srcAddr : Fi.FI_ADDR_UNSPEC;
        op.complete = (flags & Fi.FI_COMPLETION) != 0;
        op.multi = multi;
        for (int i = 0; i < iovs; i++) {
            ByteBuffer b = msg == null ? buf : msg.iov(i);
            op.part(b, b.position(), b.remaining());
        }
        op.buf = iovs > 0 ? (msg == null ? buf : msg.iov(0)) : null;
        op.bufOffset = op.buf == null ? 0 : op.buf.position();
        UnexpectedList unexpected = tagged ? tagUnexpected : msgUnexpected;
        // an exact tag walks only that tag's chain (O(1) for the oldest such message)
        boolean exact = tagged && ignore == 0;
        ShmUnexpectedMessage u = exact ? unexpected.firstWithTag(tag) : unexpected.head();
        while (u != null) {
            ShmUnexpectedMessage following = exact ? unexpected.nextWithTag(u) : u.next;
            if (u.claimedBy != null || u.waiting != null || !op.matches(u.tagged, u.tag) || !srcMatches(op, u.sender)) {
                u = following;
                continue;
            }
            if (!u.isWhole()) {
                if (multi) {
                    u = following;
                    continue; // a multi-receive takes whole messages only
                }
                unexpected.remove(u);
                u.waiting = op; // completes when its last fragment arrives
                return 0;
            }
            unexpected.remove(u);
            if (deliverUnexpected(op, u)) {
                return 0;
            }
            // a multi-receive with room left takes the next one too (from the start if the
            // delivery changed the list: a peer failed by it takes its entries along)
            u = following == null || unexpected.contains(following) ? following
                    : exact ? unexpected.firstWithTag(tag) : unexpected.head();
        }
        (tagged ? tagRecvs : msgRecvs).add(op);
        return 0;
    }

    private boolean srcMatches(ShmPostedReceive op, Peer sender) {
        return op.src == Fi.FI_ADDR_UNSPEC || sender.fiAddrIn(ep.av) == op.src;
    }

    /** FI_PEEK (with FI_CLAIM / FI_DISCARD) and FI_CLAIM on the unexpected tagged messages ({@link io.jofi.spi.util.UtilEndpoint} checked the call). */
    int peekOrClaim(TaggedMsg msg, long flags) {
        UtilCompletionQueue rxCq = ep.rxCq; // bound (UtilEndpoint: -ENOCQ)
        int rc;
        Object ctx = msg.context();
        boolean peek = (flags & Fi.FI_PEEK) != 0;
        if (!peek) {
            // FI_CLAIM: the message set aside for this context
            for (ShmUnexpectedMessage u = tagUnexpected.head(); u != null; u = u.next) {
                if (u.claimedBy == ctx) {
                    rc = rxCq.reserve();
                    if (rc != 0) {
                        return rc;
                    }
                    tagUnexpected.remove(u);
                    budgetFreed();
                    if ((flags & Fi.FI_DISCARD) != 0) {
                        dropUnexpected(u);
                        rxCq.complete(ctx, Fi.FI_RECV | Fi.FI_TAGGED, 0, null, 0, u.data, u.tag, Fi.FI_ADDR_NOTAVAIL);
                        return 0;
                    }
                    ShmPostedReceive op = take();
                    op.context = ctx;
                    op.tagged = true;
                    op.tag = u.tag;
                    op.src = Fi.FI_ADDR_UNSPEC;
                    op.complete = true;
                    for (int k = 0; k < msg.iovCount(); k++) {
                        ByteBuffer b = msg.iov(k);
                        op.part(b, b.position(), b.remaining());
                    }
                    op.buf = msg.iovCount() > 0 ? msg.iov(0) : null;
                    op.bufOffset = op.buf == null ? 0 : op.buf.position();
                    if (u.isWhole()) {
                        deliverUnexpected(op, u);
                    } else {
                        u.waiting = op;
                    }
                    return 0;
                }
            }
            return -Errno.ENOMSG;
        }
        rc = rxCq.reserve();
        if (rc != 0) {
            return rc;
        }
        long src = directed ? msg.addr() : Fi.FI_ADDR_UNSPEC;
        for (ShmUnexpectedMessage u = tagUnexpected.head(); u != null; u = u.next) {
            if (u.claimedBy != null || u.waiting != null || ((u.tag ^ msg.tag()) & ~msg.ignore()) != 0
                    || !(src == Fi.FI_ADDR_UNSPEC || u.sender.fiAddrIn(ep.av) == src)) {
                continue;
            }
            long f = Fi.FI_RECV | Fi.FI_TAGGED | (u.hasData ? Fi.FI_REMOTE_CQ_DATA : 0);
            if ((flags & Fi.FI_DISCARD) != 0) {
                tagUnexpected.remove(u);
                dropUnexpected(u);
            } else if ((flags & Fi.FI_CLAIM) != 0) {
                u.claimedBy = ctx;
            }
            rxCq.complete(ctx, f, u.length(), null, 0, u.data, u.tag, completions.sourceOf(u.sender));
            return 0;
        }
        rxCq.completeError(ctx, Fi.FI_RECV | Fi.FI_TAGGED, 0, null, 0, 0, msg.tag(), 0, Errno.ENOMSG, 0, null, 0,
                Fi.FI_ADDR_NOTAVAIL);
        return 0;
    }

    private void dropUnexpected(ShmUnexpectedMessage u) {
        unexpectedBytes -= u.footprint();
        budgetFreed();
        // a discarded CMA message is acknowledged too: its sender completes (nothing was read)
        if (u.cma || (u.wireFlags & ShmRecordDescriptor.ACK_MATCH) != 0) {
            ep.transmitter.sendAnswer(u.sender, ShmRecordDescriptor.ACK, u.token, 0, 0, 0);
        }
    }

    /**
     * {@code fi_cancel}: a pending receive with this context completes with {@code ECANCELED}
     * (R13); a message claimed by {@code FI_PEEK | FI_CLAIM} for it is released.
     *
     * @return whether there was one
     */
    boolean cancel(Object context) {
        return cancelIn(msgRecvs, context) || cancelIn(tagRecvs, context)
                || cancelWaiting(msgUnexpected, context) || cancelWaiting(tagUnexpected, context);
    }

    private boolean cancelIn(ArrayList<ShmPostedReceive> list, Object context) {
        for (int i = 0, n = list.size(); i < n; i++) {
            ShmPostedReceive op = list.get(i);
            if (op.context == context && !isFilling(op)) {
                list.remove(i);
                completions.fail(op, Errno.ECANCELED, op.tagged);
                return true;
            }
        }
        return false;
    }

    /**
     * A receive that took an unexpected message whose last fragments are still to come: it is
     * cancelled, and the message goes back to the unexpected list for a later receive.
     */
    private boolean cancelWaiting(UnexpectedList list, Object context) {
        for (Peer p : ep.peers.all()) {
            ShmUnexpectedMessage u = p.inbound.unexpected;
            if (u != null && u.waiting != null && u.waiting.context == context && (u.tagged == (list == tagUnexpected))) {
                ShmPostedReceive op = u.waiting;
                u.waiting = null;
                list.add(u);
                completions.fail(op, Errno.ECANCELED, u.tagged);
                return true;
            }
        }
        return false;
    }

    private boolean isFilling(ShmPostedReceive op) {
        for (Peer p : ep.peers.all()) {
            if (p.inbound.receive == op) {
                return true;
            }
        }
        return false;
    }

    // =================================================================== arrival

    /**
     * A message fragment from {@code p} (not CMA): the first matches a receive or becomes an
     * unexpected message (when the budget admits it: else the record stays in the ring); each
     * is placed at its offset; the last completes the receive (or the waiting one).
     */
    void onMessage(Peer p, ShmRecord r) {
        ShmInboundMessage m = p.inbound;
        long offset = r.fragmentOffset();
        if (r.has(ShmRecordDescriptor.FIRST)) {
            if (m.inProgress()) {
                ep.peers.failPeer(p, Errno.EPROTO); // a new message before the last one ended
                return;
            }
            long total = r.totalLength();
            if (total < 0 || total > ShmProvider.MAX_MSG_SIZE || offset != 0) {
                ep.peers.failPeer(p, Errno.EPROTO);
                return;
            }
            m.start(r);
            ShmPostedReceive op = match(m.tagged(), m.tag, p);
            if (op != null) {
                m.receive = op;
                op.placed = 0;
                if (r.has(ShmRecordDescriptor.ACK_MATCH)) {
                    ep.transmitter.sendAnswer(p, ShmRecordDescriptor.ACK, m.token, 0, 0, 0);
                }
            } else {
                if (!admitUnexpected(ShmUnexpectedMessage.footprintOf(total))) {
                    return; // stays in the ring until receives take what is buffered
                }
                ShmUnexpectedMessage u = new ShmUnexpectedMessage(p, m.tagged(), m.tag, m.hasData(), m.data, (int) total,
                        m.token, m.kindFlags);
                buffer(u);
                m.unexpected = u;
            }
        } else if (!m.inProgress()) {
            ep.peers.failPeer(p, Errno.EPROTO);
            return;
        }
        int n = r.payloadLength();
        if (offset < 0 || n > m.total - offset) {
            ep.peers.failPeer(p, Errno.EPROTO);
            return;
        }
        ShmPostedReceive op = m.receive;
        if (op != null) {
            int placed = op.place(offset, r.payloadBuffer(), r.payloadAt(), n);
            op.placed += placed;
            m.dropped += n - placed;
        } else {
            m.unexpected.bytes.put((int) offset, r.payloadBuffer(), r.payloadAt(), n);
            m.unexpected.arrived += n;
        }
        if (!r.has(ShmRecordDescriptor.LAST)) {
            return;
        }
        if (op == null && m.unexpected.arrived != m.total) {
            ep.peers.failPeer(p, Errno.EPROTO);
            return;
        }
        if ((m.kindFlags & ShmRecordDescriptor.ACK_ARRIVAL) != 0) {
            ep.transmitter.sendAnswer(p, ShmRecordDescriptor.ACK, m.token, 0, 0, 0);
        }
        op = m.receive; // again: the answer may have failed the peer, and the receive with it
        if (op != null) {
            m.receive = null;
            completions.finish(op, p, m.tagged(), m.tag, m.hasData(), m.data, op.placed, m.dropped);
        } else {
            ShmUnexpectedMessage u = m.unexpected;
            m.unexpected = null;
            if (u.waiting != null) {
                ShmPostedReceive w = u.waiting;
                u.waiting = null;
                deliverUnexpected(w, u);
            }
        }
    }

    /** The first posted receive that takes a message (ordered; a multi-receive being filled is skipped). */
    ShmPostedReceive match(boolean tagged, long tag, Peer sender) {
        ArrayList<ShmPostedReceive> list = tagged ? tagRecvs : msgRecvs;
        for (int i = 0, n = list.size(); i < n; i++) {
            ShmPostedReceive op = list.get(i);
            if (op.matches(tagged, tag) && srcMatches(op, sender)) {
                if (op.multi) {
                    if (isFilling(op)) {
                        continue;
                    }
                    return op; // stays posted until released
                }
                list.remove(i);
                return op;
            }
        }
        return null;
    }

    /**
     * A receive takes a whole buffered message.
     *
     * @return true when the receive is done (a multi-receive: released)
     */
    private boolean deliverUnexpected(ShmPostedReceive op, ShmUnexpectedMessage u) {
        unexpectedBytes -= u.footprint();
        if (u.cma) {
            return ep.cmaReceiver.deliver(op, u);
        }
        int total = u.bytes.capacity();
        int placed = op.place(0, u.bytes, 0, total);
        if ((u.wireFlags & ShmRecordDescriptor.ACK_MATCH) != 0) {
            ep.transmitter.sendAnswer(u.sender, ShmRecordDescriptor.ACK, u.token, 0, 0, 0);
        }
        return completions.finish(op, u.sender, u.tagged, u.tag, u.hasData, u.data, placed, total - placed);
    }

    /** A multi-receive buffer released (it is no longer posted). */
    void unpost(ShmPostedReceive op) {
        msgRecvs.remove(op);
    }

    // =================================================================== the unexpected budget

    /**
     * Whether a new unexpected message of {@code cost} bytes ({@link ShmUnexpectedMessage#footprint()})
     * fits the budget; the first one always does (so FI_PEEK sees something). When it does not,
     * the record at hand stays in the ring ({@link #holdRecord}): the ring fills and its
     * senders are pushed back (their queues fill, posts answer -EAGAIN); nothing is lost.
     */
    boolean admitUnexpected(long cost) {
        if (unexpectedBytes + cost <= unexpectedLimit || (msgUnexpected.isEmpty() && tagUnexpected.isEmpty())) {
            return true;
        }
        holdRecord = true;
        held = true;
        return false;
    }

    /** Puts an admitted message on its unexpected list and counts it against the budget. */
    void buffer(ShmUnexpectedMessage u) {
        unexpectedBytes += u.footprint();
        (u.tagged ? tagUnexpected : msgUnexpected).add(u);
    }

    /** A receive may have freed unexpected budget: a progress holding a record back tries it again. */
    private void budgetFreed() {
        if (held) {
            held = false;
            ep.domain.engine().wakeup();
        }
    }

    /** Messages buffered as unexpected (tests). */
    int unexpectedCount() {
        return msgUnexpected.size() + tagUnexpected.size();
    }

    // =================================================================== failure, close, departure

    /**
     * {@code p} failed: the receive it was filling fails (a multi-receive stays posted for
     * others), its partial unexpected message is dropped (with the receive waiting for it),
     * and so are its CMA messages not yet matched (they can never be read now).
     */
    void failPeerReceives(Peer p, int err) {
        ShmInboundMessage m = p.inbound;
        if (m.receive != null) {
            ShmPostedReceive r = m.receive;
            m.receive = null;
            if (r.multi) {
                r.placed = 0; // a multi-receive that lost its filling peer stays posted for others
            } else {
                completions.fail(r, err, r.tagged);
            }
        }
        if (m.unexpected != null) {
            ShmUnexpectedMessage u = m.unexpected;
            m.unexpected = null;
            (u.tagged ? tagUnexpected : msgUnexpected).remove(u);
            unexpectedBytes -= u.footprint();
            if (u.waiting != null) {
                completions.fail(u.waiting, err, u.tagged);
            }
        }
        dropCmaOf(p, msgUnexpected);
        dropCmaOf(p, tagUnexpected);
    }

    private void dropCmaOf(Peer p, UnexpectedList list) {
        for (ShmUnexpectedMessage u = list.head(), next; u != null; u = next) {
            next = u.next;
            if (u.cma && u.sender == p) {
                list.remove(u);
                unexpectedBytes -= u.footprint();
            }
        }
    }

    /** Our ring failed: nothing can arrive any more, so every receive posted or filling fails with {@code EIO}. */
    void failOwnRing() {
        for (Peer p : ep.peers.all()) {
            p.inbound.receive = null; // the receive it was filling is failed with the lists below
            ShmUnexpectedMessage u = p.inbound.unexpected;
            if (u != null && u.waiting != null) {
                ShmPostedReceive r = u.waiting;
                u.waiting = null;
                completions.fail(r, Errno.EIO, r.tagged);
            }
        }
        failAll(msgRecvs, Errno.EIO);
        failAll(tagRecvs, Errno.EIO);
    }

    /** R15: every posted receive completes with {@code err}. */
    void depart(int err) {
        failAll(msgRecvs, err);
        failAll(tagRecvs, err);
    }

    private void failAll(ArrayList<ShmPostedReceive> list, int err) {
        for (int i = list.size() - 1; i >= 0; i--) {
            ShmPostedReceive op = list.remove(i);
            completions.fail(op, err, op.tagged);
        }
    }

    /** Close: posted receives go without completions; the CQ room they reserved is returned. */
    void discardAll() {
        for (int i = msgRecvs.size() + tagRecvs.size(); i > 0; i--) {
            ep.rxCq.unreserve();
        }
        msgRecvs.clear();
        tagRecvs.clear();
    }

    // =================================================================== the pool

    private ShmPostedReceive take() {
        if (freeCount > 0) {
            ShmPostedReceive op = free[--freeCount];
            free[freeCount] = null;
            return op;
        }
        ShmPostedReceive op = new ShmPostedReceive();
        op.reset();
        return op;
    }

    /** Returns a finished receive to the pool. */
    void give(ShmPostedReceive op) {
        op.reset();
        if (freeCount < free.length) {
            free[freeCount++] = op;
        }
    }
}
