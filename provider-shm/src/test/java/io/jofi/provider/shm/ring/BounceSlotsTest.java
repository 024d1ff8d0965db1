package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Bounce slots: exclusive acquire, exhaustion as flow control, release, dead holders, bad input. */
class BounceSlotsTest {

    final ByteBuffer memory = ByteBuffer.allocateDirect(RegionDescriptor.headerLength(4) + 4 * 64);
    final BounceSlots slots = new BounceSlots(memory, RegionDescriptor.headerLength(4), 64, 4);

    @Test
    void eachSlotIsHandedOutOnceUntilReleased() {
        Set<Integer> taken = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            int slot = slots.acquire(1 + i % 2);
            assertTrue(slots.isValid(slot));
            assertTrue(taken.add(slot));
            assertEquals(1 + i % 2, slots.holder(slot));
        }
        assertEquals(-Errno.EAGAIN, slots.acquire(1));
        assertEquals(0, slots.release(2));
        assertEquals(0, slots.holder(2));
        assertEquals(2, slots.acquire(3));
        assertEquals(128, slots.offset(2));
    }

    @Test
    void slotsOfADeadHolderAreFreed() {
        slots.acquire(1);
        slots.acquire(2);
        slots.acquire(1);
        assertEquals(2, slots.releaseAllHeldBy(1));
        assertEquals(0, slots.releaseAllHeldBy(0));
        assertEquals(2, slots.holder(1));
    }

    @Test
    void badIndexesAndHoldersAreRefused() {
        assertEquals(-Errno.EINVAL, slots.acquire(0));
        assertEquals(-Errno.EINVAL, slots.release(4));
        assertEquals(-Errno.EINVAL, slots.release(-1));
        assertEquals(-Errno.EINVAL, slots.holder(99));
        assertFalse(slots.isValid(4));
    }

    @Test
    void aCorruptHintIsIgnored() {
        memory.putInt(RegionDescriptor.SLOT_HINT_OFFSET, 1 << 30);
        assertEquals(0, slots.acquire(1));
        memory.putInt(RegionDescriptor.SLOT_HINT_OFFSET, -7);
        assertEquals(1, slots.acquire(1));
    }

    @Test
    void noSlotsMeansAlwaysAgain() {
        BounceSlots none = new BounceSlots(memory, RegionDescriptor.headerLength(0), 64, 0);
        assertEquals(-Errno.EAGAIN, none.acquire(1));
    }
}
