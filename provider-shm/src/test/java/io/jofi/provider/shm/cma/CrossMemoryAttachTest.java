package io.jofi.provider.shm.cma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link CrossMemoryAttach} against this process's own memory (process_vm_readv allows a
 * process to read itself; the cross-process uses are proven through the endpoint tests with
 * child JVMs): availability, the probe, reads of iovec lists into direct and heap buffers,
 * errors as errno values and no allocation in steady state.
 */
class CrossMemoryAttachTest {
    private static final int SELF = (int) ProcessHandle.current().pid();

    @Test
    void availableOnThisKernel() {
        assertNull(CrossMemoryAttach.unavailableReason(), "this kernel has CMA and no Yama");
        assertTrue(CrossMemoryAttach.available());
    }

    @Test
    void probeReadsTheWordAndComparesIt() {
        CrossMemoryAttach c = new CrossMemoryAttach();
        assertEquals(0, c.probe(SELF, c.probeAddress(), c.probeValue()));
        assertEquals(Errno.EIO, c.probe(SELF, c.probeAddress(), c.probeValue() + 1), "another value: the probe fails");
        assertEquals(Errno.EFAULT, c.probe(SELF, 8, c.probeValue()), "an unmapped address is EFAULT, never a crash");
        assertEquals(Errno.ESRCH, c.probe(0, c.probeAddress(), c.probeValue()));
    }

    @Test
    void readsARangeOfAnIovecListIntoDirectAndHeapBuffers() {
        CrossMemoryAttach c = new CrossMemoryAttach();
        ByteBuffer[] src = {ByteBuffer.allocateDirect(1000), ByteBuffer.allocateDirect(3), ByteBuffer.allocateDirect(300_001)};
        long[] addrs = new long[3];
        long[] lens = new long[3];
        int total = 0;
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < src[i].capacity(); k++) {
                src[i].put(k, (byte) (total + k));
            }
            addrs[i] = c.address(src[i]);
            lens[i] = src[i].capacity();
            total += src[i].capacity();
        }
        for (ByteBuffer dst : new ByteBuffer[] {ByteBuffer.allocateDirect(total + 10), ByteBuffer.allocate(total + 10)}) {
            // the whole message at offset 10
            assertEquals(0, c.read(SELF, addrs, lens, 3, 0, dst, 10, total));
            for (int k = 0; k < total; k++) {
                assertEquals((byte) k, dst.get(10 + k), "byte " + k + " of " + (dst.isDirect() ? "direct" : "heap"));
            }
            // a range across the iovec boundaries
            assertEquals(0, c.read(SELF, addrs, lens, 3, 998, dst, 0, 7));
            for (int k = 0; k < 7; k++) {
                assertEquals((byte) (998 + k), dst.get(k));
            }
        }
        // the sources must outlive the reads (their memory is freed once they are unreachable)
        Reference.reachabilityFence(src);
    }

    @Test
    void badInputIsAnErrnoNeverACrash() {
        CrossMemoryAttach c = new CrossMemoryAttach();
        ByteBuffer dst = ByteBuffer.allocateDirect(64);
        long[] bad = {16};
        long[] len = {64};
        assertEquals(Errno.EFAULT, c.read(SELF, bad, len, 1, 0, dst, 0, 64));
        ByteBuffer src = ByteBuffer.allocateDirect(64);
        long[] good = {c.address(src)};
        assertEquals(Errno.EINVAL, c.read(SELF, good, len, 1, 0, dst, 1, 64), "past the destination");
        assertEquals(Errno.EINVAL, c.read(SELF, good, len, 1, 1, dst, 0, 64), "past the message");
        assertEquals(Errno.EINVAL, c.read(SELF, good, len, 1, 0, dst, -1, 8));
        long dead = ProcessHandle.current().pid() + 4_000_000L;
        assertEquals(Errno.ESRCH, c.read((int) Math.min(dead, Integer.MAX_VALUE), good, len, 1, 0, dst, 0, 64));
        Reference.reachabilityFence(src);
    }

    @Test
    void steadyStateReadsAllocateNothing() {
        CrossMemoryAttach c = new CrossMemoryAttach();
        ByteBuffer src = ByteBuffer.allocateDirect(1 << 16);
        ByteBuffer direct = ByteBuffer.allocateDirect(1 << 16);
        ByteBuffer heap = ByteBuffer.allocate(1 << 16);
        long[] addrs = {0, 0};
        long[] lens = {1 << 15, 1 << 15};
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long allocated = 0;
        for (int round = 0; round < 3; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 20_000; i++) {
                long a = c.address(src);
                addrs[0] = a;
                addrs[1] = a + (1 << 15);
                assertEquals(0, c.read(SELF, addrs, lens, 2, 0, (i & 1) == 0 ? direct : heap, 0, 1 << 16));
            }
            allocated = mx.getThreadAllocatedBytes(tid) - before;
        }
        assertEquals(0, allocated, "bytes allocated by 20 000 reads after warm-up");
        Reference.reachabilityFence(src);
    }
}
