package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.ReceiveCompletion;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The receive slots of a verbs endpoint ({@link VerbsEndpoint}; RDM endpoints are the rxm
 * layer over such endpoints): one slot per posted receive (its wr_id), holding the
 * application's buffer, how the device reaches it, and what its completion must report
 * ({@code fi_msg(3)}, {@code fi_cq(3)}).
 *
 * <p>What differs between the endpoints stays with them: where a staged receive goes (the MSG
 * endpoint's own queue pair, possibly after waiting for it to exist; the RDM endpoint's shared
 * receive queue), and the source a completion names (RDM: {@code FI_SOURCE} from the
 * connection the message came on, passed in; MSG: {@code FI_ADDR_NOTAVAIL}). What a receive's
 * completion says (R2, R10, R12, R13: {@code ETRUNC} with {@code olen}, {@code FI_SOURCE} and
 * {@code FI_SOURCE_ERR}, the flags, the counter) is {@link ReceiveCompletion}'s, the one writer
 * every provider shares; what is verbs' own is how the device reached the buffer (the overflow
 * SGE that turns a long message into that {@code ETRUNC}, the bounce slot of a heap buffer) and
 * the {@code FI_RX_CQ_DATA} completion of a peer's write with data.
 *
 * <p><b>Threads.</b> No lock of its own: every method is called under the owning endpoint's
 * monitor, which guards these slots with the rest of its state. Flat arrays indexed by slot;
 * nothing allocated per operation.
 */
final class ReceiveSlots {
    /** The completion flags of a received message (R2: what {@code fi_recv} completes with). */
    static final long RECV_FLAGS = ReceiveCompletion.RECV_FLAGS;

    private final VerbsDomain domain;
    private final int depth;
    /** Receive slot {@code s} bounces a heap buffer through bounce slot {@code bounceBase + s}. */
    private final int bounceBase;

    private final Object[] context;
    private final ByteBuffer[] buf;
    private final int[] bufOffset;
    private final boolean[] heap;
    private final boolean[] report;
    private final boolean[] canceled;
    private final boolean[] busy;
    private final long[] addr;
    private final int[] len;
    private final int[] lkey;
    /** The registration-cache entry a slot holds, or -1. */
    private final int[] reg;
    /** The free slots, a stack: {@code freeList[0 .. freeCount)}. */
    private final int[] freeList;
    private int freeCount;

    /** Writes every receive completion (util: R2, R10, R12, R13), bound at enable. */
    private final ReceiveCompletion completion = new ReceiveCompletion();
    // ---- fixed at enable (bindings cannot change after it)
    private UtilCompletionQueue cq;
    private boolean selective;
    private LocalBuffers buffers;

    /**
     * @param depth      the number of slots (the endpoint's receive depth)
     * @param bounceBase the first bounce slot of {@link LocalBuffers} that receives use (those
     *                   below belong to the transmit slots)
     */
    ReceiveSlots(VerbsDomain domain, int depth, int bounceBase) {
        this.domain = domain;
        this.depth = depth;
        this.bounceBase = bounceBase;
        this.context = new Object[depth];
        this.buf = new ByteBuffer[depth];
        this.bufOffset = new int[depth];
        this.heap = new boolean[depth];
        this.report = new boolean[depth];
        this.canceled = new boolean[depth];
        this.busy = new boolean[depth];
        this.addr = new long[depth];
        this.len = new int[depth];
        this.lkey = new int[depth];
        this.reg = new int[depth];
        this.freeList = new int[depth];
        for (int i = 0; i < depth; i++) {
            freeList[i] = depth - 1 - i;
        }
        this.freeCount = depth;
    }

    /**
     * What completions go to, fixed at {@code enable} (R9: bindings cannot change after it):
     * the receive CQ, the {@code FI_RECV} counter (or null), whether the CQ is bound with
     * {@code FI_SELECTIVE_COMPLETION}, the endpoint's local buffers, and whether receives
     * report their sender ({@code FI_SOURCE}) and a sender not in the AV as an error
     * ({@code FI_SOURCE_ERR}).
     */
    void enable(UtilCompletionQueue cq, UtilCounter counter, boolean selective, LocalBuffers buffers, boolean source,
                boolean sourceErr) {
        this.cq = cq;
        this.selective = selective;
        this.buffers = buffers;
        completion.bind(cq, selective, counter);
        completion.reportSource(source, sourceErr);
    }

    /** Counts the messages and bytes its completions received in {@code group} (the endpoint's), once. */
    void countIn(io.jofi.spi.util.stats.CounterGroup group) {
        completion.countIn(group);
    }

    /** The number of slots. */
    int depth() {
        return depth;
    }

    /** The slot holds a pending receive (posted or waiting to be). */
    boolean busy(int slot) {
        return busy[slot];
    }

    /** The context of the receive in {@code slot}. */
    Object context(int slot) {
        return context[slot];
    }

    /**
     * Takes a slot for a receive into {@code b} ({@code [position, limit)}): resolves how the
     * device reaches it — a heap buffer through the slot's 4 KiB bounce slot (larger:
     * {@code -EMSGSIZE}), a direct one by the registration given as {@code desc} (unknown:
     * {@code -EINVAL}), else the registration cache (held until the completion; full:
     * {@code -EAGAIN}) — and reserves room in the CQ (R6). Completions are reported unless the
     * CQ is selective and {@code flags} lack {@code FI_COMPLETION} (R2). On any failure nothing
     * has changed.
     *
     * @return the slot, or a negative errno ({@code -EAGAIN}: no free slot or no CQ room)
     */
    int reserve(ByteBuffer b, MemoryRegion desc, Object ctx, long flags) {
        if (freeCount == 0) {
            return -Errno.EAGAIN;
        }
        int n = b.remaining();
        long a;
        long key;
        int r = -1;
        boolean onHeap = !b.isDirect();
        int slot = freeList[freeCount - 1];
        if (onHeap) {
            if (n > LocalBuffers.BOUNCE) {
                return -Errno.EMSGSIZE;
            }
            a = buffers.bounceAddress(bounceBase + slot);
            key = buffers.bounceLkey();
        } else {
            a = buffers.addressOf(b) + b.position();
            if (desc != null) {
                long[] registration = domain.registration(desc);
                if (registration == null) {
                    return -Errno.EINVAL;
                }
                key = registration[1];
            } else {
                key = n == 0 ? 0 : buffers.lkey(b, a, n);
                if (key < 0) {
                    return -Errno.EAGAIN;
                }
                r = n == 0 ? -1 : buffers.lastEntry;
            }
        }
        int rc = cq.reserve();
        if (rc != 0) {
            return rc;
        }
        freeCount--;
        if (r >= 0) {
            buffers.hold(r);
        }
        context[slot] = ctx;
        buf[slot] = b;
        bufOffset[slot] = b.position();
        heap[slot] = onHeap;
        report[slot] = !selective || (flags & Fi.FI_COMPLETION) != 0;
        canceled[slot] = false;
        busy[slot] = true;
        addr[slot] = a;
        len[slot] = n;
        lkey[slot] = (int) key;
        reg[slot] = r;
        return slot;
    }

    /**
     * Stages {@code slot}'s receive on {@code chain} with wr_id {@code wrIdBit | slot}: the
     * buffer (none when empty), then the domain's overflow area, so that a longer message
     * spills there and completes with {@code ETRUNC} and {@code olen} instead of putting the
     * queue pair in error (R12).
     */
    void stage(RecvChain chain, int slot, long wrIdBit) {
        int wr = chain.stage(wrIdBit | slot);
        if (len[slot] > 0) {
            chain.sge(wr, addr[slot], len[slot], lkey[slot]);
        }
        chain.sge(wr, domain.overflowAddress(), VerbsDomain.OVERFLOW, domain.overflowLkey());
    }

    /** Undoes {@link #reserve} of a receive the device refused: nothing of it was posted, no completion. */
    void unreserve(int slot) {
        if (reg[slot] >= 0) {
            buffers.release(reg[slot]);
        }
        cq.unreserve();
        free(slot);
    }

    /**
     * {@code fi_cancel} of a receive the device has (R13): the first pending, not yet canceled
     * receive with that context completes with {@code ECANCELED} at once; the slot stays taken
     * until its work request comes back, and whatever lands in it is dropped.
     *
     * @return 0, or {@code -ENOENT} when no pending receive has that context
     */
    int cancel(Object ctx) {
        for (int slot = 0; slot < depth; slot++) {
            if (busy[slot] && !canceled[slot] && context[slot] == ctx) {
                canceled[slot] = true;
                reportCanceled(slot);
                return 0;
            }
        }
        return -Errno.ENOENT;
    }

    /**
     * {@code fi_cancel} of a receive the device never had (an MSG endpoint's, waiting for its
     * queue pair): its {@code ECANCELED} completion (R13), its cached registration released
     * (no work completion will come to do it) and the slot freed.
     */
    void cancelUnposted(int slot) {
        if (reg[slot] >= 0) {
            buffers.release(reg[slot]);
            reg[slot] = -1;
        }
        reportCanceled(slot);
        free(slot);
    }

    /** The {@code ECANCELED} error completion of {@code slot}'s receive (R13, R15); the slot is not freed. */
    void reportCanceled(int slot) {
        reportFailed(slot, Errno.ECANCELED);
    }

    private void reportFailed(int slot, int err) {
        completion.failed(context[slot], RECV_FLAGS, buf[slot], bufOffset[slot], 0, 0, Fi.FI_ADDR_NOTAVAIL, err, 0,
                null);
    }

    /**
     * The first step of a work completion of {@code slot}: the cached registration is released;
     * a slot not pending (a stale or foreign wr_id) is ignored, and a canceled one — already
     * reported at cancel time — is freed.
     *
     * @return true when the completion is still to be reported (one of the {@code complete*})
     */
    boolean completing(int slot) {
        if (slot < 0 || slot >= depth || !busy[slot]) {
            return false;
        }
        if (reg[slot] >= 0) {
            buffers.release(reg[slot]);
        }
        if (canceled[slot]) {
            free(slot);
            return false;
        }
        return true;
    }

    /**
     * A failed work completion ({@code status} an {@code ibv_wc_status}): an error completion
     * with the errno {@link WcErrors} maps it to and the status as {@code prov_errno} (R14),
     * nothing received ({@link ReceiveCompletion#failed}); the counter's error count rises.
     * Frees the slot.
     */
    void completeFailed(int slot, int status) {
        completion.failed(context[slot], RECV_FLAGS, buf[slot], bufOffset[slot], 0, 0, Fi.FI_ADDR_NOTAVAIL,
                WcErrors.errno(status), status, null);
        free(slot);
    }

    /**
     * {@code FI_RX_CQ_DATA}: a peer's write with immediate data consumed the receive in
     * {@code slot}; it completes as {@link RmaSlots#completeRemoteWrite} says, naming
     * {@code src}. Frees the slot.
     */
    void completeRemoteWrite(int slot, int immData, long src) {
        RmaSlots.completeRemoteWrite(cq, context[slot], report[slot], immediate(immData), src);
        free(slot);
    }

    /**
     * A message of {@code byteLen} bytes received in {@code slot}, written by
     * {@link ReceiveCompletion#received}: longer than the buffer (the rest spilled into the
     * overflow area), {@code ETRUNC} with the posted length and {@code olen} (R12); else the
     * length and, with {@code IBV_WC_WITH_IMM}, {@code FI_REMOTE_CQ_DATA} and the data, reported
     * as the receive asked (R2) — or, {@code unknownSource} the raw name of a sender not in the
     * AV ({@code FI_SOURCE_ERR}, R10), {@code EADDRNOTAVAIL} carrying it. A heap buffer gets the
     * bytes from its bounce slot. Frees the slot.
     *
     * @param src the sender's fi_addr ({@code FI_SOURCE}), or {@code FI_ADDR_NOTAVAIL}
     */
    void completeMessage(int slot, int byteLen, int immData, int wcFlags, long src, byte[] unknownSource) {
        ByteBuffer b = buf[slot];
        long n = byteLen & 0xFFFFFFFFL;
        long placed = Math.min(n, len[slot]);
        if (heap[slot]) {
            buffers.copyOut(bounceBase + slot, b, (int) placed);
        }
        long flags = RECV_FLAGS;
        long data = 0;
        if (n <= len[slot] && (wcFlags & VerbsConstants.IBV_WC_WITH_IMM) != 0) {
            flags |= Fi.FI_REMOTE_CQ_DATA;
            data = immediate(immData);
        }
        completion.received(context[slot], flags, report[slot], b, bufOffset[slot], placed, n - placed, data, 0, src,
                unknownSource);
        free(slot);
    }

    /** Returns {@code slot} to the free list. */
    void free(int slot) {
        busy[slot] = false;
        canceled[slot] = false;
        context[slot] = null;
        buf[slot] = null;
        freeList[freeCount++] = slot;
    }

    /**
     * Teardown: every pending receive not canceled already completes with {@code err}
     * ({@code ECANCELED} when the endpoint departs, R15; {@code EIO} when the domain's progress
     * failed) when {@code departing}, else (close, fi_endpoint(3)) gives its reserved room back
     * without a completion (R9). Every slot is then idle.
     */
    void drain(boolean departing, int err) {
        for (int slot = 0; slot < depth; slot++) {
            if (busy[slot] && !canceled[slot]) {
                if (departing) {
                    reportFailed(slot, err);
                } else {
                    cq.unreserve();
                }
            }
            busy[slot] = false;
        }
    }

    /** Immediate data as the application sent it: {@code __be32} on the wire, unsigned. */
    private static long immediate(int immData) {
        return (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? immData : Integer.reverseBytes(immData))
                & 0xFFFFFFFFL;
    }
}
