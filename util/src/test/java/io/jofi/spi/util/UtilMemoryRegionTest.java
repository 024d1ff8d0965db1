package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.FidClass;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** fi_mr(3) region semantics: the registered slice, key/address/desc, bounds and access checks. */
class UtilMemoryRegionTest {
    private final MemoryRegistry registry = new MemoryRegistry();

    @Test
    void keepsTheCallersPositionAndLimitAndRegistersExactlyThatRange() throws Exception {
        ByteBuffer buf = ByteBuffer.allocate(64);
        buf.position(8).limit(40);
        buf.put(8, (byte) 7).put(39, (byte) 9);
        UtilMemoryRegion mr = registry.register(buf, Fi.FI_REMOTE_WRITE, 0, 5, 0, "ctx", false);
        assertEquals(8, buf.position());
        assertEquals(40, buf.limit());
        assertEquals(32, mr.length());
        assertEquals(32, mr.buffer().capacity());
        assertEquals(7, mr.buffer().get(0));
        assertEquals(9, mr.buffer().get(31));
        assertNotSame(buf, mr.buffer());
        // the slice shares the memory: a target write is visible to the application
        mr.buffer().put(1, (byte) 42);
        assertEquals(42, buf.get(9));
        // moving the caller's position later does not move the region
        buf.position(0);
        assertEquals(7, mr.buffer().get(0));
    }

    @Test
    void reportsKeyAddressDescAccessOffsetAndContext() throws Exception {
        Object ctx = new Object();
        UtilMemoryRegion mr = registry.register(ByteBuffer.allocateDirect(16), Fi.FI_SEND | Fi.FI_REMOTE_READ,
                100, 77, 0, ctx, false);
        assertEquals(77, mr.key());
        assertEquals(0, mr.address());
        assertSame(mr, mr.desc());
        assertSame(ctx, mr.context());
        assertEquals(FidClass.MR, mr.fidClass());
        assertEquals(Fi.FI_SEND | Fi.FI_REMOTE_READ, mr.access());
        assertEquals(100, mr.offset());
        assertSame(mr.buffer(), mr.buffer());
    }

    @Test
    void boundsWithOffsetZero() throws Exception {
        UtilMemoryRegion mr = registry.register(ByteBuffer.allocate(100), Fi.FI_REMOTE_WRITE, 0, 1, 0, null, false);
        assertEquals(0, mr.check(0, 100, Fi.FI_REMOTE_WRITE));
        assertEquals(0, mr.check(99, 1, Fi.FI_REMOTE_WRITE));
        assertEquals(0, mr.check(100, 0, Fi.FI_REMOTE_WRITE), "an empty access at the end is inside");
        assertEquals(-Errno.EINVAL, mr.check(99, 2, Fi.FI_REMOTE_WRITE));
        assertEquals(-Errno.EINVAL, mr.check(101, 0, Fi.FI_REMOTE_WRITE));
        assertEquals(-Errno.EINVAL, mr.check(0, 101, Fi.FI_REMOTE_WRITE));
        assertEquals(-Errno.EINVAL, mr.check(0, -1, Fi.FI_REMOTE_WRITE));
        assertEquals(-Errno.EINVAL, mr.check(-1, 1, Fi.FI_REMOTE_WRITE), "2^64-1 is far outside");
        assertEquals(50, mr.indexOf(50));
    }

    @Test
    void boundsWithOffsetAndVirtualAddress() throws Exception {
        long va = 0x7f00_0000_1000L;
        UtilMemoryRegion mr = registry.register(ByteBuffer.allocate(64), Fi.FI_REMOTE_READ, 16, 2, 0, null, false, va);
        assertEquals(va, mr.address());
        long first = va + 16;
        assertEquals(-Errno.EINVAL, mr.check(va, 1, Fi.FI_REMOTE_READ), "below address + offset");
        assertEquals(-Errno.EINVAL, mr.check(first - 1, 1, Fi.FI_REMOTE_READ));
        assertEquals(0, mr.check(first, 64, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EINVAL, mr.check(first + 1, 64, Fi.FI_REMOTE_READ));
        assertEquals(0, mr.indexOf(first));
        assertEquals(63, mr.indexOf(first + 63));
    }

    @Test
    void boundsAreOverflowSafe() throws Exception {
        UtilMemoryRegion mr = registry.register(ByteBuffer.allocate(64), Fi.FI_REMOTE_READ, 0, 3, 0, null, false);
        // addr + len wraps around 2^63 and 2^64: must be rejected, not accepted by a negative sum
        assertEquals(-Errno.EINVAL, mr.check(8, Long.MAX_VALUE, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EINVAL, mr.check(Long.MAX_VALUE, Long.MAX_VALUE, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EINVAL, mr.check(Long.MIN_VALUE, 1, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EINVAL, mr.check(Long.MIN_VALUE, Long.MIN_VALUE, Fi.FI_REMOTE_READ));

        // a region placed at the very top of the 64-bit space
        long top = -64L; // 2^64 - 64 unsigned
        UtilMemoryRegion high = registry.register(ByteBuffer.allocate(64), Fi.FI_REMOTE_READ, 0, 4, 0, null, false, top);
        assertEquals(0, high.check(top, 64, Fi.FI_REMOTE_READ));
        assertEquals(0, high.check(-1L, 1, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EINVAL, high.check(-1L, 2, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EINVAL, high.check(0, 1, Fi.FI_REMOTE_READ), "0 is below the region, not after it");
        assertEquals(63, high.indexOf(-1L));
    }

    @Test
    void accessBitsAreChecked() throws Exception {
        UtilMemoryRegion ro = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 10, 0, null, false);
        UtilMemoryRegion rw = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE,
                0, 11, 0, null, false);
        UtilMemoryRegion local = registry.register(ByteBuffer.allocate(8), Fi.FI_SEND | Fi.FI_RECV, 0, 12, 0, null, false);
        assertEquals(0, ro.check(0, 8, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EACCES, ro.check(0, 8, Fi.FI_REMOTE_WRITE));
        assertEquals(-Errno.EACCES, ro.check(0, 8, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE), "fetching atomics need both");
        assertEquals(0, rw.check(0, 8, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE));
        assertEquals(-Errno.EACCES, local.check(0, 8, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EACCES, local.check(0, 8, Fi.FI_REMOTE_WRITE));
    }

    @Test
    void closedAndDepartedRegionsFailTheCheck() throws Exception {
        UtilMemoryRegion a = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 20, 0, null, false);
        UtilMemoryRegion b = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 21, 0, null, false);
        a.close();
        b.depart();
        assertEquals(-Errno.EBADF, a.check(0, 1, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.ENODEV, b.check(0, 1, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.ENOKEY, registry.check(21, 0, 1, Fi.FI_REMOTE_READ), "a departed region leaves the registry");
        a.close(); // closing twice does nothing
    }
}
