package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.Errno;
import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link AtomicTable}: which pairs fi_atomic(3) defines, and hand-computed results of the
 * pairs where a wrong width, signedness or float rule would show (the full table runs through
 * every provider in the conformance kit's {@code AtomicConformance}).
 */
class AtomicTableTest {
    private static final ByteOrder HOST = ByteOrder.nativeOrder();

    /** A direct buffer of 64 bytes in host order, starting 8-byte aligned at index {@code base()}. */
    private static ByteBuffer direct() {
        return ByteBuffer.allocateDirect(64).order(HOST);
    }

    private static int base(ByteBuffer b) {
        return (8 - b.alignmentOffset(0, 8)) & 7;
    }

    @Test
    void validCountsEveryPairTheManualDefines() {
        int valid = 0;
        for (int dt = Fi.FI_INT8; dt <= Fi.FI_UINT128; dt++) {
            for (int op = Fi.FI_MIN; op < Fi.FI_ATOMIC_OP_LAST; op++) {
                for (long kind : new long[] {0, Fi.FI_FETCH_ATOMIC, Fi.FI_COMPARE_ATOMIC}) {
                    int rc = AtomicTable.valid(dt, op, kind);
                    assertEquals(true, rc == 0 || rc == -Errno.EOPNOTSUPP, "dt " + dt + " op " + op);
                    valid += rc == 0 ? 1 : 0;
                }
            }
        }
        // integers 8 x (11 write + 12 fetch + 7 compare), float/double 2 x (8 + 9 + 6), complex 2 x (6 + 7 + 2)
        assertEquals(8 * 30 + 2 * 23 + 2 * 15, valid);
        assertEquals(-Errno.EOPNOTSUPP, AtomicTable.valid(Fi.FI_FLOAT, Fi.FI_BOR, 0));
        assertEquals(-Errno.EOPNOTSUPP, AtomicTable.valid(Fi.FI_FLOAT_COMPLEX, Fi.FI_MIN, Fi.FI_FETCH_ATOMIC));
        assertEquals(-Errno.EOPNOTSUPP, AtomicTable.valid(Fi.FI_DOUBLE, Fi.FI_MSWAP, Fi.FI_COMPARE_ATOMIC));
        assertEquals(0, AtomicTable.valid(Fi.FI_DOUBLE_COMPLEX, Fi.FI_CSWAP_NE, Fi.FI_COMPARE_ATOMIC));
        assertEquals(-Errno.EOPNOTSUPP, AtomicTable.valid(Fi.FI_LONG_DOUBLE, Fi.FI_SUM, 0));
        assertEquals(-Errno.EOPNOTSUPP, AtomicTable.valid(Fi.FI_INT8, Fi.FI_ATOMIC_READ, 0));
        assertEquals(-Errno.EOPNOTSUPP, AtomicTable.valid(Fi.FI_INT8, Fi.FI_CSWAP, Fi.FI_FETCH_ATOMIC));
        assertEquals(-Errno.EOPNOTSUPP, AtomicTable.valid(Fi.FI_INT8, Fi.FI_SUM, Fi.FI_COMPARE_ATOMIC));
        assertEquals(-Errno.EBADFLAGS, AtomicTable.valid(Fi.FI_INT8, Fi.FI_SUM, Fi.FI_FETCH_ATOMIC | Fi.FI_COMPARE_ATOMIC));
        assertEquals(-Errno.EBADFLAGS, AtomicTable.valid(Fi.FI_INT8, Fi.FI_SUM, Fi.FI_TAGGED));
    }

    @Test
    void integersWrapAndCompareByTheirSignedness() {
        ByteBuffer t = direct();
        ByteBuffer s = direct();
        ByteBuffer r = direct();
        int i = base(t);
        // INT8 SUM: three elements, 127 + 1 wraps to -128, neighbours untouched
        t.put(i, (byte) 127).put(i + 1, (byte) -1).put(i + 2, (byte) 5).put(i + 3, (byte) 0x5a);
        s.put(0, (byte) 1).put(1, (byte) 1).put(2, (byte) -10);
        AtomicTable.apply(Fi.FI_INT8, Fi.FI_SUM, t, i, 3, s, 0, null, 0, r, 0);
        assertEquals(-128, t.get(i));
        assertEquals(0, t.get(i + 1));
        assertEquals(-5, t.get(i + 2));
        assertEquals(0x5a, t.get(i + 3), "the byte after the three elements");
        assertEquals(127, r.get(0));
        assertEquals(-1, r.get(1));
        // UINT32 MAX: 0xffffffff is the largest, not -1
        t.putInt(i + 8, 0xffffffff);
        s.putInt(0, 1);
        AtomicTable.apply(Fi.FI_UINT32, Fi.FI_MAX, t, i + 8, 1, s, 0, null, 0, null, 0);
        assertEquals(0xffffffff, t.getInt(i + 8));
        AtomicTable.apply(Fi.FI_INT32, Fi.FI_MAX, t, i + 8, 1, s, 0, null, 0, null, 0);
        assertEquals(1, t.getInt(i + 8), "signed: -1 < 1");
        // INT16 PROD at an odd (misaligned) index: 300 * 300 = 90000 wraps to 24464
        t.putShort(i + 13, (short) 300);
        s.putShort(0, (short) 300);
        AtomicTable.apply(Fi.FI_INT16, Fi.FI_PROD, t, i + 13, 1, s, 0, null, 0, null, 0);
        assertEquals((short) 24464, t.getShort(i + 13));
        // UINT64 MIN: 2^63 is larger than 1
        t.putLong(i + 16, Long.MIN_VALUE);
        s.putLong(0, 1);
        AtomicTable.apply(Fi.FI_UINT64, Fi.FI_MIN, t, i + 16, 1, s, 0, null, 0, null, 0);
        assertEquals(1, t.getLong(i + 16));
    }

    @Test
    void compareFormsAndMaskedSwap() {
        ByteBuffer t = direct();
        ByteBuffer s = direct();
        ByteBuffer c = direct();
        ByteBuffer r = direct();
        int i = base(t);
        t.putInt(i, 10);
        s.putInt(0, 99);
        c.putInt(0, 10);
        AtomicTable.apply(Fi.FI_INT32, Fi.FI_CSWAP_LT, t, i, 1, s, 0, c, 0, r, 0);
        assertEquals(10, t.getInt(i), "10 < 10 is false: no swap");
        AtomicTable.apply(Fi.FI_INT32, Fi.FI_CSWAP_LE, t, i, 1, s, 0, c, 0, r, 0);
        assertEquals(99, t.getInt(i), "10 <= 10: swapped");
        assertEquals(10, r.getInt(0));
        c.putInt(0, -1);
        AtomicTable.apply(Fi.FI_UINT32, Fi.FI_CSWAP_GT, t, i, 1, s, 0, c, 0, r, 0);
        s.putInt(0, 7);
        AtomicTable.apply(Fi.FI_UINT32, Fi.FI_CSWAP_GT, t, i, 1, s, 0, c, 0, r, 0);
        assertEquals(7, t.getInt(i), "unsigned: 0xffffffff > 99");
        t.putLong(i + 8, 0x00ff00ff00ff00ffL);
        s.putLong(0, 0x1234567812345678L);
        c.putLong(0, 0xffff0000ffff0000L);
        AtomicTable.apply(Fi.FI_UINT64, Fi.FI_MSWAP, t, i + 8, 1, s, 0, c, 0, r, 0);
        assertEquals(0x123400ff123400ffL, t.getLong(i + 8));
        assertEquals(0x00ff00ff00ff00ffL, r.getLong(0));
    }

    @Test
    void floatsFollowCComparisonsAndComplexArithmetic() {
        ByteBuffer t = direct();
        ByteBuffer s = direct();
        ByteBuffer r = direct();
        int i = base(t);
        t.putFloat(i, Float.NaN);
        s.putFloat(0, 1f);
        AtomicTable.apply(Fi.FI_FLOAT, Fi.FI_MIN, t, i, 1, s, 0, null, 0, null, 0);
        assertEquals(true, Float.isNaN(t.getFloat(i)), "NaN > 1 is false: NaN stays");
        t.putDouble(i + 8, 1.5);
        s.putDouble(0, -4);
        AtomicTable.apply(Fi.FI_DOUBLE, Fi.FI_PROD, t, i + 8, 1, s, 0, null, 0, null, 0);
        assertEquals(-6.0, t.getDouble(i + 8));
        t.putFloat(i + 16, 1).putFloat(i + 20, 2); // 1 + 2i
        s.putFloat(0, 3).putFloat(4, 4); // 3 + 4i
        AtomicTable.apply(Fi.FI_FLOAT_COMPLEX, Fi.FI_PROD, t, i + 16, 1, s, 0, null, 0, r, 0);
        assertEquals(-5f, t.getFloat(i + 16));
        assertEquals(10f, t.getFloat(i + 20));
        assertEquals(1f, r.getFloat(0));
        assertEquals(2f, r.getFloat(4));
        t.putDouble(i + 24, 0).putDouble(i + 32, 0.5); // 0 + 0.5i is true
        s.putDouble(0, 0).putDouble(8, 0);
        AtomicTable.apply(Fi.FI_DOUBLE_COMPLEX, Fi.FI_LXOR, t, i + 24, 1, s, 0, null, 0, null, 0);
        assertEquals(1.0, t.getDouble(i + 24));
        assertEquals(0.0, t.getDouble(i + 32));
        t.putFloat(i + 40, -0f);
        s.putFloat(0, 2.5f);
        AtomicTable.apply(Fi.FI_FLOAT, Fi.FI_LOR, t, i + 40, 1, s, 0, null, 0, null, 0);
        assertEquals(1f, t.getFloat(i + 40), "-0.0 || 2.5 is 1");
    }

    @Test
    void heapTargetsAndBigEndianViewsAreHostOrder() {
        ByteBuffer heap = ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN);
        ByteBuffer s = ByteBuffer.allocate(8).order(HOST).putShort(0, (short) 0x0102);
        ByteBuffer host = heap.duplicate().order(HOST);
        host.putShort(3, (short) 0x7fff);
        AtomicTable.apply(Fi.FI_UINT16, Fi.FI_SUM, heap, 3, 1, s, 0, null, 0, null, 0);
        assertEquals((short) (0x7fff + 0x0102), host.getShort(3));
    }

    /** Four threads add to four adjacent bytes of one word: no update of one byte loses another's. */
    @Test
    void subWordElementsUpdateAtomicallyBesideEachOther() throws InterruptedException {
        ByteBuffer t = direct();
        int i = base(t);
        int rounds = 20_000;
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[4];
        for (int k = 0; k < threads.length; k++) {
            int at = i + k;
            threads[k] = new Thread(() -> {
                ByteBuffer one = ByteBuffer.allocateDirect(2).order(HOST).putShort(0, (short) 1);
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int n = 0; n < rounds; n++) {
                    AtomicTable.apply(Fi.FI_UINT8, Fi.FI_SUM, t, at, 1, one, 0, null, 0, null, 0);
                    AtomicTable.apply(Fi.FI_UINT16, Fi.FI_SUM, t, i + 8 + (at - i) * 2, 1, one, 0, null, 0, null, 0);
                }
            });
            threads[k].start();
        }
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        for (int k = 0; k < 4; k++) {
            assertEquals((byte) rounds, t.get(i + k), "byte " + k);
            assertEquals((short) rounds, t.getShort(i + 8 + k * 2), "short " + k);
        }
    }

    /** The data path allocates nothing: every datatype with a few ops, lock-free, locked and heap targets. */
    @Test
    void applyAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(mx instanceof com.sun.management.ThreadMXBean,
                "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        org.junit.jupiter.api.Assumptions.assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);
        ByteBuffer aligned = direct();
        ByteBuffer heap = ByteBuffer.allocate(64);
        ByteBuffer s = direct();
        ByteBuffer c = direct();
        ByteBuffer r = direct();
        int i = base(aligned);
        int[] ops = {Fi.FI_SUM, Fi.FI_PROD, Fi.FI_ATOMIC_WRITE, Fi.FI_LXOR};
        long tid = Thread.currentThread().getId();
        long allocated = 0;
        for (int round = 0; round < 3; round++) {
            long before = bean.getThreadAllocatedBytes(tid);
            for (int n = 0; n < 5_000; n++) {
                for (int dt = Fi.FI_INT8; dt <= Fi.FI_DOUBLE_COMPLEX; dt++) {
                    for (int op : ops) {
                        AtomicTable.apply(dt, op, aligned, i, 2, s, 0, null, 0, r, 0);
                        AtomicTable.apply(dt, op, heap, 3, 2, s, 0, null, 0, null, 0);
                    }
                    AtomicTable.apply(dt, Fi.FI_CSWAP, aligned, i + 1, 1, s, 0, c, 0, r, 0);
                }
            }
            allocated = bean.getThreadAllocatedBytes(tid) - before;
            if (allocated == 0) {
                break; // the first rounds warm the JIT up
            }
        }
        assertEquals(0, allocated, "bytes allocated by AtomicTable.apply");
    }
}
