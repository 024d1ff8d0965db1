package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** fi_mr_reg(3) validation, keys, lookup and removal of {@link MemoryRegistry}. */
class MemoryRegistryTest {
    private final MemoryRegistry registry = new MemoryRegistry();

    private static FabricException fails(int errno, org.junit.jupiter.api.function.Executable call) {
        FabricException e = assertThrows(FabricException.class, call);
        assertEquals(errno, e.errno(), e.getMessage());
        assertTrue(e.getMessage() != null && e.getMessage().length() > 10, "a message that says what was wrong");
        return e;
    }

    @Test
    void badInputIsRejectedAndNothingIsRegistered() {
        ByteBuffer buf = ByteBuffer.allocate(16);
        fails(Errno.EINVAL, () -> registry.register(null, Fi.FI_SEND, 0, 1, 0, null, false));
        ByteBuffer empty = ByteBuffer.allocate(16);
        empty.position(16);
        fails(Errno.EINVAL, () -> registry.register(empty, Fi.FI_SEND, 0, 1, 0, null, false));
        fails(Errno.EINVAL, () -> registry.register(buf, Fi.FI_MSG, 0, 1, 0, null, false));
        fails(Errno.EINVAL, () -> registry.register(buf, Fi.FI_SEND | (1L << 40), 0, 1, 0, null, false));
        fails(Errno.EBADFLAGS, () -> registry.register(buf, Fi.FI_SEND, 0, 1, Fi.FI_MORE, null, false));
        fails(Errno.EINVAL, () -> registry.register(buf.asReadOnlyBuffer(), Fi.FI_REMOTE_WRITE, 0, 1, 0, null, false));
        fails(Errno.EINVAL, () -> registry.register(buf, Fi.FI_SEND, Long.MAX_VALUE, 1, 0, null, false, Long.MAX_VALUE));
        fails(Errno.EINVAL, () -> registry.register(buf, Fi.FI_SEND, 0, 1, 0, null, false, -8L));
        assertEquals(0, registry.size());
        assertNull(registry.lookup(1));
    }

    @Test
    void aReadOnlyBufferMayBeRegisteredForSendingAndRemoteReads() throws Exception {
        UtilMemoryRegion mr = registry.register(ByteBuffer.allocate(8).asReadOnlyBuffer(),
                Fi.FI_SEND | Fi.FI_WRITE | Fi.FI_REMOTE_READ, 0, 1, 0, null, false);
        assertTrue(mr.buffer().isReadOnly());
    }

    @Test
    void requestedKeysAreUsedAndDuplicatesRefused() throws Exception {
        UtilMemoryRegion a = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 0, 0, null, false);
        assertEquals(0, a.key(), "key 0 is a valid requested key");
        UtilMemoryRegion b = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 42, 0, null, false);
        FabricException e = fails(Errno.ENOKEY,
                () -> registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 42, 0, null, false));
        assertTrue(e.getMessage().contains("42"), e.getMessage());
        assertEquals(2, registry.size());
        assertSame(a, registry.lookup(0));
        assertSame(b, registry.lookup(42));
        // once closed, the key is free again
        b.close();
        UtilMemoryRegion c = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 42, 0, null, false);
        assertSame(c, registry.lookup(42));
    }

    @Test
    void providerKeysAreFreshNonZeroAndIgnoreTheRequestedKey() throws Exception {
        Set<Long> keys = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            UtilMemoryRegion mr = registry.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 7, 0, null, true);
            assertNotEquals(0L, mr.key());
            assertNotEquals(Fi.FI_KEY_NOTAVAIL, mr.key());
            assertTrue(keys.add(mr.key()), "never reused while registered");
            assertSame(mr, registry.lookup(mr.key()));
        }
        assertEquals(500, registry.size());
        // a random key is not a small counter: at least one of 500 has high bits set
        assertTrue(keys.stream().anyMatch(k -> (k >>> 32) != 0));
    }

    @Test
    void closeRemovesAndLookupStaysCorrectThroughManyRegistrations() throws Exception {
        List<UtilMemoryRegion> open = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            open.add(registry.register(ByteBuffer.allocate(4), Fi.FI_REMOTE_WRITE, 0, i * 1024L, 0, null, false));
        }
        for (int i = 0; i < 2000; i += 2) {
            open.get(i).close();
        }
        assertEquals(1000, registry.size());
        for (int i = 0; i < 2000; i++) {
            UtilMemoryRegion r = registry.lookup(i * 1024L);
            if (i % 2 == 0) {
                assertNull(r, "closed region " + i + " must be gone");
                assertEquals(-Errno.ENOKEY, registry.check(i * 1024L, 0, 1, Fi.FI_REMOTE_WRITE));
            } else {
                assertSame(open.get(i), r);
                assertEquals(0, registry.check(i * 1024L, 0, 4, Fi.FI_REMOTE_WRITE));
            }
        }
        // churn with tombstones: register and close the same keys repeatedly
        for (int round = 0; round < 50; round++) {
            UtilMemoryRegion r = registry.register(ByteBuffer.allocate(4), Fi.FI_REMOTE_WRITE, 0, 5_000_000L + round,
                    0, null, false);
            assertSame(r, registry.lookup(5_000_000L + round));
            r.close();
            assertNull(registry.lookup(5_000_000L + round));
        }
        assertEquals(1000, registry.size());
    }

    @Test
    void targetIndexCombinesLookupAndCheck() throws Exception {
        registry.register(ByteBuffer.allocate(32), Fi.FI_REMOTE_READ, 100, 9, 0, null, false);
        assertEquals(5, registry.targetIndex(9, 105, 4, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.ENOKEY, registry.targetIndex(10, 105, 4, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EACCES, registry.targetIndex(9, 105, 4, Fi.FI_REMOTE_WRITE));
        assertEquals(-Errno.EINVAL, registry.targetIndex(9, 99, 4, Fi.FI_REMOTE_READ));
        assertEquals(-Errno.EINVAL, registry.targetIndex(9, 130, 4, Fi.FI_REMOTE_READ));
    }

    @Test
    void closeListenerHearsOfClosedAndDepartedRegions() throws Exception {
        List<UtilMemoryRegion> closed = new ArrayList<>();
        MemoryRegistry owned = new MemoryRegistry(closed::add);
        UtilMemoryRegion a = owned.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 1, 0, null, false);
        UtilMemoryRegion b = owned.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 2, 0, null, false);
        a.close();
        a.close();
        b.depart();
        b.close();
        assertEquals(List.of(a, b), closed, "each region reported exactly once");
        assertEquals(0, owned.size());
    }

    @Test
    void lookupAndCheckAllocateNothing() throws Exception {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        if (!(bean instanceof com.sun.management.ThreadMXBean)) {
            return; // not a HotSpot-style JVM: nothing to measure with
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        for (int i = 0; i < 64; i++) {
            registry.register(ByteBuffer.allocate(64), Fi.FI_REMOTE_READ, 0, 1000L + i, 0, null, false);
        }
        long sink = 0;
        for (int i = 0; i < 20_000; i++) { // warm up
            sink += registry.targetIndex(1000L + (i & 63), 8, 8, Fi.FI_REMOTE_READ);
            sink += registry.lookup(999_999L) == null ? 1 : 0;
        }
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 100_000; i++) {
            sink += registry.targetIndex(1000L + (i & 63), 8, 8, Fi.FI_REMOTE_READ);
            sink += registry.check(999_999L, 0, 1, Fi.FI_REMOTE_READ);
        }
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        assertTrue(sink != 0);
        // a boxed key per lookup would be >= 3 MB here; allow a small constant for the measuring itself
        assertTrue(allocated < 4096, "lookups allocated " + allocated + " bytes");
    }
}
