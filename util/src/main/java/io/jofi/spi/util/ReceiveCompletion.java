package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import java.nio.ByteBuffer;

/**
 * Writes the completions of an endpoint's receives, the one implementation of what a receive
 * completion says ({@code fi_cq(3)}, docs/API.md R2, R10, R12, R13) for every provider: into the
 * room its post reserved in the CQ (R6: never an unsolicited entry), counted on the
 * {@code FI_RECV} counter.
 * <ul>
 * <li>a message longer than the buffer: an {@code ETRUNC} error with {@code len} the bytes
 *     placed and {@code olen} the bytes discarded (R12);</li>
 * <li>with {@code FI_SOURCE_ERR}, a sender not in the AV: an {@code EADDRNOTAVAIL} error
 *     whose {@code errData} is a copy of its raw address, the data received all the same
 *     (R10; fi_cq(3): "the data transfer was successfully received");</li>
 * <li>otherwise a success entry — only when the receive asked for one ({@code FI_COMPLETION}
 *     or no {@code FI_SELECTIVE_COMPLETION}, or it releases a multi-receive buffer), else its
 *     reserved room is given back;</li>
 * <li>the sender's {@code fi_addr_t} only with {@code FI_SOURCE} (R10), else
 *     {@code FI_ADDR_NOTAVAIL}; {@code data} only with {@code FI_REMOTE_CQ_DATA}, {@code tag}
 *     only for tagged receives (fi_cq(3) "Completion fields": else 0);</li>
 * <li>an operation that fails (cancel, R13; a connection's end, R14; departure, R15): an
 *     error entry whatever {@code FI_COMPLETION} said (R2).</li>
 * </ul>
 * The counter counts each message and each failure: success or error as the entry (an
 * {@code EADDRNOTAVAIL} or {@code ETRUNC} completion, a canceled receive are errors). A
 * {@code FI_PEEK} answer or an {@code FI_CLAIM | FI_DISCARD} is not a received message and is
 * not counted.
 *
 * <p>Not thread-safe: the owning endpoint serialises; the CQ and counter synchronise
 * themselves. Allocates nothing except the copy of an unknown sender's address (an error).
 */
public final class ReceiveCompletion {
    /** The flags of an untagged receive's completion. */
    public static final long RECV_FLAGS = Fi.FI_RECV | Fi.FI_MSG;
    /** The flags of a tagged receive's completion. */
    public static final long TRECV_FLAGS = Fi.FI_RECV | Fi.FI_TAGGED;

    private UtilCompletionQueue cq;
    private boolean selective;
    private UtilCounter counter;
    private boolean source;
    private boolean sourceErr;
    /** While set ({@link #stageIn}): successes and their counts are staged here; every other write flushes it first. */
    private CompletionBatch batch;
    /** What its successful completions received ({@link #countIn}; null: not counted), untagged and tagged. */
    private StatsCounter messages;
    private StatsCounter bytes;
    private StatsCounter taggedMessages;
    private StatsCounter taggedBytes;

    /**
     * Counts the messages and bytes its successful completions received, untagged and tagged,
     * in {@code group} (the endpoint's): once, before the first completion. Written by the
     * receive side's one writer, as everything here.
     */
    public void countIn(CounterGroup group) {
        messages = group.counter("messages received");
        bytes = group.counter("bytes received");
        taggedMessages = group.counter("tagged messages received");
        taggedBytes = group.counter("tagged bytes received");
    }

    private void countReceived(long flags, long len) {
        if (messages == null) {
            return;
        }
        if ((flags & Fi.FI_TAGGED) != 0) {
            taggedMessages.increment();
            taggedBytes.add(len);
        } else {
            messages.increment();
            bytes.add(len);
        }
    }

    /**
     * The endpoint's bindings: the CQ bound with {@code FI_RECV} (null until bound), whether
     * it was bound with {@code FI_SELECTIVE_COMPLETION} (then a successful receive is reported
     * only when posted with {@code FI_COMPLETION}, R2), and the {@code FI_RECV} counter (or
     * null).
     */
    public void bind(UtilCompletionQueue recvCq, boolean selectiveCompletion, UtilCounter recvCounter) {
        this.cq = recvCq;
        this.selective = selectiveCompletion;
        this.counter = recvCounter;
    }

    /**
     * What the endpoint's caps say of senders: {@code FI_SOURCE} (report them),
     * {@code FI_SOURCE_ERR} (a sender not in the AV is an error; only with {@code FI_SOURCE}).
     */
    public void reportSource(boolean fiSource, boolean fiSourceErr) {
        this.source = fiSource;
        this.sourceErr = fiSource && fiSourceErr;
    }

    /**
     * Stages successful completions (and their counter increments) in {@code b} from now on,
     * published by {@code b.flush()} — a progress pass that drains many messages publishes
     * them at once ({@link CompletionBatch}); any other entry written through this object
     * flushes {@code b} first, so the CQ's order is kept. {@code null} flushes and ends it.
     * The caller flushes before the pass returns.
     */
    public void stageIn(CompletionBatch b) {
        if (batch != null && b != batch) {
            batch.flush();
        }
        batch = b;
    }

    /** Publishes what is staged, before an entry written here directly. */
    private void flushStaged() {
        if (batch != null) {
            batch.flush();
        }
    }

    /** The receive CQ, or null. */
    public UtilCompletionQueue cq() {
        return cq;
    }

    /** Whether the CQ is bound with {@code FI_SELECTIVE_COMPLETION}. */
    public boolean selective() {
        return selective;
    }

    /** The {@code FI_RECV} counter, or null. */
    public UtilCounter counter() {
        return counter;
    }

    /**
     * A message landed in a receive whose CQ room was reserved: ETRUNC, EADDRNOTAVAIL or
     * success as the class comment says.
     *
     * @param flags         {@link #RECV_FLAGS} or {@link #TRECV_FLAGS}, plus
     *                      {@code FI_REMOTE_CQ_DATA} when the message carries data and
     *                      {@code FI_MULTI_RECV} when this completion releases a multi-receive
     *                      buffer
     * @param report        whether the receive asked for a success entry ({@code FI_COMPLETION},
     *                      or it releases a multi-receive buffer); without
     *                      {@code FI_SELECTIVE_COMPLETION} one is written anyway. Else its room
     *                      is given back.
     * @param buf           the buffer the completion names, and {@code bufOffset} the index
     *                      in it where the message starts
     * @param len           the bytes placed
     * @param olen          the bytes of the message that found no room (0: none)
     * @param src           the sender's {@code fi_addr_t}, or {@code FI_ADDR_NOTAVAIL}
     * @param sourceAddress the raw address of a sender not in the AV, or null
     */
    public void received(Object context, long flags, boolean report, ByteBuffer buf, int bufOffset, long len,
                         long olen, long data, long tag, long src, byte[] sourceAddress) {
        long d = (flags & Fi.FI_REMOTE_CQ_DATA) != 0 ? data : 0;
        long t = (flags & Fi.FI_TAGGED) != 0 ? tag : 0;
        long from = source ? src : Fi.FI_ADDR_NOTAVAIL;
        if (batch != null) {
            if (olen == 0 && !(sourceErr && src == Fi.FI_ADDR_NOTAVAIL && sourceAddress != null)) {
                if (report || !selective) {
                    batch.complete(cq, context, flags, len, buf, bufOffset, d, t, from);
                } else {
                    cq.unreserve();
                }
                if (counter != null) {
                    batch.count(counter);
                }
                countReceived(flags, len);
                return;
            }
            batch.flush();
        }
        if (olen > 0) {
            cq.completeError(context, flags, len, buf, bufOffset, d, t, olen, Errno.ETRUNC, 0, null, 0, from);
            countError();
            return;
        }
        if (sourceErr && src == Fi.FI_ADDR_NOTAVAIL && sourceAddress != null) {
            byte[] raw = sourceAddress.clone(); // the CQ keeps errData by reference (R3)
            cq.completeError(context, flags, len, buf, bufOffset, d, t, 0, Errno.EADDRNOTAVAIL, 0, raw, raw.length,
                    Fi.FI_ADDR_NOTAVAIL);
            countError();
            return;
        }
        if (report || !selective) {
            cq.complete(context, flags, len, buf, bufOffset, d, t, from);
        } else {
            cq.unreserve();
        }
        if (counter != null) {
            counter.increment();
        }
        countReceived(flags, len);
    }

    /**
     * A receive whose CQ room was reserved fails with {@code err} (R2, R13, R14, R15): an error
     * entry with nothing received.
     *
     * @param flags     as {@link #received}
     * @param tag       the message's tag when a message was matched (else 0)
     * @param data      the message's data when {@code flags} has {@code FI_REMOTE_CQ_DATA}
     * @param src       the sender of a matched message, or {@code FI_ADDR_NOTAVAIL}
     * @param provErrno the provider's errno (R14: why a connection ended), or 0
     * @param errData   the provider's error data (kept by reference, never changed), or null
     */
    public void failed(Object context, long flags, ByteBuffer buf, int bufOffset, long data, long tag, long src,
                       int err, int provErrno, byte[] errData) {
        flushStaged();
        long d = (flags & Fi.FI_REMOTE_CQ_DATA) != 0 ? data : 0;
        long t = (flags & Fi.FI_TAGGED) != 0 ? tag : 0;
        cq.completeError(context, flags, 0, buf, bufOffset, d, t, 0, err, provErrno, errData,
                errData == null ? 0 : errData.length, source ? src : Fi.FI_ADDR_NOTAVAIL);
        countError();
    }

    /**
     * {@code FI_PEEK} found {@code m} (fi_tagged(3)): a success entry with its length, tag,
     * data and sender, into the room the peek reserved; nothing copied, nothing counted. Also
     * the completion of {@code FI_CLAIM | FI_DISCARD} ({@code len} 0).
     */
    public void peeked(Object context, ArrivingMessage m, long len) {
        flushStaged();
        long flags = TRECV_FLAGS | (m.hasData ? Fi.FI_REMOTE_CQ_DATA : 0);
        cq.complete(context, flags, len, null, 0, m.data, m.tag, source ? m.src : Fi.FI_ADDR_NOTAVAIL);
    }

    /** {@code FI_PEEK} found nothing: an {@code ENOMSG} error entry with the peek's tag (fi_tagged(3)); not counted. */
    public void notFound(Object context, long tag) {
        flushStaged();
        cq.completeError(context, TRECV_FLAGS, 0, null, 0, 0, tag, 0, Errno.ENOMSG, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
    }

    private void countError() {
        if (counter != null) {
            counter.incrementError();
        }
    }
}
