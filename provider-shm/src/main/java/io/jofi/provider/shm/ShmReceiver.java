package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.ReceivePosting;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.ReceiveCompletion;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UnexpectedMessage;
import io.jofi.spi.util.UnexpectedPayload;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.stats.CounterGroup;
import java.nio.ByteBuffer;

/**
 * Receives messages from shm's wire into the receive side of {@code io.jofi.spi.util}: it
 * posts receives to the {@link ReceiveQueue} (which matches, queues unexpected messages,
 * serves multi-receive, PEEK/CLAIM/DISCARD and cancel, and writes the R10/R12 completions),
 * places each message's fragments, reassembled per sender ({@link ShmInboundMessage}), into
 * the receive that matched it or into the heap bytes of an unexpected message, keeps the
 * unexpected budget, and acknowledges what senders asked for.
 *
 * <p>The budget: every buffered message counts its payload plus {@link #ENTRY_OVERHEAD}; one
 * that does not fit stays in the ring ({@link #holdRecord}), which pushes its senders back,
 * until a receive frees room. CMA messages, whose bytes stay in the sender, are
 * {@link ShmCmaReceiver}'s. Runs under the endpoint's lock; {@link #held} is also read without
 * it (the wait bridge).
 */
final class ShmReceiver {
    /**
     * Bytes every buffered message counts against the unexpected budget on top of its payload:
     * about what the entry costs in the heap. Without it a stream of 0-byte messages cost
     * nothing and filled the heap. A CMA descriptor counts this much alone.
     */
    static final int ENTRY_OVERHEAD = 256;

    private final ShmOwnRing own;
    private final ShmPeers peers;
    /** Where the ACKs senders asked for go (the transmitter). */
    private final ShmAnswers answers;
    private final ShmBindings bound;
    /** Woken when a receive frees the budget a held record waits for. */
    private final ProgressEngine engine;
    private final long caps;
    /** The receive side (util). */
    private final ReceiveQueue rq;
    /** FI_SOURCE or FI_DIRECTED_RECV: a message's sender is looked up in the AV. */
    private final boolean sendersWanted;
    private final boolean source;
    /** Heap bytes of an unexpected message: without and with an acknowledgement owed at match time. */
    private final HeapBytes heapBytes = new HeapBytes(false);
    private final HeapBytes heapBytesAcked = new HeapBytes(true);
    /** Posting, peek/claim and FI_OPT_MIN_MULTI_RECV: util's, as every provider's. */
    private final ReceivePosting posting;
    /**
     * A message record was left in the ring because the unexpected budget is spent (volatile:
     * the MANUAL wait bridge reads it): the ring is not slept on (the record would wake the
     * step at once) and posting a receive wakes the progress to try it again.
     */
    private volatile boolean held;
    /** Set by the handler of the record at hand: leave it in the ring. */
    private boolean holdRecord;

    /**
     * {@code caps} are the endpoint's: {@code FI_SOURCE}, {@code FI_SOURCE_ERR}, {@code FI_DIRECTED_RECV} and
     * {@code FI_MULTI_RECV} shape what receives do; the receive completions are counted in {@code counters}.
     */
    ShmReceiver(ShmOwnRing own, ShmPeers peers, ShmAnswers answers, ShmBindings bound, ProgressEngine engine,
                CounterGroup counters, long caps, int queueSize, long unexpectedLimit) {
        this.own = own;
        this.peers = peers;
        this.answers = answers;
        this.bound = bound;
        this.engine = engine;
        this.caps = caps;
        boolean directed = (caps & Fi.FI_DIRECTED_RECV) != 0;
        this.source = (caps & Fi.FI_SOURCE) != 0;
        this.rq = new ReceiveQueue(queueSize, ShmProvider.IOV_LIMIT, Integer.MAX_VALUE, unexpectedLimit);
        this.rq.completion().reportSource(source, (caps & Fi.FI_SOURCE_ERR) != 0);
        this.rq.completion().countIn(counters);
        this.rq.directed(directed);
        this.posting = new ReceivePosting(rq);
        this.sendersWanted = source || directed;
    }

    /** The receive side (util): the CMA receiver matches its messages there too. */
    ReceiveQueue queue() {
        return rq;
    }

    /**
     * A drain pass starts: the record held back last time is tried again, and the receive
     * completions the pass makes are staged until {@link #endPass} (one CQ publication a pass).
     */
    void startPass() {
        held = false;
        rq.completion().stageIn(bound.staged);
    }

    /** The drain pass ends (also when a fault leaves it): its staged completions are published. */
    void endPass() {
        rq.completion().stageIn(null);
    }

    /** Whether a message record waits in the ring for the unexpected budget (also read without the lock). */
    boolean held() {
        return held;
    }

    /** A record is about to be handled: it leaves the ring unless its handler holds it ({@link #holdsRecord}). */
    void nextRecord() {
        holdRecord = false;
    }

    /** Whether the handler of the record at hand left it in the ring (the unexpected budget is spent). */
    boolean holdsRecord() {
        return holdRecord;
    }

    /** The bindings ({@code fi_ep_bind}): the receive CQ, its selective flag, the receive counter. */
    void bind(UtilCompletionQueue rxCq, boolean selective, UtilCounter recvCntr) {
        rq.completion().bind(rxCq, selective, recvCntr);
    }

    // =================================================================== posting

    /** The one receive-posting path (util) this receiver posts through; its endpoint answers the option. */
    ReceivePosting posting() {
        return posting;
    }

    /**
     * A receive ({@code fi_recv} family, {@code fi_trecv} family; UtilEndpoint checked the
     * call): it takes the oldest buffered message it matches (a multi-receive as many as fit),
     * else waits posted; 0 or a negative errno (nothing posted then).
     */
    int post(ByteBuffer buf, Msg msg, long srcAddr, boolean tagged, long tag, long ignore, long flags, Object context) {
        if (!own.enabled()) {
            return -Errno.EOPBADSTATE;
        }
        if (own.failed()) {
            return -Errno.EIO; // nothing can arrive any more (ShmFaults.failOwnRing)
        }
        int rc = posting.post(bound.rxCq, buf, msg, srcAddr, tagged, tag, ignore, flags, context); // R6: CQ room
        if (rc == 0) {
            budgetFreed(); // it may have taken a buffered message: the one held in the ring may fit now
        }
        return rc;
    }

    /** FI_PEEK (with FI_CLAIM / FI_DISCARD) and FI_CLAIM on the unexpected tagged messages (UtilEndpoint checked the call). */
    int peekOrClaim(TaggedMsg msg, long flags) {
        return posting.peekOrClaim(bound.rxCq, msg, msg.addr(), flags);
    }

    /** {@code fi_cancel} (R13): 0, or {@code -ENOENT} when no receive with this context is pending. */
    int cancel(Object context) {
        return rq.cancel(context);
    }

    // =================================================================== arrival

    /**
     * A message fragment from {@code p} (not CMA): the first matches a receive or becomes an
     * unexpected message (when the budget admits it: else the record stays in the ring); each
     * is placed at its offset; the last completes the receive (or hands the buffered message
     * to the receive side).
     */
    void onMessage(Peer p, ShmRecord r) {
        ShmInboundMessage m = p.inbound;
        long offset = r.fragmentOffset();
        if (r.has(ShmRecordDescriptor.FIRST)) {
            if (m.inProgress()) {
                peers.failPeer(p, Errno.EPROTO); // a new message before the last one ended
                return;
            }
            long total = r.totalLength();
            if (total < 0 || total > ShmProvider.MAX_MSG_SIZE || offset != 0) {
                peers.failPeer(p, Errno.EPROTO);
                return;
            }
            start(m, p, r);
            PostedReceive op = rq.match(m);
            if (op != null) {
                m.receive = op;
                if (r.has(ShmRecordDescriptor.ACK_MATCH)) {
                    answers.sendAnswer(p, ShmRecordDescriptor.ACK, m.token, 0, 0, 0);
                }
            } else {
                long footprint = total + ENTRY_OVERHEAD;
                if (!admitUnexpected(footprint)) {
                    return; // stays in the ring until receives take what is buffered
                }
                UnexpectedMessage u = rq.newUnexpected(footprint)
                        .set(m.tagged(), m.tag(), m.hasData(), m.data(), m.src(), m.sourceAddress(), total)
                        .payload(r.has(ShmRecordDescriptor.ACK_MATCH) ? heapBytesAcked : heapBytes,
                                ByteBuffer.allocate((int) total), m.token)
                        .origin(p);
                rq.arriving(u); // a receive posted meanwhile takes it and waits for the rest
                m.unexpected = u;
            }
        } else if (!m.inProgress()) {
            peers.failPeer(p, Errno.EPROTO);
            return;
        }
        int n = r.payloadLength();
        if (offset < 0 || n > m.length() - offset) {
            peers.failPeer(p, Errno.EPROTO);
            return;
        }
        PostedReceive op = m.receive;
        if (op != null) {
            m.placed += op.place(offset, r.payloadBuffer(), r.payloadAt(), n); // beyond its room: dropped (R12)
        } else {
            ((ByteBuffer) m.unexpected.handle()).put((int) offset, r.payloadBuffer(), r.payloadAt(), n);
            m.placed += n;
        }
        if (!r.has(ShmRecordDescriptor.LAST)) {
            return;
        }
        if (op == null && m.placed != m.length()) {
            peers.failPeer(p, Errno.EPROTO);
            return;
        }
        if ((m.kindFlags & ShmRecordDescriptor.ACK_ARRIVAL) != 0) {
            answers.sendAnswer(p, ShmRecordDescriptor.ACK, m.token, 0, 0, 0);
        }
        op = m.receive; // again: the answer may have failed the peer, and the receive with it
        if (op != null) {
            m.receive = null;
            rq.complete(op, m, m.placed); // ETRUNC when it did not all fit
        } else {
            UnexpectedMessage u = m.unexpected;
            m.unexpected = null;
            rq.arrived(u); // a receive waiting for it, or one posted since, takes it; else it waits queued
        }
    }

    /**
     * Takes a new message's header from its first record into {@code p}'s
     * {@link ShmInboundMessage}, with the sender's {@code fi_addr} when a completion or a
     * directed receive needs it (cached in the peer: no allocation).
     */
    ShmInboundMessage start(ShmInboundMessage m, Peer p, ShmRecord first) {
        long src = sendersWanted ? p.fiAddrIn(bound.av) : Fi.FI_ADDR_NOTAVAIL;
        return m.start(first, src, src == Fi.FI_ADDR_NOTAVAIL ? p.address : null);
    }

    /** The {@code fi_addr} a completion reports for {@code sender}: its AV entry with {@code FI_SOURCE}. */
    long sourceOf(Peer sender) {
        return source ? sender.fiAddrIn(bound.av) : Fi.FI_ADDR_NOTAVAIL;
    }

    // =================================================================== the unexpected budget

    /**
     * Whether a new unexpected message of {@code footprint} bytes fits the budget; the first
     * one always does (so FI_PEEK sees something). When it does not, the record at hand stays
     * in the ring ({@link #holdRecord}): the ring fills and its senders are pushed back (their
     * queues fill, posts answer -EAGAIN); nothing is lost.
     */
    boolean admitUnexpected(long footprint) {
        if (rq.unexpectedCount() == 0 || rq.admits(footprint)) {
            return true;
        }
        holdRecord = true;
        held = true;
        return false;
    }

    /** A receive may have freed unexpected budget: a progress holding a record back tries it again. */
    void budgetFreed() {
        if (held) {
            held = false;
            engine.wakeup();
        }
    }

    /**
     * The heap bytes of an unexpected message (its handle; its number the sender's token):
     * copied into the receive that takes it; with {@code acked} the sender, which asked for
     * {@code FI_MATCH_COMPLETE}, is acknowledged then — or when the message is discarded.
     */
    private final class HeapBytes implements UnexpectedPayload {
        private final boolean acked;

        HeapBytes(boolean acked) {
            this.acked = acked;
        }

        @Override
        public long copyTo(UnexpectedMessage message, PostedReceive into) {
            budgetFreed();
            ByteBuffer bytes = (ByteBuffer) message.handle();
            int placed = into.place(0, bytes, 0, bytes.capacity());
            answer(message);
            return placed;
        }

        @Override
        public void discard(UnexpectedMessage message) {
            budgetFreed();
            answer(message);
        }

        private void answer(UnexpectedMessage message) {
            if (acked) {
                answers.sendAnswer((Peer) message.origin(), ShmRecordDescriptor.ACK, message.handleValue(), 0, 0, 0);
            }
        }
    }

    // =================================================================== failure, close, departure

    /**
     * {@code p} failed: the receive it was filling fails with {@code err}, its partial
     * unexpected message goes (a receive waiting for it fails too), and so do its CMA messages
     * not yet matched (they can never be read now).
     */
    void failPeerReceives(Peer p, int err) {
        failInbound(p, err);
        dropCmaOf(p, false);
        dropCmaOf(p, true);
    }

    /** The message {@code p} was sending us ends unfinished: its receive (or its waiting one) fails with {@code err}. */
    private void failInbound(Peer p, int err) {
        ShmInboundMessage m = p.inbound;
        if (m.receive != null) {
            PostedReceive r = m.receive;
            m.receive = null;
            rq.fail(r, err, 0, null);
        }
        if (m.unexpected != null) {
            UnexpectedMessage u = m.unexpected;
            m.unexpected = null;
            rq.abandon(u, err);
        }
    }

    private void dropCmaOf(Peer p, boolean tagged) {
        for (UnexpectedMessage u = rq.firstUnexpected(tagged), next; u != null; u = next) {
            next = u.nextQueued();
            if (u.origin() == p && u.handle() instanceof ShmCmaReceiver.Descriptor) {
                rq.discard(u);
            }
        }
    }

    /** Our ring failed: nothing can arrive any more, so every receive pending fails with {@code EIO}. */
    void failOwnRing() {
        for (Peer p : peers.all()) {
            failInbound(p, Errno.EIO);
        }
        rq.failPosted(Errno.EIO, 0, null);
    }

    /** R15: every posted receive completes with {@code err}. */
    void depart(int err) {
        rq.failPosted(err, 0, null);
    }

    /** The receive queue's completion writer (a drain pass stages its completions there). */
    ReceiveCompletion completion() {
        return rq.completion();
    }

    /** Close: pending receives go without completions; the CQ room they reserved is returned. */
    void discardAll() {
        if (bound.rxCq != null) {
            rq.discardPosted();
        }
    }
}
