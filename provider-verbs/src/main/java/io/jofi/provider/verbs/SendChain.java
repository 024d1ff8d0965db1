package io.jofi.provider.verbs;

import com.sun.jna.Pointer;
import io.jofi.provider.verbs.binding.ContextOps;
import io.jofi.provider.verbs.binding.IbvSendWrDescriptor;
import io.jofi.provider.verbs.binding.IbvSgeDescriptor;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.VerbsConstants;
import java.nio.ByteBuffer;

/**
 * Send-queue work requests staged in preallocated native memory ({@link IbvSendWrDescriptor},
 * {@link IbvSgeDescriptor}) and posted as one chain with one call of the context's
 * {@code post_send} ({@link ContextOps}: the inline {@code ibv_post_send} of verbs.h). The
 * device copies work requests when they are posted, so the staging area is reused at once:
 * nothing is allocated per operation.
 *
 * <p>{@code FI_MORE} stages without posting; the next operation without it posts the whole
 * chain. Not thread-safe: the endpoint's lock serialises it.
 */
final class SendChain implements AutoCloseable {
    private final int maxChain;
    private final int maxSge;
    private final NativeBlock wrs;
    private final NativeBlock sges;
    private final NativeBlock badWr;
    private final ByteBuffer w;
    private final ByteBuffer s;
    private final Object[] postArgs;
    private int staged;
    /** Set by {@link #close()}: every later use throws instead of writing freed memory. */
    private boolean closed;
    private int failed = -1;
    private long qp;

    /**
     * @param maxChain work requests one chain holds (staging beyond it posts first)
     * @param maxSge   SGEs per work request
     */
    SendChain(int maxChain, int maxSge) {
        this.maxChain = maxChain;
        this.maxSge = maxSge;
        this.wrs = new NativeBlock((long) maxChain * IbvSendWrDescriptor.SIZE);
        this.sges = new NativeBlock((long) maxChain * maxSge * IbvSgeDescriptor.SIZE);
        this.badWr = new NativeBlock(8);
        this.w = wrs.view();
        this.s = sges.view();
        this.postArgs = new Object[] {null, wrs.pointer(), badWr.pointer()};
    }

    /** Binds the chain to a queue pair ({@code struct ibv_qp *}); once, before the first post. */
    void queuePair(long qp) {
        ensureOpen();
        this.qp = qp;
        postArgs[0] = new Pointer(qp);
    }

    /** Work requests staged and not yet posted. */
    int staged() {
        return staged;
    }

    /** Whether another work request fits before a post is needed. */
    boolean full() {
        return staged == maxChain;
    }

    /**
     * Stages one work request (its SGEs follow with {@link #sge}); returns its index in the chain.
     *
     * @param remoteAddr RDMA/atomic target address (0 for sends)
     * @param rkey       the target region's key (0 for sends)
     * @param compareAdd atomic compare value or addend
     * @param swap       atomic swap value
     */
    int stage(long wrId, int opcode, int sendFlags, int immData, long remoteAddr, int rkey, long compareAdd,
              long swap) {
        ensureOpen();
        int i = staged++;
        int at = i * IbvSendWrDescriptor.SIZE;
        w.putLong(at + IbvSendWrDescriptor.WR_ID, wrId);
        w.putLong(at + IbvSendWrDescriptor.NEXT, 0L);
        w.putLong(at + IbvSendWrDescriptor.SG_LIST, sges.address(i * maxSge * IbvSgeDescriptor.SIZE));
        w.putInt(at + IbvSendWrDescriptor.NUM_SGE, 0);
        w.putInt(at + IbvSendWrDescriptor.OPCODE, opcode);
        w.putInt(at + IbvSendWrDescriptor.SEND_FLAGS, sendFlags);
        w.putInt(at + IbvSendWrDescriptor.IMM_DATA, immData);
        // wr.rdma and wr.atomic share their first field (remote_addr); atomic's rkey is further on
        w.putLong(at + IbvSendWrDescriptor.WR_ATOMIC_REMOTE_ADDR, remoteAddr);
        w.putLong(at + IbvSendWrDescriptor.WR_ATOMIC_COMPARE_ADD, compareAdd);
        w.putLong(at + IbvSendWrDescriptor.WR_ATOMIC_SWAP, swap);
        w.putInt(at + IbvSendWrDescriptor.WR_ATOMIC_RKEY, rkey);
        // for RDMA opcodes wr.rdma.rkey overlays wr.atomic.compare_add's low half: set it last
        if (opcode != VerbsConstants.IBV_WR_ATOMIC_CMP_AND_SWP
                && opcode != VerbsConstants.IBV_WR_ATOMIC_FETCH_AND_ADD) {
            w.putInt(at + IbvSendWrDescriptor.WR_RDMA_RKEY, rkey);
        }
        if (i > 0) {
            w.putLong((i - 1) * IbvSendWrDescriptor.SIZE + IbvSendWrDescriptor.NEXT, wrs.address(at));
        }
        return i;
    }

    /** Adds an SGE to work request {@code wr} (at most {@code maxSge}). */
    void sge(int wr, long addr, int length, int lkey) {
        ensureOpen();
        int wat = wr * IbvSendWrDescriptor.SIZE;
        int n = w.getInt(wat + IbvSendWrDescriptor.NUM_SGE);
        if (n == maxSge) {
            throw new IllegalStateException("work request " + wr + " has " + maxSge + " SGEs already");
        }
        int at = (wr * maxSge + n) * IbvSgeDescriptor.SIZE;
        s.putLong(at + IbvSgeDescriptor.ADDR, addr);
        s.putInt(at + IbvSgeDescriptor.LENGTH, length);
        s.putInt(at + IbvSgeDescriptor.LKEY, lkey);
        w.putInt(wat + IbvSendWrDescriptor.NUM_SGE, n + 1);
    }

    /** Drops the last staged work request (its post was refused before posting). */
    void unstage() {
        ensureOpen();
        if (staged > 0) {
            staged--;
            if (staged > 0) {
                w.putLong((staged - 1) * IbvSendWrDescriptor.SIZE + IbvSendWrDescriptor.NEXT, 0L);
            }
        }
    }

    /**
     * Posts the staged chain with {@code post_send}.
     *
     * @return 0, or the positive errno {@code post_send} returned (then the work requests from
     *         {@link #failedIndex()} on were not posted)
     */
    int post(ContextOps ops) {
        ensureOpen();
        if (staged == 0) {
            return 0;
        }
        int rc = ops.postSend(postArgs, qp, wrs.address(), badWr.address());
        if (rc != 0) {
            failed = (int) ((badWr.view().getLong(0) - wrs.address()) / IbvSendWrDescriptor.SIZE);
            if (failed < 0 || failed >= staged) {
                failed = 0;
            }
        } else {
            failed = -1;
        }
        staged = 0;
        return rc;
    }

    /** After a failed {@link #post}: the index of the first work request not posted. */
    int failedIndex() {
        return failed;
    }

    /** The wr_id staged at {@code index} (valid until the next {@link #stage} at that index). */
    long wrId(int index) {
        ensureOpen();
        return w.getLong(index * IbvSendWrDescriptor.SIZE + IbvSendWrDescriptor.WR_ID);
    }

    /** The native memory, for tests that read the staged layout. */
    NativeBlock workRequests() {
        return wrs;
    }

    /** The SGE memory, for tests. */
    NativeBlock scatterGather() {
        return sges;
    }

    /**
     * Frees the staging memory. Idempotent. The owner must have excluded every use first (the
     * endpoint closes its chains under its monitor, after its state says closed, so no post is in
     * flight); a use afterwards throws {@link IllegalStateException} rather than writing freed
     * memory.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        wrs.close();
        sges.close();
        badWr.close();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the send chain is closed (its endpoint was torn down)");
        }
    }
}
