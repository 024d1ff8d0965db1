package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.verbs.binding.ContextOps;
import io.jofi.provider.verbs.binding.RdmaConnParamDescriptor;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;

/**
 * The RMA and atomic side of {@link TransmitSlots} (MSG and RDM endpoints): what each slot's work
 * request targets (opcode, remote address, rkey, atomic operands: kept so that an RDM operation
 * queued while its connection is set up is staged later exactly as given), the mapping of
 * {@code fi_rma(3)} / {@code fi_atomic(3)} operations onto verbs opcodes and completion flags,
 * and the multi-work-request operations a completion continues:
 * <ul>
 * <li>{@code FI_ATOMIC_WRITE}, which verbs lacks: read the target (fetch-and-add of 0), then
 * compare-and-swap it from the value read to the new one until the swap hits — an atomic swap
 * built from verbs' two atomics, one slot, several work requests;</li>
 * <li>on iWARP, a write's placement: RFC 5040 completes an RDMA write at the initiator once the
 * local transport took it, before the target checked the key or placed a byte, so a write is
 * followed by a zero-length RDMA read of its target (answered only after the target processed
 * the write, in stream order; a refused write ends the connection and flushes the read) and
 * completes with that read (R11 {@code FI_DELIVERY_COMPLETE}) — or, when reads of data posted
 * after it are in flight as it completes locally, with the first of those ({@link WriteConfirms}
 * keeps confirmation reads apart from reads of data).</li>
 * </ul>
 * Arrays indexed by slot, allocated once; guarded by the owning endpoint's lock.
 */
final class RmaSlots {
    /** Kinds of transmit operations (what a completion counts and reports). */
    static final int K_SEND = 0;
    static final int K_WRITE = 1;
    static final int K_READ = 2;
    static final int K_ATOMIC = 3;
    static final int K_FETCH = 4;
    /** FI_ATOMIC_WRITE: a swap built from a read and compare-and-swaps (class comment). */
    static final int K_SWAP = 5;
    /** Marks a K_FETCH that is a compare-and-swap ({@code FI_CSWAP}). */
    static final int CSWAP = 0x100;
    /** Marks a K_SWAP whose old value is wanted (fetching {@code FI_ATOMIC_WRITE}). */
    static final int FETCHING = 0x200;
    /** {@link #step}: the operation goes on with another work request; no completion yet. */
    static final int CONTINUED = Integer.MIN_VALUE;
    /** A status meaning "the next work request could not be posted": completes with {@code EIO}. */
    static final int POST_FAILED = 1000;

    /** Writes are confirmed by a zero-length read (iWARP, unless the provider's {@code iwarpWriteConfirm} is off). */
    private final boolean confirmWrites;
    private final int[] kind;
    private final int[] opcode;
    private final long[] remoteAddr;
    private final int[] rkey;
    private final long[] compareAdd;
    private final long[] swap;
    /** K_SWAP: the value to store, the value last read; 1 while the first read is in flight, 2 while a CAS is. */
    private final long[] swapNew;
    private final long[] swapSeen;
    private final int[] swapPhase;
    /** iWARP writes: 1 while the write is in flight, 2 while its flush read is, 3 while it rides on a later read of data ({@link WriteConfirms}), else 0. */
    private final int[] writeFlush;
    /** Which writes need a flush read, which ride on a later read of data (never a flush read beside one). */
    private final WriteConfirms confirms;
    /** iWARP: each write's and read's place in posting order ({@link WriteConfirms}), and the last given. */
    private final long[] seq;
    private long lastSeq;

    /**
     * @param confirmWrites follow each RDMA write with a zero-length read of its target and
     *                      complete it with that read (iWARP: README "MSG endpoints")
     */
    RmaSlots(int slots, boolean confirmWrites) {
        this.confirmWrites = confirmWrites;
        this.kind = new int[slots];
        this.opcode = new int[slots];
        this.remoteAddr = new long[slots];
        this.rkey = new int[slots];
        this.compareAdd = new long[slots];
        this.swap = new long[slots];
        this.swapNew = new long[slots];
        this.swapSeen = new long[slots];
        this.swapPhase = new int[slots];
        this.writeFlush = new int[slots];
        this.confirms = new WriteConfirms(slots);
        this.seq = new long[slots];
    }

    /**
     * The argument checks of an operation before anything is taken: remote CQ data where the
     * device has none ({@code -ENOSYS}, docs/API.md: outside what the domain offers), a 64-bit
     * atomic on a target that is not 8-byte aligned or a fetch without 8 bytes of result
     * ({@code -EINVAL}). Returns 0 when the operation may go on.
     */
    static int check(int kindAndOp, boolean withData, boolean cqData, long target, ByteBuffer result) {
        if (withData && !cqData) {
            return -Errno.ENOSYS;
        }
        int k = kindAndOp & 0xFF;
        if ((k == K_FETCH || k == K_ATOMIC || k == K_SWAP) && (target & 7) != 0) {
            return -Errno.EINVAL; // 64-bit atomics need 8-byte aligned targets
        }
        boolean wantsResult = k == K_FETCH || (k == K_SWAP && (kindAndOp & FETCHING) != 0);
        if (wantsResult && (PostChecks.writable(result) != 0 || result.remaining() < 8)) {
            return -Errno.EINVAL;
        }
        return 0;
    }

    /**
     * The {@code kindAndOp} of {@code fi_atomic} ({@code fetch} false: FI_SUM,
     * FI_ATOMIC_WRITE) or {@code fi_fetch_atomic} (FI_SUM, FI_ATOMIC_READ, FI_ATOMIC_WRITE), or
     * -1 for an operation verbs' 64-bit fetch-and-add and compare-and-swap cannot build
     * ({@code -EOPNOTSUPP}).
     */
    static int atomicKind(int op, boolean fetch) {
        if (op == Fi.FI_ATOMIC_WRITE) {
            return fetch ? K_SWAP | FETCHING : K_SWAP;
        }
        if (op == Fi.FI_SUM) {
            return fetch ? K_FETCH : K_ATOMIC;
        }
        return fetch && op == Fi.FI_ATOMIC_READ ? K_FETCH : -1;
    }

    /**
     * Records {@code slot}'s operation: its verbs opcode and target ({@code compareAddOperand}
     * the addend, compare value or, for K_SWAP, the value to store). Returns the flags its
     * completion carries (fi_cq(3)).
     */
    long prepare(int slot, int kindAndOp, boolean withData, long target, long key, long compareAddOperand,
                 long swapOperand) {
        int k = kindAndOp & 0xFF;
        kind[slot] = k;
        remoteAddr[slot] = target;
        rkey[slot] = (int) key;
        compareAdd[slot] = compareAddOperand;
        swap[slot] = swapOperand;
        writeFlush[slot] = 0; // a slot may come back from a torn-down write
        switch (k) {
            case K_SEND:
                opcode[slot] = withData ? VerbsConstants.IBV_WR_SEND_WITH_IMM : VerbsConstants.IBV_WR_SEND;
                return Fi.FI_SEND | Fi.FI_MSG;
            case K_WRITE:
                opcode[slot] = withData ? VerbsConstants.IBV_WR_RDMA_WRITE_WITH_IMM : VerbsConstants.IBV_WR_RDMA_WRITE;
                writeFlush[slot] = confirmWrites ? 1 : 0;
                return Fi.FI_RMA | Fi.FI_WRITE;
            case K_READ:
                opcode[slot] = VerbsConstants.IBV_WR_RDMA_READ;
                return Fi.FI_RMA | Fi.FI_READ;
            case K_ATOMIC:
                opcode[slot] = VerbsConstants.IBV_WR_ATOMIC_FETCH_AND_ADD;
                return Fi.FI_ATOMIC | Fi.FI_WRITE;
            case K_SWAP:
                opcode[slot] = VerbsConstants.IBV_WR_ATOMIC_FETCH_AND_ADD; // first the read: add 0
                swapNew[slot] = compareAddOperand;
                compareAdd[slot] = 0;
                swapPhase[slot] = 1;
                return (kindAndOp & FETCHING) != 0 ? Fi.FI_ATOMIC | Fi.FI_READ : Fi.FI_ATOMIC | Fi.FI_WRITE;
            default:
                opcode[slot] = (kindAndOp & CSWAP) != 0 ? VerbsConstants.IBV_WR_ATOMIC_CMP_AND_SWP
                        : VerbsConstants.IBV_WR_ATOMIC_FETCH_AND_ADD;
                return Fi.FI_ATOMIC | Fi.FI_READ;
        }
    }

    /** The kind {@link #prepare} recorded for {@code slot}. */
    int kind(int slot) {
        return kind[slot];
    }

    /** Stages {@code slot}'s work request (SGEs follow with {@link SendChain#sge}); its index in the chain. */
    int stage(SendChain chain, int slot, int sendFlags, int imm) {
        if (confirmWrites && (kind[slot] == K_READ || kind[slot] == K_WRITE)) {
            seq[slot] = ++lastSeq;
            if (kind[slot] == K_READ) {
                confirms.readStaged(slot, seq[slot]);
            }
        }
        return chain.stage(slot, opcode[slot], sendFlags, imm, remoteAddr[slot], rkey[slot], compareAdd[slot],
                swap[slot]);
    }

    /**
     * A work request of {@code slot} completed with {@code status}: posts the next one of a
     * multi-work-request operation (an iWARP write's flush read, the swap's next
     * compare-and-swap, on {@code chain} through {@code buffers}' bounce slot {@code slot}) and
     * answers {@link #CONTINUED}, or the status the operation completes with
     * ({@link #POST_FAILED} + status when a next work request could not be posted or an
     * unconfirmed iWARP write was flushed: {@code EIO}).
     */
    int step(int slot, int status, SendChain chain, LocalBuffers buffers, ContextOps ops) {
        int flush = writeFlush[slot];
        writeFlush[slot] = 0;
        if (flush == 1 && status == VerbsConstants.IBV_WC_SUCCESS) {
            if (!confirms.needsConfirmRead(slot, seq[slot])) {
                writeFlush[slot] = 3; // reads of data in flight: a later one confirms it, or its flush read once they drained
                return CONTINUED;
            }
            stageFlushRead(slot, chain, buffers);
            if (chain.post(ops) == 0) {
                return CONTINUED;
            }
            writeFlush[slot] = 0;
            confirms.confirmed();
            return POST_FAILED;
        }
        if (flush == 2) {
            confirms.confirmed();
        }
        if (flush == 3) {
            confirms.drop(slot); // swept before a read confirmed it: not known to be placed
            return POST_FAILED + VerbsConstants.IBV_WC_WR_FLUSH_ERR;
        }
        if (flush == 2 && status == VerbsConstants.IBV_WC_WR_FLUSH_ERR) {
            // the connection ended before the target answered: the write is not known to be
            // placed (a refused key or range ends an iWARP connection this way)
            return POST_FAILED + VerbsConstants.IBV_WC_WR_FLUSH_ERR;
        }
        if (status != VerbsConstants.IBV_WC_SUCCESS || kind[slot] != K_SWAP) {
            return status;
        }
        // the swap: the bounce slot holds the target's value before the read or CAS just done
        long seen = buffers.bounceView().getLong((int) (buffers.bounceAddress(slot) - buffers.bounceAddress(0)));
        if (swapPhase[slot] == 2 && seen == swapSeen[slot]) {
            return status; // the swap hit: the bounce slot holds the old value, the result
        }
        swapSeen[slot] = seen;
        swapPhase[slot] = 2;
        int wr = chain.stage(slot, VerbsConstants.IBV_WR_ATOMIC_CMP_AND_SWP, VerbsConstants.IBV_SEND_SIGNALED, 0,
                remoteAddr[slot], rkey[slot], seen, swapNew[slot]);
        chain.sge(wr, buffers.bounceAddress(slot), 8, buffers.bounceLkey());
        return chain.post(ops) == 0 ? CONTINUED : POST_FAILED;
    }

    /** Stages {@code slot}'s flush read: zero bytes of its target into its bounce slot (iWARP reads take one SGE). */
    private void stageFlushRead(int slot, SendChain chain, LocalBuffers buffers) {
        writeFlush[slot] = 2;
        confirms.sent();
        int wr = chain.stage(slot, VerbsConstants.IBV_WR_RDMA_READ, VerbsConstants.IBV_SEND_SIGNALED, 0,
                remoteAddr[slot], rkey[slot], 0, 0);
        chain.sge(wr, buffers.bounceAddress(slot), 0, buffers.bounceLkey());
    }

    /** Whether a read of data must answer {@code -EAGAIN} now (iWARP: flush reads in flight, {@link WriteConfirms}). */
    boolean readMustWait(int kindAndOp) {
        return confirmWrites && (kindAndOp & 0xFF) == K_READ && confirms.readMustWait();
    }

    /**
     * {@code slot} completed successfully: when it is a read of data, the writes that rode on
     * it, in order, into {@code scratch} (a slot-sized array) for the caller to complete before
     * it (iWARP, {@link WriteConfirms}); how many.
     */
    int takeRiders(int slot, int[] scratch) {
        if (!confirmWrites || kind[slot] != K_READ) {
            return 0;
        }
        int n = confirms.takeRiders(slot, scratch);
        for (int i = 0; i < n; i++) {
            writeFlush[scratch[i]] = 0;
        }
        return n;
    }

    /** Whether riders wait for flush reads and may have them now (no read of data in flight). */
    boolean flushReadsDue() {
        return confirms.due();
    }

    /** Stages the flush reads of the riders left ({@code scratch}: a slot-sized array); how many. The caller posts. */
    int stageDueFlushReads(SendChain chain, LocalBuffers buffers, int[] scratch) {
        int n = confirms.drain(scratch);
        for (int i = 0; i < n; i++) {
            stageFlushRead(scratch[i], chain, buffers);
        }
        return n;
    }

    /** {@code slot} is free again: it no longer counts as a read of data or a flush read in flight. */
    void released(int slot) {
        confirms.released(slot);
        if (writeFlush[slot] == 2) {
            confirms.confirmed(); // failed with its flush read refused by the device
        } else if (writeFlush[slot] == 3) {
            confirms.drop(slot);
        }
        writeFlush[slot] = 0;
    }

    /** The counter of {@code kind} (fi_cntr(3): FI_SEND, FI_READ for reads and fetches, else FI_WRITE). */
    static UtilCounter counter(int kind, UtilCounter send, UtilCounter read, UtilCounter write) {
        switch (kind) {
            case K_SEND:
                return send;
            case K_READ:
            case K_FETCH:
                return read;
            default:
                return write;
        }
    }

    /**
     * {@code FI_RX_CQ_DATA} (fi_getinfo(3)): a peer's write with data consumed a posted receive,
     * so the data completes it ({@code FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA}, its
     * context, {@code len} 0, nothing placed in its buffer); never dropped, also when the
     * receive asked for no completion (its reserved room is given back and the entry is
     * written as an unsolicited one, R6).
     */
    static void completeRemoteWrite(UtilCompletionQueue rxCq, Object ctx, boolean report, long data, long src) {
        long flags = Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA;
        if (report) {
            rxCq.complete(ctx, flags, 0, null, 0, data, 0, src);
        } else {
            rxCq.unreserve();
            rxCq.completeUnsolicited(ctx, flags, 0, null, 0, data, 0, src);
        }
    }

    /**
     * The RDMA read and atomic depths of a connection ({@code rdma_conn_param}): responder
     * resources and initiator depth up to the port's {@code max_qp_rd_atom} (at most 16). A
     * non-zero responder depth is also what makes rdma_cm give the queue pair remote read and
     * atomic access ({@code IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC} beside
     * {@code REMOTE_WRITE}), so without it every peer's read or atomic fails with a remote
     * access error.
     */
    static void readDepth(ByteBuffer connParam, ActivePort port) {
        int depth = Math.max(1, Math.min(16, port.maxRdAtomic()));
        connParam.put(RdmaConnParamDescriptor.RESPONDER_RESOURCES, (byte) depth);
        connParam.put(RdmaConnParamDescriptor.INITIATOR_DEPTH, (byte) depth);
    }
}
