package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Atomics (fi_atomic(3)) on 64-bit integers: FI_ATOMIC_WRITE / FI_ATOMIC_READ, FI_SUM with
 * and without fetch, FI_CSWAP that swaps only on a match, flags in the completions, and a
 * wrong key as an error completion. Values are read back only through fetching atomics;
 * result buffers and target memory hold values in the platform's byte order (libfabric's host
 * order).
 */
public abstract class AtomicConformance extends EndpointTest {
    private static final long ATOMIC_CAPS = Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;

    private MemoryRegion mr;

    private EndpointPair atomicPair() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(ATOMIC_CAPS));
        ByteBuffer target = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        mr = fx.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, "atomic-target");
        return p;
    }

    private long fetch(EndpointPair p, long operand, int op, String what) throws FabricException {
        ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        MemoryRegion d = desc(result);
        Object ctx = new Object();
        post(() -> p.a().ep().fetchAtomic(operand, result, d, p.a().peer(), mr.address() + 8, mr.key(), op, ctx), what);
        CqEntry c = txCompletion(p.a(), what);
        assertSame(ctx, c.context(), "context of " + what);
        assertFlags(Fi.FI_ATOMIC | Fi.FI_READ, c.flags(), what);
        return result.getLong(0);
    }

    private void store(EndpointPair p, long value) throws FabricException {
        fetch(p, value, Fi.FI_ATOMIC_WRITE, "FI_ATOMIC_WRITE (fetching) of " + value);
    }

    /** FI_ATOMIC_WRITE then FI_ATOMIC_READ round-trip a 64-bit value; the fetching write returns the old one. */
    @Test
    void atomicWriteAndReadRoundTrip() throws FabricException {
        EndpointPair p = atomicPair();
        store(p, 0x1122334455667788L);
        assertEquals(0x1122334455667788L, fetch(p, 0, Fi.FI_ATOMIC_READ, "FI_ATOMIC_READ"), "the value written");
        assertEquals(0x1122334455667788L, fetch(p, -5L, Fi.FI_ATOMIC_WRITE, "fetching FI_ATOMIC_WRITE"), "the old value");
        assertEquals(-5L, fetch(p, 0, Fi.FI_ATOMIC_READ, "FI_ATOMIC_READ"), "the new value");
    }

    /** FI_SUM without fetch adds (completion flags FI_ATOMIC|FI_WRITE); with fetch it returns the old value. */
    @Test
    void sumAdds() throws FabricException {
        EndpointPair p = atomicPair();
        store(p, 40);
        Object ctx = new Object();
        post(() -> p.a().ep().atomic(2, p.a().peer(), mr.address() + 8, mr.key(), Fi.FI_SUM, ctx), "atomic FI_SUM");
        CqEntry c = txCompletion(p.a(), "the FI_SUM");
        assertSame(ctx, c.context(), "context");
        assertFlags(Fi.FI_ATOMIC | Fi.FI_WRITE, c.flags(), "atomic write completion");
        assertEquals(42, fetch(p, 8, Fi.FI_SUM, "fetching FI_SUM"), "the value before the fetching sum");
        assertEquals(50, fetch(p, 0, Fi.FI_ATOMIC_READ, "FI_ATOMIC_READ"), "after both sums");
    }

    /** FI_CSWAP swaps only when the compare value matches and always returns the old value. */
    @Test
    void compareAndSwapSwapsOnlyOnAMatch() throws FabricException {
        EndpointPair p = atomicPair();
        store(p, 7);
        ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        MemoryRegion d = desc(result);
        post(() -> p.a().ep().compareAtomic(6, 100, result, d, p.a().peer(), mr.address() + 8, mr.key(), "miss"), "cswap miss");
        txCompletion(p.a(), "the missing cswap");
        assertEquals(7, result.getLong(0), "cswap returns the old value");
        assertEquals(7, fetch(p, 0, Fi.FI_ATOMIC_READ, "read"), "no swap on a mismatch");
        post(() -> p.a().ep().compareAtomic(7, 100, result, d, p.a().peer(), mr.address() + 8, mr.key(), "hit"), "cswap hit");
        txCompletion(p.a(), "the matching cswap");
        assertEquals(7, result.getLong(0), "cswap returns the old value");
        assertEquals(100, fetch(p, 0, Fi.FI_ATOMIC_READ, "read"), "swapped on a match");
    }

    /**
     * An operation the provider does not offer (FI_PROD: none does) is {@code -EOPNOTSUPP}
     * (docs/ERRORS.md, as libfabric's util layer answers), fetching or not; nothing is posted
     * and the endpoint goes on.
     */
    @Test
    void anOperationNotOfferedIsEopnotsupp() throws FabricException {
        EndpointPair p = atomicPair();
        store(p, 3);
        assertEquals(-Errno.EOPNOTSUPP, p.a().ep().atomic(5, p.a().peer(), mr.address() + 8, mr.key(), Fi.FI_PROD, "prod"),
                "fi_atomic FI_PROD");
        ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        assertEquals(-Errno.EOPNOTSUPP, p.a().ep().fetchAtomic(5, result, desc(result), p.a().peer(), mr.address() + 8,
                mr.key(), Fi.FI_PROD, "fetch-prod"), "fi_fetch_atomic FI_PROD");
        assertEquals(3, fetch(p, 0, Fi.FI_ATOMIC_READ, "FI_ATOMIC_READ after the refused ones"),
                "nothing was applied and the endpoint still works");
    }

    /**
     * A compare operation ({@code FI_CSWAP} … {@code FI_MSWAP}) is {@code fi_compare_atomic}'s
     * (fi_atomic(3)): through {@code atomic} or {@code fetchAtomic} it is {@code -EOPNOTSUPP} on
     * every provider, nothing is applied (it used to swap against a compare value of 0 on some).
     */
    @Test
    void aCompareOperationOutsideCompareAtomicIsEopnotsupp() throws FabricException {
        EndpointPair p = atomicPair();
        store(p, 0);
        ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        for (int op = Fi.FI_CSWAP; op <= Fi.FI_MSWAP; op++) {
            assertEquals(-Errno.EOPNOTSUPP, p.a().ep().atomic(9, p.a().peer(), mr.address() + 8, mr.key(), op, "cmp"),
                    "fi_atomic op " + op);
            assertEquals(-Errno.EOPNOTSUPP, p.a().ep().fetchAtomic(9, result, desc(result), p.a().peer(),
                    mr.address() + 8, mr.key(), op, "fetch-cmp"), "fi_fetch_atomic op " + op);
        }
        assertEquals(0, fetch(p, 0, Fi.FI_ATOMIC_READ, "FI_ATOMIC_READ after the refused ones"),
                "nothing was swapped and the endpoint still works");
    }

    /** A wrong key fails the atomic with an error completion carrying its context. */
    @Test
    void wrongKeyIsAnErrorCompletion() throws FabricException {
        EndpointPair p = atomicPair();
        Object ctx = new Object();
        post(() -> p.a().ep().atomic(1, p.a().peer(), mr.address() + 8, mr.key() ^ 0x3c3c3c, Fi.FI_SUM, ctx), "atomic with a wrong key");
        CqErrEntry e = txError(p.a(), "the atomic with a wrong key");
        assertSame(ctx, e.context());
        assertTrue(e.err() > 0, "an error code: " + e);
    }
}
