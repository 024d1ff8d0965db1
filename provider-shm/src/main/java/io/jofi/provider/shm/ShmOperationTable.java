package io.jofi.provider.shm;

import java.util.Arrays;

/**
 * Holds the endpoint's outgoing operations ({@link ShmOutboundOp}) and finds one again by the
 * token a peer's answer echoes: a table of pooled descriptors, each with a fixed index (the
 * token's low 32 bits) and a generation bumped on every reuse (its high bits), so that a late
 * answer to a former use is not taken for the current one.
 *
 * <p>The table doubles when no descriptor is free and never shrinks: after warm-up nothing is
 * allocated per operation. Guarded by the endpoint's lock.
 */
final class ShmOperationTable {
    private ShmOutboundOp[] ops = new ShmOutboundOp[0];
    private int[] free = new int[0];
    private int freeCount;

    /** Every descriptor, free ones included ({@code kind == 0}); replaced, never changed, when the table grows. */
    ShmOutboundOp[] all() {
        return ops;
    }

    /** A free descriptor with a fresh token (the table doubles when none is free). */
    ShmOutboundOp take() {
        if (freeCount == 0) {
            int n = ops.length;
            int grown = Math.max(64, n * 2);
            ops = Arrays.copyOf(ops, grown);
            free = Arrays.copyOf(free, grown);
            for (int i = grown - 1; i >= n; i--) {
                ops[i] = new ShmOutboundOp(i);
                free[freeCount++] = i;
            }
        }
        ShmOutboundOp op = ops[free[--freeCount]];
        op.inUse = true;
        op.token = ((long) (op.generation & 0x7FFFFFFF) << 32) | op.index;
        return op;
    }

    /**
     * Resets {@code op} (its generation moves on) and frees its index — once: a descriptor that
     * is free already is left alone (a second release would put its index on the free list
     * twice, and two later operations would share it, or the list would overflow).
     *
     * @return false when {@code op} was free already (nothing changed)
     */
    boolean release(ShmOutboundOp op) {
        if (!op.inUse) {
            return false;
        }
        op.inUse = false;
        op.reset();
        free[freeCount++] = op.index;
        return true;
    }

    /** The descriptor at a token's index, or null when the index is outside the table (a peer's bad token). */
    ShmOutboundOp at(long token) {
        int index = (int) (token & 0xFFFFFFFFL);
        return index < 0 || index >= ops.length ? null : ops[index];
    }

    /** Descriptors created so far (tests prove the table stops growing in steady state). */
    int created() {
        return ops.length;
    }
}
