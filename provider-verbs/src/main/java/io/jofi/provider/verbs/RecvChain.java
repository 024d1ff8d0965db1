package io.jofi.provider.verbs;

import com.sun.jna.Pointer;
import io.jofi.provider.verbs.binding.ContextOps;
import io.jofi.provider.verbs.binding.IbvRecvWrDescriptor;
import io.jofi.provider.verbs.binding.IbvSgeDescriptor;
import io.jofi.provider.verbs.binding.NativeBlock;
import java.nio.ByteBuffer;

/**
 * Receive-queue work requests staged in preallocated native memory
 * ({@link IbvRecvWrDescriptor}, {@link IbvSgeDescriptor}) and posted as one chain with the
 * context's {@code post_recv} ({@link ContextOps}, the inline {@code ibv_post_recv}) on one
 * queue pair. As {@link SendChain}: reused at once, nothing allocated per operation; not
 * thread-safe.
 */
final class RecvChain implements AutoCloseable {
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
    private long qp;

    RecvChain(int maxChain, int maxSge) {
        this.maxChain = maxChain;
        this.maxSge = maxSge;
        this.wrs = new NativeBlock((long) maxChain * IbvRecvWrDescriptor.SIZE);
        this.sges = new NativeBlock((long) maxChain * maxSge * IbvSgeDescriptor.SIZE);
        this.badWr = new NativeBlock(8);
        this.w = wrs.view();
        this.s = sges.view();
        this.postArgs = new Object[] {null, wrs.pointer(), badWr.pointer()};
    }

    /** Binds the chain to a queue pair; once, before the first post. */
    void queuePair(long qp) {
        ensureOpen();
        this.qp = qp;
        postArgs[0] = new Pointer(qp);
    }

    int staged() {
        return staged;
    }

    boolean full() {
        return staged == maxChain;
    }

    /** Stages one receive work request; returns its index in the chain. */
    int stage(long wrId) {
        ensureOpen();
        int i = staged++;
        int at = i * IbvRecvWrDescriptor.SIZE;
        w.putLong(at + IbvRecvWrDescriptor.WR_ID, wrId);
        w.putLong(at + IbvRecvWrDescriptor.NEXT, 0L);
        w.putLong(at + IbvRecvWrDescriptor.SG_LIST, sges.address(i * maxSge * IbvSgeDescriptor.SIZE));
        w.putInt(at + IbvRecvWrDescriptor.NUM_SGE, 0);
        if (i > 0) {
            w.putLong((i - 1) * IbvRecvWrDescriptor.SIZE + IbvRecvWrDescriptor.NEXT, wrs.address(at));
        }
        return i;
    }

    /** Adds an SGE to work request {@code wr}. */
    void sge(int wr, long addr, int length, int lkey) {
        ensureOpen();
        int wat = wr * IbvRecvWrDescriptor.SIZE;
        int n = w.getInt(wat + IbvRecvWrDescriptor.NUM_SGE);
        if (n == maxSge) {
            throw new IllegalStateException("work request " + wr + " has " + maxSge + " SGEs already");
        }
        int at = (wr * maxSge + n) * IbvSgeDescriptor.SIZE;
        s.putLong(at + IbvSgeDescriptor.ADDR, addr);
        s.putInt(at + IbvSgeDescriptor.LENGTH, length);
        s.putInt(at + IbvSgeDescriptor.LKEY, lkey);
        w.putInt(wat + IbvRecvWrDescriptor.NUM_SGE, n + 1);
    }

    /** Drops the last staged work request. */
    void unstage() {
        ensureOpen();
        if (staged > 0) {
            staged--;
            if (staged > 0) {
                w.putLong((staged - 1) * IbvRecvWrDescriptor.SIZE + IbvRecvWrDescriptor.NEXT, 0L);
            }
        }
    }

    /** Posts the staged chain; 0 or the positive errno of {@code post_recv}. */
    int post(ContextOps ops) {
        ensureOpen();
        if (staged == 0) {
            return 0;
        }
        int rc = ops.postRecv(postArgs, qp, wrs.address(), badWr.address());
        staged = 0;
        return rc;
    }

    NativeBlock workRequests() {
        return wrs;
    }

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
            throw new IllegalStateException("the receive chain is closed (its endpoint was torn down)");
        }
    }
}
