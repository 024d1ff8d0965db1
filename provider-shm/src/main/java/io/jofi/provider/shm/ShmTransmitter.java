package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;

/**
 * Sends: it posts messages, queues outgoing operations towards their peers in order, has
 * {@link ShmRingWriter} write them into the peers' rings (inline, through bounce slots, or as
 * one CMA record), and completes them — at once, on a life check of the peer ({@code FI_TRANSMIT_COMPLETE}), or on
 * the peer's answer (found again by its token in the {@link ShmOperationTable}).
 *
 * <p>A full ring leaves the rest queued towards that peer until the progress flushes it again
 * (the ring's capacity is the flow control). Runs under the endpoint's lock; nothing is
 * allocated per operation once the table has grown to the load.
 */
final class ShmTransmitter implements ShmAnswers, ShmAcks {
    /** {@link #admit}: the peer failed earlier; a completion room is reserved for the error entry. */
    static final int PEER_FAILED = 1;
    /** Replies owed to one peer beyond which it is declared failed (a peer that never drains). */
    private static final int MAX_QUEUED_PER_PEER = 1 << 16;
    private static final long ACK_LEVELS = Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMMIT_COMPLETE;

    private final ShmOwnRing own;
    private final ShmPeers peers;
    private final ShmTxCompletions completions;
    /** Writes the records, and decides where cross-memory attach applies. */
    private final ShmRingWriter writer;
    private final ShmOperationTable table = new ShmOperationTable();
    /** Ops started ({@link #start}): tells a post's fault handling whether its op is recorded (read unlocked). */
    private long opsStarted;
    /** FI_TRANSMIT_COMPLETE operations waiting for a life check of their peer ({@link Peer#unconfirmed}, summed). */
    private int unconfirmed;

    ShmTransmitter(ShmOwnRing own, ShmPeers peers, ShmTxCompletions completions, ShmRingWriter writer) {
        this.own = own;
        this.peers = peers;
        this.completions = completions;
        this.writer = writer;
    }

    /** Ops started so far: a post's fault handling compares it before and after ({@link ShmFaults#onPostFault}). */
    long opsStarted() {
        return opsStarted;
    }

    /** Whether FI_TRANSMIT_COMPLETE sends wait for a life check of their peers ({@link ShmPeers#progress}). */
    boolean awaitsLifeChecks() {
        return unconfirmed > 0;
    }

    // =================================================================== posting

    /**
     * A message ({@code fi_send} family, {@code fi_tsend} family; {@link io.jofi.spi.util.UtilEndpoint}
     * checked it): admits it and queues it towards its peer; 0 or a negative errno (nothing
     * posted then).
     */
    int postMsg(ByteBuffer buf, Msg msg, long length, long destAddr, boolean tagged, long tag, long data, long flags,
                Object context) {
        if (!own.enabled()) {
            return -Errno.EOPBADSTATE;
        }
        int iovs = msg == null ? 1 : msg.iovCount();
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        boolean withData = (flags & Fi.FI_REMOTE_CQ_DATA) != 0;
        Peer peer = peers.peerFor(destAddr);
        boolean reports = PostChecks.reportsToCq(flags); // fi_inject never completes; a send with FI_INJECT does
        int rc = admit(peer, reports);
        if (rc == PEER_FAILED) {
            return failLocally(true, context, Fi.FI_SEND | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG), peer.failed,
                    completions.counterOf(Fi.FI_SEND));
        }
        if (rc != 0) {
            return rc;
        }
        ShmOutboundOp op = start(ShmRecordDescriptor.MSG, peer, context, reports, flags,
                Fi.FI_SEND | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG), Fi.FI_SEND);
        int wf = (tagged ? ShmRecordDescriptor.TAGGED : 0) | (withData ? ShmRecordDescriptor.HAS_DATA : 0);
        if ((flags & ACK_LEVELS) != 0) {
            wf |= ShmRecordDescriptor.ACK_ARRIVAL;
        } else if ((flags & Fi.FI_MATCH_COMPLETE) != 0) {
            wf |= ShmRecordDescriptor.ACK_MATCH;
        }
        op.wireFlags = wf;
        op.awaitsAnswer = (wf & (ShmRecordDescriptor.ACK_ARRIVAL | ShmRecordDescriptor.ACK_MATCH)) != 0;
        op.a = tag;
        op.b = data;
        // An inject towards a peer with nothing queued goes into its ring from the caller's
        // buffer at once (one copy, not two: the 4 KiB inject's second copy was measurable);
        // only what is still queued when the post returns is copied (keepPayload).
        boolean copyLater = inject && peer.queue.isEmpty();
        attachPayload(op, buf, msg, iovs, inject && !copyLater);
        if (!inject && writer.cmaApplies(op, length)) {
            if (peer.cma == Peer.CMA_ON) {
                // one record with our iovecs; the receiver reads them, then ACKs: complete then
                op.wireFlags |= ShmRecordDescriptor.CMA;
                op.awaitsAnswer = true;
            } else if (peer.cma == Peer.CMA_UNKNOWN) {
                startProbe(peer); // ahead of this message, which takes the bounce path
            }
        }
        // FI_TRANSMIT_COMPLETE: "delivered to the peer" must mean the peer lived to take it: the
        // completion waits for a life check made after the publish (an ACK level proves it anyway)
        op.awaitsAlive = reports && !op.awaitsAnswer && (flags & Fi.FI_TRANSMIT_COMPLETE) != 0;
        try {
            queue(peer, op);
        } finally { // also when a fault comes out of the push (the op may stay queued then)
            if (copyLater && peer.queue.peekLast() == op) {
                op.keepPayload(); // not (all) in the ring: the caller may reuse its buffer once we return
            }
        }
        return 0;
    }

    /**
     * Admits a transmit towards {@code peer}: {@code -EINVAL} for no peer, {@code -EHOSTUNREACH} when the peer was never
     * reachable, {@link #PEER_FAILED} (with a CQ slot reserved) when it failed earlier (died,
     * stalled, misbehaved: the operation completes with that error as an entry, as those pending
     * then did; an inject, which has no completion, gets {@code -errno}), {@code -EAGAIN} when
     * the queue is full; then a CQ slot reserved for a reporting one.
     */
    int admit(Peer peer, boolean reports) {
        if (peer == null) {
            return -Errno.EINVAL;
        }
        if (!peers.linked(peer)) {
            if (peer.failed == Errno.EHOSTUNREACH || !reports) {
                return -peer.failed; // unreachable (no such endpoint, refused region), or an inject
            }
            int rc = completions.reserve();
            return rc != 0 ? rc : PEER_FAILED;
        }
        if (completions.queueFull()) {
            return -Errno.EAGAIN;
        }
        return reports ? completions.reserve() : 0;
    }

    /** A pooled descriptor set up for a transmit of {@code kind}; the completion flag comes from {@code flags}. */
    ShmOutboundOp start(int kind, Peer peer, Object context, boolean reports, long flags, long cqFlags, long counter) {
        ShmOutboundOp op = take();
        opsStarted++;
        op.kind = kind;
        op.peer = peer;
        op.context = context;
        op.reports = reports;
        op.complete = (flags & Fi.FI_COMPLETION) != 0;
        op.cqFlags = cqFlags;
        op.counter = counter;
        return op;
    }

    /** Queues an application operation ({@link #start}ed) towards its peer: it counts as pending until it completes. */
    void queue(Peer peer, ShmOutboundOp op) {
        completions.started();
        enqueue(peer, op);
    }

    /**
     * Puts the payload ({@code buf} or {@code msg}'s iovs) into the op's parts: in place, or
     * with {@code inject} copied now (the caller may reuse the buffer at once). The op's
     * {@code c} is the payload's length.
     */
    static void attachPayload(ShmOutboundOp op, ByteBuffer buf, Msg msg, int iovs, boolean inject) {
        if (inject) {
            if (op.injectCopy == null) {
                op.injectCopy = ByteBuffer.allocateDirect(ShmEndpoint.INJECT_SIZE);
            }
            int at = 0;
            for (int i = 0; i < iovs; i++) {
                ByteBuffer b = msg == null ? buf : msg.iov(i);
                int n = b.remaining();
                op.injectCopy.put(at, b, b.position(), n);
                at += n;
            }
            op.part(op.injectCopy, 0, at);
        } else {
            for (int i = 0; i < iovs; i++) {
                ByteBuffer b = msg == null ? buf : msg.iov(i);
                op.part(b, b.position(), b.remaining());
            }
        }
        op.c = op.length;
    }

    /**
     * A one-sided access done in the target's published memory: its completion (or the
     * reserved slot given back when none is wanted) and its counter, at once; 0.
     */
    int completedDirect(boolean reports, long flags, Object context, long cqFlags, UtilCounter counter) {
        if (reports) {
            if ((flags & Fi.FI_COMPLETION) != 0) {
                completions.success(context, cqFlags);
            } else {
                completions.unreserve();
            }
        }
        ShmBindings.count(counter);
        return 0;
    }

    /**
     * An operation that fails before anything is sent (a failed peer, an access the published
     * registration refuses): an error completion now, as the target's own check would answer;
     * the target is untouched. 0.
     */
    int failLocally(boolean reports, Object context, long cqFlags, int err, UtilCounter counter) {
        if (reports) {
            completions.error(context, cqFlags, err);
        }
        if (counter != null) {
            counter.incrementError();
        }
        return 0;
    }

    /**
     * Queues the CMA probe towards {@code peer}: the address of our probe word and its value;
     * the peer reads it with {@code process_vm_readv} and ACKs 0 (CMA on) or the errno (off).
     * A peer whose region does not offer CMA is off at once.
     */
    private void startProbe(Peer peer) {
        if (!peer.link.peerDoesCma()) {
            peer.cma = Peer.CMA_OFF;
            peer.cmaReason = "the peer's region does not offer CMA (cmaThreshold 0 or CMA unavailable there)";
            return;
        }
        ShmOutboundOp op = take();
        op.kind = ShmRecordDescriptor.PROBE;
        op.peer = peer;
        writer.probeWord(op);
        op.awaitsAnswer = true;
        peer.cma = Peer.CMA_PROBING;
        enqueue(peer, op);
    }

    /** Queues an answer this side owes {@code peer} (ACK, READ_RESP without data, ATOMIC_RESP). */
    @Override
    public void sendAnswer(Peer peer, int kind, long token, int status, long b, int flags) {
        if (peer == null || peer.failed != 0) {
            return;
        }
        ShmOutboundOp op = take();
        op.kind = kind;
        op.peer = peer;
        op.token = token;
        op.status = status;
        op.b = b;
        op.wireFlags = flags;
        enqueue(peer, op);
    }

    // =================================================================== into the peers' rings

    /** Queues {@code op} towards {@code peer}, and writes it at once when nothing is ahead of it. */
    void enqueue(Peer peer, ShmOutboundOp op) {
        boolean idle = peer.queue.isEmpty();
        peer.queue.addLast(op);
        if (peer.queue.size() > MAX_QUEUED_PER_PEER) {
            peers.failPeer(peer, Errno.ECONNRESET);
            return;
        }
        if (idle) {
            flush(peer);
        }
    }

    /** Publishes what fits of the peer's queue into its ring, in order; the work done. */
    int flush(Peer peer) {
        int work = 0;
        if (peer.queue.isEmpty() && peer.outstanding == 0) {
            return 0;
        }
        if (!peers.linked(peer)) {
            peers.failPeer(peer, Errno.EHOSTUNREACH);
            return 1;
        }
        ShmOutboundOp op;
        while ((op = peer.queue.peekFirst()) != null) {
            if (!op.inUse) {
                peer.queue.pollFirst(); // finished while queued (cannot happen: failAwaitingAnswers takes it out)
                continue;
            }
            if (!writer.push(peer, op)) {
                break;
            }
            peer.queue.pollFirst();
            work++;
            afterSent(op);
        }
        return work;
    }

    /** The op's last fragment is in the peer's ring. */
    private void afterSent(ShmOutboundOp op) {
        if (op.awaitsAlive) {
            // awaitsAnswer: fails with its peer (failPeer) and at departure like any op awaiting it
            op.awaitsAnswer = true;
            op.recordEnd = op.peer.link.lastClaimEnd();
            op.peer.unconfirmed++;
            if (unconfirmed++ == 0) {
                completions.lifeCheckWanted();
            }
            return;
        }
        if (op.awaitsAnswer) {
            if (own.failed()) {
                finishFailed(op, Errno.EIO); // its answer can no longer reach our ring
                return;
            }
            op.counted = true;
            op.peer.outstanding++;
            return; // stays in the table until its answer
        }
        if (op.context != null || op.reports || op.counter != 0) {
            complete(op);
        } else {
            give(op);
        }
    }

    // =================================================================== completion

    /** The op succeeded: its completion (or its reserved room given back) and its counter. */
    void complete(ShmOutboundOp op) {
        if (op.reports) {
            if (op.complete) {
                completions.success(op.context, op.cqFlags);
            } else {
                completions.unreserve();
            }
        }
        ShmBindings.count(completions.counterOf(op.counter));
        if (op.counter != 0) {
            completions.finished();
        }
        give(op);
    }

    /** The op failed with {@code err}: its error completion and its counter's error count. */
    void fail(ShmOutboundOp op, int err) {
        if (op.reports) {
            completions.error(op.context, op.cqFlags, err);
        }
        UtilCounter c = completions.counterOf(op.counter);
        if (c != null) {
            c.incrementError();
        }
        if (op.counter != 0) {
            completions.finished();
        }
        give(op);
    }

    private void finishFailed(ShmOutboundOp op, int err) {
        if (op.counter != 0 || op.reports) {
            fail(op, err);
        } else {
            give(op);
        }
    }

    /**
     * The operation an answer from {@code p} echoes {@code token} of, taken off its wait for
     * the answer; null for a late answer (to an operation failed meanwhile). A token outside
     * the table fails the peer.
     */
    ShmOutboundOp answered(Peer p, long token) {
        ShmOutboundOp op = awaiting(p, token);
        if (op != null) {
            op.awaitsAnswer = false;
        }
        return op;
    }

    /**
     * The operation {@code token} names if it still waits for {@code p}'s answer, else null
     * (a token outside the table fails the peer: {@code EPROTO}).
     */
    ShmOutboundOp awaiting(Peer p, long token) {
        ShmOutboundOp op = table.at(token);
        if (op == null) {
            peers.failPeer(p, Errno.EPROTO);
            return null;
        }
        if (op.token != token || !op.awaitsAnswer || op.peer != p) {
            return null; // a late answer to an operation failed meanwhile
        }
        return op;
    }

    /** An ACK: a probe's verdict (CMA on or off towards {@code p}), or an operation's completion. */
    @Override
    public void onAck(Peer p, long token, int status) {
        ShmOutboundOp op = answered(p, token);
        if (op == null) {
            return;
        }
        if (op.kind == ShmRecordDescriptor.PROBE) {
            p.cma = status == 0 ? Peer.CMA_ON : Peer.CMA_OFF;
            p.cmaReason = status == 0 ? null : "the peer could not read our probe word: " + Errno.strerror(status)
                    + " (errno " + status + ")";
            give(op);
            return;
        }
        if (status != 0) {
            fail(op, status > 0 ? status : Errno.EIO);
        } else {
            complete(op);
        }
    }

    /** FI_TRANSMIT_COMPLETE operations towards {@code p}, which a life check found alive: they complete. */
    int completeConfirmed(Peer p) {
        int work = 0;
        for (ShmOutboundOp t : table.all()) {
            if (t.kind != 0 && t.peer == p && t.awaitsAlive && t.awaitsAnswer) {
                complete(t);
                work++;
            }
        }
        return work;
    }

    // =================================================================== failure, close, departure

    /**
     * {@code p} failed: its queued operations and those awaiting its answer complete with
     * {@code err} — except FI_TRANSMIT_COMPLETE sends whose records its ring's consumed head
     * passed (delivered: they succeed; fabtests' finalize: the peer receives and closes
     * before our life check runs).
     */
    void failPeerOps(Peer p, int err) {
        ShmOutboundOp op;
        while ((op = p.queue.pollFirst()) != null) {
            finishFailed(op, err);
        }
        boolean headReadable = p.unconfirmed > 0 && p.link != null && !p.link.truncated();
        long head = headReadable ? p.link.consumedHead() : 0;
        for (ShmOutboundOp t : table.all()) {
            if (t.peer == p && t.awaitsAnswer && t.kind != 0) {
                if (t.awaitsAlive && headReadable && head - t.recordEnd >= 0) {
                    complete(t);
                    continue;
                }
                finishFailed(t, err);
            }
        }
    }

    /**
     * Our ring failed: every operation waiting for an answer (which can no longer come) fails
     * with {@code err} — once: those in a peer's ring from the table, those still queued taken
     * out of their queue first (a queued one stays queued while its first fragments are in the
     * peer's ring, so that the peer's reassembly ends; it fails once its last one is in:
     * {@link #afterSent}).
     */
    void failAwaitingAnswers(int err) {
        for (Peer p : peers.all()) {
            java.util.Iterator<ShmOutboundOp> queued = p.queue.iterator();
            while (queued.hasNext()) {
                ShmOutboundOp op = queued.next();
                if (op.awaitsAnswer && !op.awaitsAlive && op.sent == 0) {
                    queued.remove();
                    finishFailed(op, err);
                }
            }
        }
        for (ShmOutboundOp t : table.all()) {
            if (t.inUse && t.counted && t.awaitsAnswer && !t.awaitsAlive) {
                finishFailed(t, err);
            }
        }
    }

    /** R15: everything queued or awaiting an answer completes with {@code err}. */
    void depart(int err) {
        for (Peer p : peers.all()) {
            ShmOutboundOp op;
            while ((op = p.queue.pollFirst()) != null) {
                finishFailed(op, err);
            }
        }
        for (ShmOutboundOp t : table.all()) {
            if (t.kind != 0 && t.awaitsAnswer) {
                finishFailed(t, err);
            }
        }
    }

    /** Close: pending operations go without completions; the CQ room they reserved is returned. */
    void discardAll() {
        if (!completions.hasCq()) {
            return;
        }
        for (ShmOutboundOp op : table.all()) {
            if (op.kind != 0 && op.reports) {
                completions.unreserve();
            }
        }
    }

    /** A free descriptor with a fresh token ({@link ShmOperationTable}). */
    ShmOutboundOp take() {
        return table.take();
    }

    /** Returns a descriptor to the table, its peer's counts of it undone; a free one is left alone. */
    void give(ShmOutboundOp op) {
        if (!op.inUse) {
            return; // given back already: its counts were undone then
        }
        if (op.counted) {
            op.peer.outstanding--;
        }
        if (op.awaitsAlive && op.awaitsAnswer) {
            op.peer.unconfirmed--;
            unconfirmed--;
        }
        table.release(op);
    }
}
