package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.Fi;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every op of {@link Atomics} on every kind of target word, against ofi_atomic.c's int64 definitions. */
class AtomicsTest {

    /** The kinds of target a provider hands in: each takes a different path of {@link Atomics#apply}. */
    enum Target {
        DIRECT_ALIGNED, DIRECT_MISALIGNED, HEAP, HEAP_ODD_INDEX, DIRECT_BIG_ENDIAN_VIEW;

        /** A buffer and the index of its target word, the word holding {@code value} in host order. */
        ByteBuffer make(long value) {
            ByteBuffer b = switch (this) {
                case DIRECT_ALIGNED, DIRECT_MISALIGNED -> ByteBuffer.allocateDirect(32);
                case HEAP, HEAP_ODD_INDEX -> ByteBuffer.allocate(32);
                case DIRECT_BIG_ENDIAN_VIEW -> ByteBuffer.allocateDirect(32).order(ByteOrder.BIG_ENDIAN);
            };
            b.order(this == DIRECT_BIG_ENDIAN_VIEW ? ByteOrder.BIG_ENDIAN : ByteOrder.nativeOrder());
            put(b, index(b), value);
            return b;
        }

        int index(ByteBuffer b) {
            return switch (this) {
                case DIRECT_ALIGNED, DIRECT_BIG_ENDIAN_VIEW -> 8 - b.alignmentOffset(0, 8) & 7;
                case DIRECT_MISALIGNED -> (8 - b.alignmentOffset(0, 8) & 7) + 3;
                case HEAP -> 8;
                case HEAP_ODD_INDEX -> 5;
            };
        }
    }

    /** The host-order word at {@code i}, whatever the buffer's own order. */
    static long get(ByteBuffer b, int i) {
        long v = b.getLong(i);
        return b.order() == ByteOrder.nativeOrder() ? v : Long.reverseBytes(v);
    }

    static void put(ByteBuffer b, int i, long v) {
        b.putLong(i, b.order() == ByteOrder.nativeOrder() ? v : Long.reverseBytes(v));
    }

    /** Applies {@code op} and checks the returned old value, the new word and that its neighbours are untouched. */
    private static void check(Target t, int op, long before, long operand, long compare, long after) {
        ByteBuffer b = t.make(before);
        int i = t.index(b);
        byte[] neighbours = new byte[32];
        ByteBuffer copy = b.duplicate().clear();
        copy.get(neighbours);
        int position = b.position();
        long old = Atomics.apply(b, i, op, operand, compare);
        String what = t + " op " + op + " on " + before + " with " + operand + "/" + compare;
        assertEquals(before, old, what + ": the old value");
        assertEquals(after, get(b, i), what + ": the new value");
        assertEquals(position, b.position(), what + ": the position");
        for (int k = 0; k < 32; k++) {
            if (k < i || k >= i + 8) {
                assertEquals(neighbours[k], b.get(k), what + ": byte " + k + " outside the word");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void sumWrapsOnOverflow(Target t) {
        check(t, Fi.FI_SUM, 5, 7, 0, 12);
        check(t, Fi.FI_SUM, 5, -7, 0, -2);
        check(t, Fi.FI_SUM, Long.MAX_VALUE, 1, 0, Long.MIN_VALUE);
        check(t, Fi.FI_SUM, Long.MIN_VALUE, -1, 0, Long.MAX_VALUE);
        check(t, Fi.FI_SUM, -1, 1, 0, 0);
        check(t, Fi.FI_SUM, 0x00000000_FFFFFFFFL, 1, 0, 0x00000001_00000000L); // a carry across the halves
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void minAndMaxCompareSigned(Target t) {
        check(t, Fi.FI_MIN, 5, 3, 0, 3);
        check(t, Fi.FI_MIN, 3, 5, 0, 3);
        check(t, Fi.FI_MIN, 3, 3, 0, 3);
        check(t, Fi.FI_MIN, 1, -1, 0, -1); // signed: -1 is not 0xFFFF_FFFF_FFFF_FFFF unsigned
        check(t, Fi.FI_MIN, Long.MIN_VALUE, Long.MAX_VALUE, 0, Long.MIN_VALUE);
        check(t, Fi.FI_MIN, Long.MAX_VALUE, Long.MIN_VALUE, 0, Long.MIN_VALUE);
        check(t, Fi.FI_MAX, 5, 3, 0, 5);
        check(t, Fi.FI_MAX, 3, 5, 0, 5);
        check(t, Fi.FI_MAX, 3, 3, 0, 3);
        check(t, Fi.FI_MAX, -1, 1, 0, 1);
        check(t, Fi.FI_MAX, Long.MIN_VALUE, Long.MAX_VALUE, 0, Long.MAX_VALUE);
        check(t, Fi.FI_MAX, 0, Long.MIN_VALUE, 0, 0);
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void bitwiseOps(Target t) {
        long a = 0xF0F0_1234_0000_FFFFL;
        long m = 0x0FF0_FF00_8000_00F0L;
        check(t, Fi.FI_BOR, a, m, 0, a | m);
        check(t, Fi.FI_BAND, a, m, 0, a & m);
        check(t, Fi.FI_BXOR, a, m, 0, a ^ m);
        check(t, Fi.FI_BXOR, a, a, 0, 0);
        check(t, Fi.FI_BAND, a, 0, 0, 0);
        check(t, Fi.FI_BOR, a, -1, 0, -1);
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void readAndWrite(Target t) {
        check(t, Fi.FI_ATOMIC_READ, 0x0102_0304_0506_0708L, 99, 98, 0x0102_0304_0506_0708L);
        check(t, Fi.FI_ATOMIC_WRITE, 0x0102_0304_0506_0708L, -5, 98, -5);
        check(t, Fi.FI_ATOMIC_WRITE, 7, 7, 0, 7);
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void compareAndSwapSwapsOnlyOnEquality(Target t) {
        check(t, Fi.FI_CSWAP, 10, 20, 10, 20); // hit
        check(t, Fi.FI_CSWAP, 10, 20, 11, 10); // miss: unchanged, the old value still returned
        check(t, Fi.FI_CSWAP, Long.MIN_VALUE, 0, Long.MIN_VALUE, 0);
        check(t, Fi.FI_CSWAP, -1, 1, 0xFFFF_FFFFL, -1); // all 64 bits compared, not the low half
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void anUnsupportedOpChangesNothing(Target t) {
        for (int op : new int[] {Fi.FI_PROD, Fi.FI_LOR, Fi.FI_LXOR, Fi.FI_CSWAP_NE, Fi.FI_CSWAP_GT, Fi.FI_MSWAP, -1, 99}) {
            check(t, op, 42, 1, 42, 42);
        }
    }

    @Test
    void supportedIsTheTable() {
        for (int op = -2; op <= 40; op++) {
            boolean want = op == Fi.FI_MIN || op == Fi.FI_MAX || op == Fi.FI_SUM || op == Fi.FI_BOR
                    || op == Fi.FI_BAND || op == Fi.FI_BXOR || op == Fi.FI_ATOMIC_READ || op == Fi.FI_ATOMIC_WRITE
                    || op == Fi.FI_CSWAP;
            assertEquals(want, Atomics.supported(op), "op " + op);
        }
    }

    @Test
    void accessIsReadForReadsWriteForTheRestAndReadTooWhenFetching() {
        assertEquals(Fi.FI_REMOTE_READ, Atomics.access(Fi.FI_ATOMIC_READ, true));
        assertEquals(Fi.FI_REMOTE_READ, Atomics.access(Fi.FI_ATOMIC_READ, false));
        for (int op : new int[] {Fi.FI_MIN, Fi.FI_MAX, Fi.FI_SUM, Fi.FI_BOR, Fi.FI_BAND, Fi.FI_BXOR,
                Fi.FI_ATOMIC_WRITE, Fi.FI_CSWAP}) {
            assertEquals(Fi.FI_REMOTE_WRITE, Atomics.access(op, false), "op " + op);
            assertEquals(Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_READ, Atomics.access(op, true), "op " + op);
        }
    }

    @Test
    void aReadOfAReadOnlyBufferWritesNothing() {
        for (ByteBuffer rw : new ByteBuffer[] {ByteBuffer.allocateDirect(16), ByteBuffer.allocate(16)}) {
            rw.order(ByteOrder.nativeOrder()).putLong(0, 77);
            ByteBuffer ro = rw.asReadOnlyBuffer();
            assertEquals(77, Atomics.apply(ro, 0, Fi.FI_ATOMIC_READ, 1, 2));
            assertEquals(77, Atomics.apply(ro, 0, Fi.FI_MIN, 100, 0)); // no change: no write attempted
            assertEquals(77, Atomics.apply(ro, 0, Fi.FI_CSWAP, 1, 76)); // a miss writes nothing
            assertEquals(77, rw.getLong(0));
        }
    }

    /** Threads racing on one word: no update is lost, on either path (VarHandle atomics, the plain lock). */
    @ParameterizedTest
    @EnumSource(value = Target.class, names = {"DIRECT_ALIGNED", "HEAP", "DIRECT_MISALIGNED"})
    void concurrentUpdatesLoseNothing(Target t) throws Exception {
        ByteBuffer b = t.make(0);
        int i = t.index(b);
        ByteBuffer max = t.make(Long.MIN_VALUE);
        int threads = 4;
        int each = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int n = 0; n < threads; n++) {
            int id = n;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int k = 0; k < each; k++) {
                    Atomics.apply(b, i, Fi.FI_SUM, 1, 0);
                    Atomics.apply(max, i, Fi.FI_MAX, (long) k * threads + id, 0);
                    long seen = Atomics.apply(b, i, Fi.FI_ATOMIC_READ, 0, 0);
                    Atomics.apply(b, i, Fi.FI_CSWAP, seen + 1, seen); // a hit adds one more
                }
            });
            ts.add(th);
            th.start();
        }
        start.countDown();
        for (Thread th : ts) {
            th.join(TimeUnit.SECONDS.toMillis(20));
            assertFalse(th.isAlive(), "a racing thread is stuck");
        }
        long total = get(b, i);
        assertTrue(total >= (long) threads * each && total <= 2L * threads * each, t + ": " + total);
        assertEquals((long) (each - 1) * threads + threads - 1, get(max, i), t + ": the maximum");
    }

    @Test
    void cswapHitsAreCountedExactlyUnderRace() throws Exception {
        // every thread increments by compare-and-swap until it succeeds: the sum is exact
        for (Target t : new Target[] {Target.DIRECT_ALIGNED, Target.HEAP}) {
            ByteBuffer b = t.make(0);
            int i = t.index(b);
            int threads = 4;
            int each = 10_000;
            List<Thread> ts = new ArrayList<>();
            for (int n = 0; n < threads; n++) {
                Thread th = new Thread(() -> {
                    for (int k = 0; k < each; k++) {
                        long cur = Atomics.apply(b, i, Fi.FI_ATOMIC_READ, 0, 0);
                        long old;
                        while ((old = Atomics.apply(b, i, Fi.FI_CSWAP, cur + 1, cur)) != cur) {
                            cur = old;
                        }
                    }
                });
                ts.add(th);
                th.start();
            }
            for (Thread th : ts) {
                th.join(TimeUnit.SECONDS.toMillis(20));
                assertFalse(th.isAlive(), "a racing thread is stuck");
            }
            assertEquals((long) threads * each, get(b, i), t.toString());
        }
    }

    /** The data path allocates nothing: every op on every kind of target, after warm-up. */
    @Test
    void applyAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);
        Target[] kinds = Target.values();
        ByteBuffer[] bufs = new ByteBuffer[kinds.length];
        int[] idx = new int[kinds.length];
        for (int k = 0; k < kinds.length; k++) {
            bufs[k] = kinds[k].make(1);
            idx[k] = kinds[k].index(bufs[k]);
        }
        int[] ops = {Fi.FI_MIN, Fi.FI_MAX, Fi.FI_SUM, Fi.FI_BOR, Fi.FI_BAND, Fi.FI_BXOR, Fi.FI_ATOMIC_READ,
                Fi.FI_ATOMIC_WRITE, Fi.FI_CSWAP, Fi.FI_PROD};
        long sink = 0;
        long tid = Thread.currentThread().getId();
        long allocated = 0;
        for (int round = 0; round < 3; round++) {
            long before = bean.getThreadAllocatedBytes(tid);
            for (int n = 0; n < 20_000; n++) {
                for (int k = 0; k < bufs.length; k++) {
                    for (int op : ops) {
                        sink += Atomics.apply(bufs[k], idx[k], op, n, sink);
                    }
                }
            }
            allocated = bean.getThreadAllocatedBytes(tid) - before;
            if (allocated == 0) {
                break; // the first rounds warm the JIT up
            }
        }
        assertEquals(0, allocated, "bytes allocated by Atomics.apply (sink " + sink + ")");
    }
}
