package io.jofi.provider.verbs;

import static io.jofi.provider.verbs.RmaSlots.K_ATOMIC;
import static io.jofi.provider.verbs.RmaSlots.K_FETCH;
import static io.jofi.provider.verbs.RmaSlots.K_READ;
import static io.jofi.provider.verbs.RmaSlots.K_SWAP;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The transmit slots of a verbs endpoint ({@link VerbsEndpoint}; RDM endpoints are the rxm
 * layer over such endpoints) — the twin of {@link ReceiveSlots}: one slot per send, RMA
 * or atomic operation in flight (its wr_id), holding its whole work request (opcode and target
 * in {@link RmaSlots}, send flags, immediate data, the SGEs its local buffers resolved to) and
 * what its completion must report ({@code fi_msg(3)}, {@code fi_rma(3)}, {@code fi_atomic(3)},
 * {@code fi_cq(3)}).
 *
 * <p>An operation, past the util post checks, goes {@link #check} (verbs' own) →
 * {@link #open} (a slot and CQ room, R6) → {@link #addPayload} (SGEs: a registration given as
 * {@code desc} or covering the buffer, the registration cache, or the slot's bounce slot for
 * heap buffers and inject)
 * → {@link #stage} on a {@link SendChain} → {@link #post}; then a work completion →
 * {@link #step} (an RMA/atomic operation may continue with another work request) →
 * {@link #complete} (copy-back of heap results, the counter, the CQ entry) or {@link #fail}.
 * The work request is kept whole in the slot until it is staged, so that an RDM operation
 * queued while its connection is set up is staged later exactly as given; the slots also
 * carry a link ({@link #next}) for such queues, so queuing allocates nothing.
 *
 * <p>What differs between the endpoints stays with them: where a slot is staged (the MSG
 * endpoint's one queue pair; the RDM endpoint's peer connection, possibly after waiting for
 * it) and what a failed work completion means for the connection.
 *
 * <p><b>Threads.</b> No lock of its own: every method is called under the owning endpoint's
 * monitor. Flat arrays indexed by slot; nothing allocated per operation.
 */
final class TransmitSlots {
    /** Local SGEs per operation (the iovs of a {@code sendMsg}). */
    static final int IOV_LIMIT = 4;

    private final VerbsDomain domain;
    private final int depth;
    /** The device is iWARP: no IBV_SEND_FENCE (FI_FENCE is kept by {@link #fenceWaits}), no immediate data. */
    private final boolean iwarp;
    /** What each slot's work request targets and the multi-work-request steps of RMA and atomics. */
    private final RmaSlots rma;

    private final Object[] context;
    private final long[] cqFlags;
    private final boolean[] report;
    private final boolean[] busy;
    /** The registration-cache entry a slot holds, or -1 (one per operation). */
    private final int[] reg;
    /** Reads and fetches into heap buffers (or atomics' bounce slot): copied out of the bounce slot on success. */
    private final ByteBuffer[] result;
    private final int[] resultLen;
    private final int[] sendFlags;
    private final int[] imm;
    private final int[] sges;
    private final long[] sgeAddr;
    private final int[] sgeLen;
    private final int[] sgeLkey;
    /** Next slot in a queue its owner threads through the slots (RDM: a connection's wait queue), or -1. */
    final int[] next;
    /** The free slots, a stack: {@code free[0 .. freeCount)}. */
    private final int[] free;
    private int freeCount;
    /** Room for the slots of iWARP writes a read of data confirms or that need flush reads ({@link WriteConfirms}). */
    private final int[] scratch;
    /** Work requests the last {@link #post} refused. */
    private int refused;

    // ---- fixed at enable (bindings cannot change after it)
    private UtilCompletionQueue cq;
    private UtilCounter sendCntr;
    private UtilCounter readCntr;
    private UtilCounter writeCntr;
    private boolean selective;
    private LocalBuffers buffers;

    /**
     * @param depth         the number of slots (the endpoint's transmit depth); slot {@code s}
     *                      bounces through bounce slot {@code s} of {@link LocalBuffers}
     * @param confirmWrites iWARP: follow each RDMA write with a zero-length read ({@link RmaSlots})
     */
    TransmitSlots(VerbsDomain domain, int depth, boolean confirmWrites) {
        this.domain = domain;
        this.depth = depth;
        this.iwarp = domain.port().iwarp();
        this.rma = new RmaSlots(depth, confirmWrites);
        this.context = new Object[depth];
        this.cqFlags = new long[depth];
        this.report = new boolean[depth];
        this.busy = new boolean[depth];
        this.reg = new int[depth];
        this.result = new ByteBuffer[depth];
        this.resultLen = new int[depth];
        this.sendFlags = new int[depth];
        this.imm = new int[depth];
        this.sges = new int[depth];
        this.sgeAddr = new long[depth * IOV_LIMIT];
        this.sgeLen = new int[depth * IOV_LIMIT];
        this.sgeLkey = new int[depth * IOV_LIMIT];
        this.next = new int[depth];
        this.scratch = new int[depth];
        this.free = new int[depth];
        for (int i = 0; i < depth; i++) {
            free[i] = depth - 1 - i;
        }
        this.freeCount = depth;
    }

    /**
     * What completions go to, fixed at {@code enable} (R9): the transmit CQ, the counters of
     * {@code FI_SEND}, {@code FI_READ} and {@code FI_WRITE} (or null), whether the CQ is bound
     * with {@code FI_SELECTIVE_COMPLETION}, and the endpoint's local buffers.
     */
    void enable(UtilCompletionQueue cq, UtilCounter send, UtilCounter read, UtilCounter write, boolean selective,
                LocalBuffers buffers) {
        this.cq = cq;
        this.sendCntr = send;
        this.readCntr = read;
        this.writeCntr = write;
        this.selective = selective;
        this.buffers = buffers;
    }

    /** The number of slots. */
    int depth() {
        return depth;
    }

    /** The slot holds an operation in flight (posted or waiting to be). */
    boolean busy(int slot) {
        return slot >= 0 && slot < depth && busy[slot];
    }

    /**
     * Verbs' own checks of an operation past the util post checks, before anything is taken:
     * {@link RmaSlots#check} (remote CQ data where the device has none, an atomic's alignment
     * and result), and {@code -EAGAIN} when no slot is free.
     *
     * @return 0 or a negative errno
     */
    int check(int kindAndOp, boolean withData, long remoteAddr, ByteBuffer res) {
        int rc = RmaSlots.check(kindAndOp, withData, !iwarp, remoteAddr, res);
        if (rc != 0) {
            return rc;
        }
        return freeCount == 0 ? -Errno.EAGAIN : 0;
    }

    /**
     * {@code FI_FENCE} (R11) on iWARP: the operation waits until every earlier one completed
     * (kept here rather than by {@code IBV_SEND_FENCE}: soft-iWARP left a fenced read behind a
     * write pending for ever); the caller posts what it staged, answers {@code -EAGAIN} and the
     * application progresses and retries (docs/API.md).
     */
    boolean fenceWaits(long flags) {
        return iwarp && (flags & Fi.FI_FENCE) != 0 && freeCount < depth;
    }

    /**
     * A read asked for while iWARP flush reads are in flight waits ({@link WriteConfirms}): the
     * caller posts what it staged and answers {@code -EAGAIN}, as for {@link #fenceWaits}.
     */
    boolean readWaits(int kindAndOp) {
        return rma.readMustWait(kindAndOp);
    }

    /**
     * Posts on {@code chain} the iWARP flush reads of the writes that rode on reads of data none
     * of which came after them, once those reads drained ({@link WriteConfirms}); a refused post
     * fails their writes with {@code EIO}. Called after each transmit completion.
     */
    void postDueFlushReads(SendChain chain) {
        if (rma.flushReadsDue() && rma.stageDueFlushReads(chain, buffers, scratch) > 0) {
            post(chain, -1);
        }
    }

    /**
     * Takes a slot and reserves room in the CQ (R6), and records the operation: its target
     * ({@link RmaSlots#prepare}), send flags ({@code inline}: the data goes in the work
     * request), the immediate data ({@code __be32} on the wire), its context and whether its
     * completion is reported (R2: not for inject, nor without {@code FI_COMPLETION} on a
     * selective CQ). SGEs follow with {@link #addPayload}.
     *
     * @return the slot, or a negative errno ({@code -EAGAIN}: no free slot or no CQ room)
     */
    int open(int kindAndOp, boolean withData, long data, long remoteAddr, long rkey, long compareAdd, long swap,
             boolean inline, Object ctx, long flags) {
        if (freeCount == 0) {
            return -Errno.EAGAIN;
        }
        int rc = cq.reserve();
        if (rc != 0) {
            return rc;
        }
        int slot = free[--freeCount];
        reg[slot] = -1;
        sges[slot] = 0;
        result[slot] = null;
        next[slot] = -1;
        cqFlags[slot] = rma.prepare(slot, kindAndOp, withData, remoteAddr, rkey, compareAdd, swap);
        int f = VerbsConstants.IBV_SEND_SIGNALED;
        if ((flags & Fi.FI_FENCE) != 0 && !iwarp) {
            f |= VerbsConstants.IBV_SEND_FENCE;
        }
        if (inline) {
            f |= VerbsConstants.IBV_SEND_INLINE;
        }
        sendFlags[slot] = f;
        int i = withData ? (int) data : 0;
        imm[slot] = withData && ByteOrder.nativeOrder() != ByteOrder.BIG_ENDIAN ? Integer.reverseBytes(i) : i;
        context[slot] = ctx;
        report[slot] = (flags & Fi.FI_INJECT) == 0 && (!selective || (flags & Fi.FI_COMPLETION) != 0);
        busy[slot] = true;
        return slot;
    }

    /**
     * The local buffers of {@code slot}'s operation as its SGEs: the 8-byte result of a fetch
     * ({@code res}, registered as {@code desc}), the bounce slot for an atomic without one, else
     * {@code buf} (registered as {@code desc}) or {@code msg}'s iovs (with their {@code desc}s) of
     * {@code length} bytes. {@code inject} copies the data at once (the
     * buffer is reusable when the call returns); {@code inline} needs no key. On failure the
     * slot is taken back (nothing happened).
     *
     * @return 0, or a negative errno ({@code -EINVAL} an unknown {@code desc} or a second cached
     *         registration, {@code -EAGAIN} the registration cache full, {@code -EMSGSIZE} heap
     *         data beyond the bounce slot)
     */
    int addPayload(int slot, int kindAndOp, ByteBuffer buf, MemoryRegion desc, Msg msg, long length, boolean inject,
                   boolean inline, ByteBuffer res) {
        int kind = kindAndOp & 0xFF;
        int rc = 0;
        if (kind == K_FETCH) {
            rc = addLocal(slot, res, 8, desc, 0, false, false, true);
        } else if (kind == K_ATOMIC || kind == K_SWAP) {
            // fetch-and-add without a result, or the swap: the old value lands in the bounce slot
            int k = slot * IOV_LIMIT;
            sgeAddr[k] = buffers.bounceAddress(slot);
            sgeLen[k] = 8;
            sgeLkey[k] = buffers.bounceLkey();
            sges[slot] = 1;
            if ((kindAndOp & RmaSlots.FETCHING) != 0) {
                result[slot] = res;
                resultLen[slot] = 8;
            }
        } else if (msg == null) {
            if (length > 0) {
                rc = addLocal(slot, buf, (int) length, desc, 0, inject && !inline, inline, kind == K_READ);
            }
        } else {
            int bounceUsed = 0;
            for (int i = 0; i < msg.iovCount() && rc >= 0; i++) {
                ByteBuffer b = msg.iov(i);
                if (b.remaining() > 0) {
                    rc = addLocal(slot, b, b.remaining(), msg.desc(i), bounceUsed, inject && !inline, inline,
                            kind == K_READ);
                    bounceUsed += Math.max(0, rc);
                }
            }
        }
        if (rc < 0) {
            takeBack(slot);
            return rc;
        }
        return 0;
    }

    /**
     * One local buffer as an SGE of {@code slot}: a registration given as {@code desc}, else the
     * registration cache (held until the completion); for heap buffers (or {@code copy}) the
     * slot's bounce slot at {@code bounceAt} — copied in now, or
     * with {@code copyBack} (the device writes it: reads, fetches) copied out when the operation
     * succeeded.
     *
     * @return bytes of the bounce slot used (0 when none), or a negative errno
     */
    private int addLocal(int slot, ByteBuffer b, int len, MemoryRegion desc, int bounceAt, boolean copy,
                         boolean inline, boolean copyBack) {
        int k = slot * IOV_LIMIT + sges[slot];
        if (b.isDirect() && !copy) {
            long addr = buffers.addressOf(b) + b.position();
            long lkey;
            if (inline) {
                lkey = 0;
            } else if (desc != null) {
                long[] registration = domain.registration(desc);
                if (registration == null) {
                    return -Errno.EINVAL;
                }
                lkey = registration[1];
            } else {
                lkey = buffers.lkey(b, addr, len);
                if (lkey < 0) {
                    return -Errno.EAGAIN;
                }
                if (reg[slot] >= 0) {
                    // one cached registration per operation (the slot holds one): a second would
                    // stay held for ever; register the others and pass them as desc
                    return -Errno.EINVAL;
                }
                reg[slot] = buffers.lastEntry;
                buffers.hold(buffers.lastEntry);
            }
            sgeAddr[k] = addr;
            sgeLen[k] = len;
            sgeLkey[k] = (int) lkey;
            sges[slot]++;
            return 0;
        }
        if (bounceAt + len > LocalBuffers.BOUNCE || (copyBack && result[slot] != null)) {
            // the bounce slot is copied back into one heap buffer per operation (the slot
            // remembers one): a second would silently never receive its data
            return -Errno.EMSGSIZE;
        }
        long addr = buffers.bounceAddress(slot) + bounceAt;
        if (copyBack) {
            result[slot] = b;
            resultLen[slot] = len;
        } else {
            buffers.copyInAt(addr, b, len);
        }
        sgeAddr[k] = addr;
        sgeLen[k] = len;
        sgeLkey[k] = inline ? 0 : buffers.bounceLkey();
        sges[slot]++;
        return len;
    }

    /** Stages {@code slot}'s work request and its SGEs on {@code chain}. */
    void stage(SendChain chain, int slot) {
        int wr = rma.stage(chain, slot, sendFlags[slot], imm[slot]);
        int base = slot * IOV_LIMIT;
        for (int i = 0; i < sges[slot]; i++) {
            chain.sge(wr, sgeAddr[base + i], sgeLen[base + i], sgeLkey[base + i]);
        }
    }

    /**
     * Posts {@code chain}. Work requests the device refused ({@link #refused} of them): the
     * current operation ({@code currentSlot}, -1 for none) is taken back and its errno answered
     * ({@link WcErrors#postRefused}: {@code -EAGAIN} only for a full queue); earlier ones,
     * staged with {@code FI_MORE} by calls that answered 0, fail with an {@code EIO} completion
     * (the post's errno as {@code prov_errno}).
     *
     * @return 0, or the current operation's negative errno
     */
    int post(SendChain chain, int currentSlot) {
        int n = chain.staged();
        int rc = chain.post(domain.ops());
        if (rc == 0) {
            refused = 0;
            return 0;
        }
        refused = n - chain.failedIndex();
        int answer = 0;
        for (int i = chain.failedIndex(); i < n; i++) {
            int slot = (int) chain.wrId(i);
            if (slot == currentSlot) {
                takeBack(slot);
                answer = WcErrors.postRefused(rc);
            } else {
                fail(slot, Errno.EIO, rc);
            }
        }
        return answer;
    }

    /** How many work requests the last {@link #post} refused (0 when it succeeded). */
    int refused() {
        return refused;
    }

    /**
     * A work completion of {@code slot}: posts the next work request of a multi-work-request
     * operation on {@code chain} and answers {@link RmaSlots#CONTINUED}, or the status the
     * operation completes with ({@link RmaSlots#step}).
     */
    int step(int slot, int status, SendChain chain) {
        return rma.step(slot, status, chain, buffers, domain.ops());
    }

    /** The errno of a final status: {@link RmaSlots#POST_FAILED} and above {@code EIO}, else {@link WcErrors#errno}. */
    static int errnoOf(int status) {
        return status >= RmaSlots.POST_FAILED ? Errno.EIO : WcErrors.errno(status);
    }

    /** The {@code prov_errno} of a final status: the {@code ibv_wc_status}. */
    static int provErrnoOf(int status) {
        return status >= RmaSlots.POST_FAILED ? status - RmaSlots.POST_FAILED : status;
    }

    /**
     * {@code slot}'s operation succeeded: its cached registration is released, a heap result
     * copied out of the bounce slot, its counter counts it, and its CQ entry is written (or its
     * room given back when not reported, R2). Frees the slot. An iWARP read of data first
     * completes the writes that rode on it ({@link WriteConfirms}).
     */
    void complete(int slot) {
        int riders = rma.takeRiders(slot, scratch);
        for (int i = 0; i < riders; i++) {
            complete(scratch[i]); // iWARP writes this read of data confirmed, in order before it
        }
        if (reg[slot] >= 0) {
            buffers.release(reg[slot]);
        }
        ByteBuffer r = result[slot];
        if (r != null) {
            buffers.copyOut(slot, r, resultLen[slot]);
        }
        UtilCounter c = RmaSlots.counter(rma.kind(slot), sendCntr, readCntr, writeCntr);
        if (c != null) {
            c.increment();
        }
        if (report[slot]) {
            cq.complete(context[slot], cqFlags[slot], 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        } else {
            cq.unreserve();
        }
        release(slot);
    }

    /**
     * {@code slot}'s operation failed: an error completion with {@code err} and
     * {@code provErrno} (always reported, R2, in the room reserved for it), the counter's error
     * count rises. Frees the slot.
     */
    void fail(int slot, int err, int provErrno) {
        if (reg[slot] >= 0) {
            buffers.release(reg[slot]);
        }
        UtilCounter c = RmaSlots.counter(rma.kind(slot), sendCntr, readCntr, writeCntr);
        if (c != null) {
            c.incrementError();
        }
        cq.completeError(context[slot], cqFlags[slot], 0, null, 0, 0, 0, 0, err, provErrno, null, 0,
                Fi.FI_ADDR_NOTAVAIL);
        release(slot);
    }

    /** Undoes {@link #open} of an operation that never reached the device: no completion. */
    private void takeBack(int slot) {
        if (reg[slot] >= 0) {
            buffers.release(reg[slot]);
        }
        cq.unreserve();
        release(slot);
    }

    private void release(int slot) {
        rma.released(slot);
        busy[slot] = false;
        context[slot] = null;
        result[slot] = null;
        reg[slot] = -1;
        free[freeCount++] = slot;
    }

    /**
     * Teardown: every operation in flight completes with {@code err} ({@code ECANCELED} when
     * the endpoint departs, R15; {@code EIO} when the domain's progress failed) when
     * {@code departing}, else (close, fi_endpoint(3)) gives its reserved room back without a
     * completion (R9). Every slot is then idle.
     */
    void drain(boolean departing, int err) {
        for (int slot = 0; slot < depth; slot++) {
            if (busy[slot]) {
                if (departing) {
                    cq.completeError(context[slot], cqFlags[slot], 0, null, 0, 0, 0, 0, err, 0, null, 0,
                            Fi.FI_ADDR_NOTAVAIL);
                } else {
                    cq.unreserve();
                }
                busy[slot] = false;
            }
        }
    }
}
