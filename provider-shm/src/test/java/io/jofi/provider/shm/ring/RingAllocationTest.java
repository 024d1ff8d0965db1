package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zero allocation per record on both sides: claim, payload, publish, read, bounce slot
 * acquire/release over a real region, measured with {@code ThreadMXBean.getThreadAllocatedBytes}.
 */
class RingAllocationTest {

    static final int ROUNDS = 100_000;

    @TempDir
    Path dir;

    long sum;

    @Test
    void steadyStateAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);
        try (ShmRegion owner = ShmRegion.create(dir, "alloc", new RegionSizes(8192, 64, 4));
             ShmRegion peer = ShmRegion.map(dir, "alloc")) {
            MpscRing in = owner.ring();
            MpscRing out = peer.ring();
            BounceSlots slots = peer.bounceSlots();
            RecordHandler handler = (type, sender, aux, buffer, offset, length) -> {
                sum += buffer.getLong(offset);
                owner.bounceSlots().release(aux);
                return RecordHandler.CONTINUE;
            };
            long tid = Thread.currentThread().getId();
            for (int warm = 0; warm < 3; warm++) {
                sum = 0;
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < ROUNDS; i++) {
                    int slot = slots.acquire(1);
                    int index = out.claim(1, 0, slot, 8);
                    ByteBuffer buffer = out.buffer();
                    buffer.putLong(index + RingDescriptor.HEADER_LENGTH, i);
                    out.publish(index);
                    in.read(handler, 16);
                }
                long allocated = mx.getThreadAllocatedBytes(tid) - before;
                assertEquals((long) ROUNDS * (ROUNDS - 1) / 2, sum, "every record read once");
                if (warm == 2) {
                    assertTrue(allocated < 4096, allocated + " bytes allocated over " + ROUNDS + " records");
                }
            }
        }
    }
}
