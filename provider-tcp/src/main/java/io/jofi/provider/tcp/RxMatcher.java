package io.jofi.provider.tcp;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;

/**
 * The receive side's matching state of one endpoint: posted receives, buffered unexpected
 * messages, their pools and limits, and the receive completions ({@code fi_msg(3)},
 * {@code fi_tagged(3)}). An MSG endpoint owns one for its single connection; an RDM endpoint
 * shares one among all its per-peer connections, which is why every call names the sender's
 * fi_addr ({@code src}; MSG passes {@code Fi.FI_ADDR_NOTAVAIL}) so that {@code FI_DIRECTED_RECV}
 * receives match only their peer.
 *
 * <p><b>Invariant.</b> No posted receive accepts a queued unexpected message: a receive that is
 * posted first looks through the unexpected messages (oldest first), and an arriving message
 * first looks through the posted receives (in posting order). So an arriving message may take
 * the first posted receive that accepts it without looking at the unexpected queue, and
 * messages of one sender are matched in the order they arrived.
 *
 * <p><b>Threads.</b> Not thread-safe: the owner serialises every call (the endpoint's
 * {@code lock}). Completions go to the bound CQ/counter, which have their own synchronisation.
 */
final class RxMatcher {
    /** A connection that delivers messages into a matcher. */
    interface Source {
        /**
         * A receive took a buffered message of this connection whose sender asked for an ack
         * (flag bit 2): queue the ack now, before the receive's completion is written (R11).
         */
        void ackTaken();

        /**
         * As {@link #ackTaken()} for the message with ack sequence number {@code seq}
         * ({@link AckSequencer}: acks leave in arrival order even when messages are matched out
         * of order).
         */
        default void ackTaken(long seq) {
            ackTaken();
        }

        /**
         * R10 with {@code FI_SOURCE_ERR}: the raw address of this connection's sender when it is
         * not in the AV (its receive completions become {@code EADDRNOTAVAIL} errors carrying
         * it), else null. MSG connections answer null.
         */
        default byte[] unknownSender() {
            return null;
        }
    }

    static final long RECV_FLAGS = Fi.FI_RECV | Fi.FI_MSG;
    static final long TRECV_FLAGS = Fi.FI_RECV | Fi.FI_TAGGED;

    private final int queueSize;
    private final long unexpectedByteLimit;

    private UtilCompletionQueue cq;
    private UtilCounter counter;

    private final RxOp[] free;
    private int freeCount;
    private int created;

    /** Posted untagged receives, in posting order. */
    private final OpRing<RxOp> posted;
    /** Posted tagged receives, in posting order. */
    private final OpRing<RxOp> postedTagged;
    /** Unexpected messages (untagged and tagged, arrival order). */
    private final OpRing<Unexpected> unexpected;
    private long unexpectedBytes;

    /**
     * @param queueSize           receive queue depth (posted receives of each kind)
     * @param unexpectedMessages  how many messages may wait unexpected
     * @param unexpectedByteLimit how many payload bytes may wait unexpected
     */
    RxMatcher(int queueSize, int unexpectedMessages, long unexpectedByteLimit) {
        this.queueSize = queueSize;
        this.unexpectedByteLimit = unexpectedByteLimit;
        this.free = new RxOp[queueSize];
        this.posted = new OpRing<>(queueSize);
        this.postedTagged = new OpRing<>(queueSize);
        this.unexpected = new OpRing<>(Math.max(1, unexpectedMessages));
    }

    // ------------------------------------------------------------------ bindings

    /** The CQ receive completions go to (bound with {@code FI_RECV}). */
    void cq(UtilCompletionQueue rxCq) {
        this.cq = rxCq;
    }

    UtilCompletionQueue cq() {
        return cq;
    }

    /** The counter of {@code FI_RECV} completions, or null. */
    void counter(UtilCounter recvCntr) {
        this.counter = recvCntr;
    }

    // ------------------------------------------------------------------ posting

    /** A pooled descriptor for a receive about to be posted (reset). */
    RxOp take() {
        if (freeCount > 0) {
            RxOp op = free[--freeCount];
            free[freeCount] = null;
            return op;
        }
        created++;
        return new RxOp();
    }

    /** Gives a descriptor back to the pool (done, failed, or never posted). */
    void give(RxOp op) {
        op.reset();
        if (freeCount < free.length) {
            free[freeCount++] = op;
        }
    }

    /** Whether another receive of that kind fits the queue. */
    boolean canPost(boolean tagged) {
        return !(tagged ? postedTagged : posted).isFull();
    }

    /**
     * Posts a receive whose CQ room the caller reserved: it takes the oldest unexpected message
     * it accepts (copy, ack, completion), else it is queued.
     *
     * @return true when it took a buffered message (completed already), false when queued
     */
    boolean post(RxOp op) {
        if (op.multi) {
            // A multi-receive buffer takes every waiting message it accepts, one after another.
            Unexpected u;
            while ((u = takeUnexpected(op)) != null) {
                RxOp part = part(op, u.data.remaining(), null);
                boolean last = part.releases; // read first: deliver gives the part back (reset)
                deliver(part, u);
                if (last) {
                    return true;
                }
            }
            posted.offer(op);
            return false;
        }
        Unexpected u = takeUnexpected(op);
        if (u != null) {
            deliver(op, u);
            return true;
        }
        (op.tagged ? postedTagged : posted).offer(op);
        return false;
    }

    private Unexpected takeUnexpected(RxOp op) {
        for (int i = 0, n = unexpected.size(); i < n; i++) {
            Unexpected u = unexpected.get(i);
            if (u.claimedBy == null && op.accepts(u.src, u.tagged, u.tag)) {
                unexpected.removeAt(i);
                return u;
            }
        }
        return null;
    }

    /** {@code fi_cancel} (R13): the pending receive with this context fails with {@code ECANCELED}. */
    int cancel(Object context) {
        if (cancelIn(posted, context) || cancelIn(postedTagged, context)) {
            return 0;
        }
        return -Errno.ENOENT;
    }

    private boolean cancelIn(OpRing<RxOp> ring, Object context) {
        for (int i = 0, n = ring.size(); i < n; i++) {
            RxOp op = ring.get(i);
            if (op.context == context) {
                ring.removeAt(i);
                fail(op, Errno.ECANCELED);
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ arriving messages

    /**
     * An arriving message whose header was read: the first posted receive (in posting order)
     * that accepts it, removed from the queue, or null (then buffer it or pause).
     */
    RxOp match(long src, boolean tagged, long tag) {
        return match(src, tagged, tag, Long.MAX_VALUE);
    }

    /**
     * As {@link #match(long, boolean, long)} for a message of {@code length} payload bytes: a
     * multi-receive buffer that accepts it stays posted and gives a part of itself (at most
     * {@code length} bytes at its next free offset) whose completion points into the buffer.
     */
    RxOp match(long src, boolean tagged, long tag, long length) {
        OpRing<RxOp> ring = tagged ? postedTagged : posted;
        for (int i = 0, n = ring.size(); i < n; i++) {
            RxOp op = ring.get(i);
            if (op.accepts(src, tagged, tag)) {
                if (op.multi) {
                    return part(op, length, ring);
                }
                return i == 0 ? ring.poll() : ring.removeAt(i);
            }
        }
        return null;
    }

    /**
     * The next part of a multi-receive buffer for a message of {@code length} bytes
     * ({@code fi_msg(3)} {@code FI_MULTI_RECV}). The part that leaves less than
     * {@code minFree} bytes is the last: it releases the buffer (removed from {@code ring})
     * and its completion, written into the room the buffer reserved at posting, carries
     * {@code FI_MULTI_RECV}. Other parts reserve their own room; when the CQ has none, the
     * part becomes the last (the buffer is released early rather than overrunning the CQ).
     */
    private RxOp part(RxOp buffer, long length, OpRing<RxOp> ring) {
        long free = buffer.capacity - buffer.used;
        int cap = (int) Math.min(free, length);
        RxOp part = take();
        part.context = buffer.context;
        part.complete = buffer.complete;
        part.src = buffer.src;
        part.buf = buffer.buf;
        part.bufOffset = (int) (buffer.bufOffset + buffer.used);
        part.range(0, buffer.buf, part.bufOffset, cap);
        part.count = 1;
        part.capacity = cap;
        part.parent = buffer;
        buffer.used += cap;
        boolean last = buffer.capacity - buffer.used < buffer.minFree || cq.reserve() != 0;
        if (last) {
            part.releases = true;
            if (ring != null) {
                for (int i = 0, n = ring.size(); i < n; i++) {
                    if (ring.get(i) == buffer) {
                        ring.removeAt(i);
                        break;
                    }
                }
            }
        }
        return part;
    }

    // ------------------------------------------------------------------ FI_PEEK / FI_CLAIM / FI_DISCARD

    /**
     * {@code fi_tagged(3)} {@code FI_PEEK} (with {@code FI_CLAIM} or {@code FI_DISCARD}) of a
     * tagged receive whose CQ room the caller reserved: the first unclaimed unexpected message
     * it accepts is reported (len, tag, data; nothing copied) and left in place, reserved for
     * a later {@link #claim} with the same context ({@code FI_CLAIM}) or dropped
     * ({@code FI_DISCARD}); none: an error completion {@code ENOMSG}.
     */
    void peek(RxOp op, long flags) {
        for (int i = 0, n = unexpected.size(); i < n; i++) {
            Unexpected u = unexpected.get(i);
            if (u.claimedBy == null && op.accepts(u.src, u.tagged, u.tag)) {
                long f = TRECV_FLAGS | (u.hasCqData ? Fi.FI_REMOTE_CQ_DATA : 0);
                long len = u.data.remaining();
                if ((flags & Fi.FI_DISCARD) != 0) {
                    unexpected.removeAt(i);
                    drop(u);
                } else if ((flags & Fi.FI_CLAIM) != 0) {
                    u.claimedBy = op.context;
                }
                cq.complete(op.context, f, len, null, 0, u.cqData, u.tag, u.src);
                give(op);
                return;
            }
        }
        cq.completeError(op.context, TRECV_FLAGS, 0, null, 0, 0, op.tag, 0, Errno.ENOMSG, 0, null, 0,
                Fi.FI_ADDR_NOTAVAIL);
        give(op);
    }

    /**
     * {@code FI_CLAIM} without {@code FI_PEEK}: the message an earlier peek claimed for this
     * context is received into {@code op} (or dropped with {@code FI_DISCARD}, a completion
     * without data).
     *
     * @return false when no message is claimed for that context (nothing done)
     */
    boolean claim(RxOp op, long flags) {
        for (int i = 0, n = unexpected.size(); i < n; i++) {
            Unexpected u = unexpected.get(i);
            if (u.claimedBy != null && u.claimedBy == op.context) {
                unexpected.removeAt(i);
                if ((flags & Fi.FI_DISCARD) != 0) {
                    drop(u);
                    cq.complete(op.context, TRECV_FLAGS, 0, null, 0, u.cqData, u.tag, u.src);
                    give(op);
                } else {
                    deliver(op, u);
                }
                return true;
            }
        }
        return false;
    }

    /** An unexpected message leaves without being received: its memory and its owed ack. */
    private void drop(Unexpected u) {
        unexpectedBytes -= u.data.capacity();
        if (u.ackWanted && u.origin != null) {
            u.origin.ackTaken(u.ackSeq);
        }
    }

    /** Whether a message of {@code length} payload bytes may be buffered unexpected now. */
    boolean hasRoomFor(long length) {
        return !unexpected.isFull() && unexpectedBytes + length <= unexpectedByteLimit;
    }

    /**
     * Starts buffering an unexpected message (the caller checked {@link #hasRoomFor}); the
     * caller reads its payload into {@code data} and then calls {@link #arrived}. The heap
     * buffer is the only allocation of the receive path, for messages that beat their receive.
     */
    Unexpected buffer(long length, boolean hasCqData, long cqData, boolean ackWanted, long src, Source origin,
                      boolean tagged, long tag) {
        unexpectedBytes += length;
        return new Unexpected(ByteBuffer.allocate((int) length), hasCqData, cqData, ackWanted, src, origin, tagged,
                tag);
    }

    /**
     * An unexpected message is read whole ({@code data} flipped): a receive posted meanwhile
     * that accepts it takes it, else it waits in the queue.
     */
    void arrived(Unexpected u) {
        RxOp waiting = match(u.src, u.tagged, u.tag);
        if (waiting != null) {
            deliver(waiting, u);
        } else {
            unexpected.offer(u);
        }
    }

    /** A message being buffered was cut off (its connection ended mid-payload): forget it. */
    void abandon(Unexpected u) {
        unexpectedBytes -= u.data.capacity();
    }

    /** Whether any message waits unexpected. */
    boolean hasUnexpected() {
        return !unexpected.isEmpty();
    }

    /** A receive takes a buffered message: copy, ack if asked (before the completion, R11), complete. */
    private void deliver(RxOp op, Unexpected u) {
        long total = u.data.remaining();
        unexpectedBytes -= u.data.capacity();
        long placed = op.place(u.data);
        if (u.ackWanted && u.origin != null) {
            u.origin.ackTaken(u.ackSeq);
        }
        complete(op, placed, total - placed, u.hasCqData, u.cqData, u.src, u.tag,
                u.src == Fi.FI_ADDR_NOTAVAIL && u.origin != null ? u.origin.unknownSender() : null);
    }

    // ------------------------------------------------------------------ completions

    /**
     * Completes a receive that holds {@code len} bytes of a message of which {@code discarded}
     * found no room: {@code ETRUNC} with {@code olen} (R12) when {@code discarded > 0}; then
     * gives the descriptor back.
     */
    void complete(RxOp op, long len, long discarded, boolean hasData, long data, long src, long tag) {
        complete(op, len, discarded, hasData, data, src, tag, null);
    }

    /**
     * As {@link #complete(RxOp, long, long, boolean, long, long, long)}; with
     * {@code unknownSender} non-null (FI_SOURCE_ERR and a sender not in the AV, R10) the
     * completion is an {@code EADDRNOTAVAIL} error whose errData is that raw address, the data
     * received all the same ({@code len}).
     */
    void complete(RxOp op, long len, long discarded, boolean hasData, long data, long src, long tag,
                  byte[] unknownSender) {
        long flags = (op.tagged ? TRECV_FLAGS : RECV_FLAGS) | (hasData ? Fi.FI_REMOTE_CQ_DATA : 0)
                | (op.releases ? Fi.FI_MULTI_RECV : 0);
        if (unknownSender != null && discarded == 0) {
            cq.completeError(op.context, flags, len, op.buf, op.bufOffset, data, op.tagged ? tag : 0, 0,
                    Errno.EADDRNOTAVAIL, 0, unknownSender, unknownSender.length, Fi.FI_ADDR_NOTAVAIL);
            if (counter != null) {
                counter.incrementError();
            }
            releaseParent(op);
            give(op);
            return;
        }
        long t = op.tagged ? tag : 0;
        if (discarded > 0) {
            cq.completeError(op.context, flags, len, op.buf, op.bufOffset, data, t, discarded, Errno.ETRUNC, 0, null, 0,
                    src);
            if (counter != null) {
                counter.incrementError();
            }
        } else {
            if (op.complete || op.releases) {
                cq.complete(op.context, flags, len, op.buf, op.bufOffset, data, t, src);
            } else {
                cq.unreserve();
            }
            if (counter != null) {
                counter.increment();
            }
        }
        releaseParent(op);
        give(op);
    }

    /** The last part of a multi-receive buffer is done: the buffer's descriptor goes back too. */
    private void releaseParent(RxOp op) {
        if (op.releases && op.parent != null) {
            give(op.parent);
        }
    }

    /** Fails a receive with {@code err} (error completion, R2) and gives it back. */
    void fail(RxOp op, int err) {
        fail(op, err, 0, null);
    }

    /** As {@link #fail(RxOp, int)}, with the provider's errno and error data (why the connection ended). */
    void fail(RxOp op, int err, int provErrno, byte[] errData) {
        int errDataSize = errData == null ? 0 : errData.length;
        if (op.multi && op.parent == null) {
            // a whole multi-receive buffer (cancel, teardown): its release, as an error
            cq.completeError(op.context, RECV_FLAGS | Fi.FI_MULTI_RECV, 0, op.buf, op.bufOffset, 0, 0, 0, err,
                    provErrno, errData, errDataSize, Fi.FI_ADDR_NOTAVAIL);
            if (counter != null) {
                counter.incrementError();
            }
            give(op);
            return;
        }
        long flags = (op.tagged ? TRECV_FLAGS : RECV_FLAGS) | (op.releases ? Fi.FI_MULTI_RECV : 0);
        cq.completeError(op.context, flags, 0, op.buf, op.bufOffset, 0, 0, 0, err, provErrno, errData, errDataSize,
                Fi.FI_ADDR_NOTAVAIL);
        if (counter != null) {
            counter.incrementError();
        }
        releaseParent(op);
        give(op);
    }

    /** Fails every posted receive with {@code err} (R14, R15). Unexpected messages stay. */
    void failPosted(int err) {
        failPosted(err, 0, null);
    }

    /** As {@link #failPosted(int)}, with the provider's errno and error data (why the connection ended). */
    void failPosted(int err, int provErrno, byte[] errData) {
        RxOp r;
        while ((r = posted.poll()) != null) {
            fail(r, err, provErrno, errData);
        }
        while ((r = postedTagged.poll()) != null) {
            fail(r, err, provErrno, errData);
        }
    }

    /** Close: drops every posted receive without a completion, giving back its CQ room. */
    void discardPosted() {
        RxOp r;
        while ((r = posted.poll()) != null) {
            cq.unreserve();
            give(r);
        }
        while ((r = postedTagged.poll()) != null) {
            cq.unreserve();
            give(r);
        }
    }

    /** Descriptors created so far (tests prove the pool stops growing). */
    int created() {
        return created;
    }

    int queueSize() {
        return queueSize;
    }
}
