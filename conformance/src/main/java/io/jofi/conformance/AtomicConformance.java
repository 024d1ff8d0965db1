package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Domain;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Atomics (fi_atomic(3)): on 64-bit integers FI_ATOMIC_WRITE / FI_ATOMIC_READ, FI_SUM with
 * and without fetch, FI_CSWAP that swaps only on a match, flags in the completions, and a
 * wrong key as an error completion; and the table of every (datatype, op, kind of call) triple
 * through the typed buffer forms, each checked against {@link AtomicDefinitions} when the
 * domain's {@code queryAtomic} serves it, and refused by the call when it does not. Values are
 * read back only through fetching atomics; result buffers and target memory hold values in the
 * platform's byte order (libfabric's host order).
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

    private static final long[] KINDS = {0, Fi.FI_FETCH_ATOMIC, Fi.FI_COMPARE_ATOMIC};

    /**
     * Every (datatype, op, kind) triple: what {@code queryAtomic} serves computes what the manual
     * page defines (two elements where the bound allows, else one; the old elements fetched);
     * what it refuses, the call refuses alike with nothing applied; a pair the manual page does
     * not define is never served. The target is memory from {@code Domain.allocateBuffer}
     * (shm: a peer's one-sided path) and, in {@link #typedAtomicTableOnPlainMemory}, a plain
     * direct buffer (shm: the target's progress).
     */
    @Test
    void typedAtomicTable() throws FabricException {
        table(fx.domain().allocateBuffer(64).order(ByteOrder.nativeOrder()));
    }

    @Test
    void typedAtomicTableOnPlainMemory() throws FabricException {
        table(ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder()));
    }

    /**
     * A served pair with a count of 0, a count above {@code queryAtomic}'s bound, or an operand
     * or result buffer shorter than the count's elements is {@code -EINVAL}, nothing posted; the
     * endpoint goes on. (A provider that serves no typed pair is not asked.)
     */
    @Test
    void typedAtomicBadCountOrShortBufferIsEinval() throws FabricException {
        EndpointPair p = atomicPair();
        int bound = queryDomain(p).queryAtomic(Fi.FI_INT8, Fi.FI_SUM, Fi.FI_FETCH_ATOMIC);
        org.junit.jupiter.api.Assumptions.assumeTrue(bound > 0, "no typed atomics served");
        store(p, 0x0102030405060708L);
        PeerSide a = p.a();
        ByteBuffer big = ByteBuffer.allocateDirect(bound + 16);
        ByteBuffer result = ByteBuffer.allocateDirect(bound + 16);
        long at = mr.address() + 8;
        assertEquals(-Errno.EINVAL, a.ep().fetchAtomic(big, 0, null, result, null, a.peer(), at, mr.key(), Fi.FI_INT8,
                Fi.FI_SUM, "zero"), "count 0");
        assertEquals(-Errno.EINVAL, a.ep().fetchAtomic(big, bound + 1, null, result, null, a.peer(), at, mr.key(),
                Fi.FI_INT8, Fi.FI_SUM, "above"), "count above the bound " + bound);
        ByteBuffer one = ByteBuffer.allocateDirect(1);
        int n = Math.min(bound, 2);
        if (n == 2) {
            assertEquals(-Errno.EINVAL, a.ep().fetchAtomic(one, 2, null, result, null, a.peer(), at, mr.key(),
                    Fi.FI_INT8, Fi.FI_SUM, "short operand"), "an operand buffer of 1 byte for 2 elements");
            assertEquals(-Errno.EINVAL, a.ep().fetchAtomic(big, 2, null, one, null, a.peer(), at, mr.key(),
                    Fi.FI_INT8, Fi.FI_SUM, "short result"), "a result buffer of 1 byte for 2 elements");
        }
        assertEquals(0x0102030405060708L, fetch(p, 0, Fi.FI_ATOMIC_READ, "FI_ATOMIC_READ after the refused ones"),
                "nothing was applied and the endpoint still works");
    }

    private void table(ByteBuffer target) throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(ATOMIC_CAPS));
        MemoryRegion tmr = fx.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, "typed-target");
        Domain query = queryDomain(p);
        for (int dt = Fi.FI_INT8; dt <= Fi.FI_UINT128; dt++) {
            for (int op = Fi.FI_MIN; op < Fi.FI_ATOMIC_OP_LAST; op++) {
                for (long kind : KINDS) {
                    triple(p, query, target, tmr, dt, op, kind);
                }
            }
        }
    }

    /**
     * The domain whose {@code queryAtomic} answers for the pair's endpoints: one opened with the
     * Info they were opened with. The kit's domain comes from the provider's first Info; where
     * that is MSG and the pair RDM (verbs on a device without atomics: its MSG Infos lack
     * {@code FI_ATOMIC}, so the pair is rxm's), the kit's domain answers for MSG endpoints.
     */
    private Domain queryDomain(EndpointPair p) throws FabricException {
        Info info = p.a().info();
        if (info.epAttr().type() == fx.domainInfo().epAttr().type()) {
            return fx.domain();
        }
        // the pair's own provider (a layered one, e.g. verbs;ofi_rxm, has a fabric of its own)
        return fx.track(fx.track(fx.fabrics().fabric(info.fabricAttr(), "atomic-query-fabric"))
                .domain(info, "atomic-query-domain"));
    }

    /** One triple: served and right, or refused alike by query and call. */
    private void triple(EndpointPair p, Domain query, ByteBuffer target, MemoryRegion tmr, int dt, int op,
                        long kind) throws FabricException {
        String what = "datatype " + dt + " op " + op + " kind " + Caps.names(kind);
        int bound = query.queryAtomic(dt, op, kind);
        int size = AtomicDefinitions.size(dt);
        boolean kindFits = kind == Fi.FI_COMPARE_ATOMIC ? op >= Fi.FI_CSWAP && op <= Fi.FI_MSWAP
                : op < Fi.FI_CSWAP && (op != Fi.FI_ATOMIC_READ || kind == Fi.FI_FETCH_ATOMIC);
        if (bound > 0 && (size == 0 || !kindFits || !AtomicDefinitions.defined(dt, op))) {
            fail(what + ": served (bound " + bound + ") but fi_atomic(3) defines no such operation");
        }
        int n = bound > 0 ? Math.min(bound, 2) : 1;
        int bytes = Math.max(size, 1) * n;
        ByteBuffer buf = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        ByteBuffer cmp = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        ByteBuffer before = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        ByteBuffer result = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        if (size > 0) {
            AtomicDefinitions.samples(dt, before, buf, cmp);
        } else {
            for (int i = 0; i < 32; i++) {
                before.put(i, (byte) (0x40 + i));
            }
        }
        for (int i = 0; i < 32; i++) {
            target.put(8 + i, before.get(i));
        }
        buf.limit(bytes);
        cmp.limit(bytes);
        result.limit(bytes);
        long addr = tmr.address() + 8;
        Object ctx = new Object();
        int rc = call(p, kind, buf, n, cmp, result, addr, tmr.key(), dt, op, ctx);
        if (bound <= 0) {
            assertEquals(bound == 0 ? -Errno.EOPNOTSUPP : bound, rc, what + ": refused by queryAtomic, so by the call");
            assertTarget(target, 8, before, 32, dt, what + " (refused: nothing applied)");
            return;
        }
        if (rc == -Errno.EAGAIN) {
            post(() -> call(p, kind, buf, n, cmp, result, addr, tmr.key(), dt, op, ctx), what);
        } else if (rc != 0) {
            fail(what + ": served by queryAtomic (bound " + bound + ") but the call returned " + rc + " ("
                    + Errno.strerror(-rc) + ")");
        }
        CqEntry c = txCompletion(p.a(), what);
        assertSame(ctx, c.context(), "context of " + what);
        assertFlags(Fi.FI_ATOMIC | (kind == 0 ? Fi.FI_WRITE : Fi.FI_READ), c.flags(), what);
        if (kind != 0) {
            assertTarget(result, 0, before, bytes, dt, what + ": the old elements fetched");
        }
        ByteBuffer expected = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 32; i++) {
            expected.put(i, before.get(i));
        }
        AtomicDefinitions.apply(dt, op, expected, buf, cmp, n);
        ByteBuffer now = readBack(p, tmr, dt, n, bytes);
        assertTarget(now, 0, expected, bytes, dt, what + ": the target after the operation");
        for (int i = bytes; i < 32; i++) {
            assertEquals(before.get(i), target.get(8 + i), what + ": byte " + i + " after the elements is untouched");
        }
    }

    private static int call(EndpointPair p, long kind, ByteBuffer buf, int n, ByteBuffer cmp, ByteBuffer result,
                            long addr, long key, int dt, int op, Object ctx) {
        PeerSide a = p.a();
        if (kind == 0) {
            return a.ep().atomic(buf, n, null, a.peer(), addr, key, dt, op, ctx);
        }
        if (kind == Fi.FI_FETCH_ATOMIC) {
            return a.ep().fetchAtomic(buf, n, null, result, null, a.peer(), addr, key, dt, op, ctx);
        }
        return a.ep().compareAtomic(buf, n, null, cmp, null, result, null, a.peer(), addr, key, dt, op, ctx);
    }

    /** The target's elements through a fetching FI_ATOMIC_READ of the same datatype and count. */
    private ByteBuffer readBack(EndpointPair p, MemoryRegion tmr, int dt, int n, int bytes) throws FabricException {
        ByteBuffer out = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        out.limit(bytes);
        Object ctx = new Object();
        post(() -> p.a().ep().fetchAtomic(null, n, null, out, null, p.a().peer(), tmr.address() + 8, tmr.key(), dt,
                Fi.FI_ATOMIC_READ, ctx), "FI_ATOMIC_READ of datatype " + dt);
        txCompletion(p.a(), "FI_ATOMIC_READ of datatype " + dt);
        return out;
    }

    /** {@code actual[base, base + bytes)} equals {@code expected[0, bytes)}, a float or double as a value (NaN equal to NaN). */
    private static void assertTarget(ByteBuffer actual, int base, ByteBuffer expected, int bytes, int dt, String what) {
        boolean floats = dt == Fi.FI_FLOAT || dt == Fi.FI_FLOAT_COMPLEX;
        boolean doubles = dt == Fi.FI_DOUBLE || dt == Fi.FI_DOUBLE_COMPLEX;
        for (int i = 0; i < bytes; i += floats ? 4 : doubles ? 8 : 1) {
            boolean same = floats ? Float.compare(actual.getFloat(base + i), expected.getFloat(i)) == 0
                    : doubles ? Double.compare(actual.getDouble(base + i), expected.getDouble(i)) == 0
                    : actual.get(base + i) == expected.get(i);
            if (!same) {
                fail(what + ": at byte " + i + " " + show(actual, base + i, dt) + ", expected " + show(expected, i, dt));
            }
        }
    }

    private static String show(ByteBuffer b, int i, int dt) {
        return switch (dt) {
            case Fi.FI_FLOAT, Fi.FI_FLOAT_COMPLEX -> Float.toString(b.getFloat(i));
            case Fi.FI_DOUBLE, Fi.FI_DOUBLE_COMPLEX -> Double.toString(b.getDouble(i));
            default -> "0x" + Integer.toHexString(b.get(i) & 0xff);
        };
    }
}
