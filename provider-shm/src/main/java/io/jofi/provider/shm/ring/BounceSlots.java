package io.jofi.provider.shm.ring;

import static io.jofi.provider.shm.ring.RegionDescriptor.SLOT_HINT_OFFSET;

import io.jofi.Errno;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The bounce buffers of a region: {@code slotCount} buffers of {@code slotSize} bytes that
 * producers fill with payloads too large for the ring, and the state word of each (0 = free,
 * otherwise the holder's tag, a positive int chosen by the provider, e.g. sender index + 1).
 * A producer takes a slot with a CAS 0 → holder ({@link #acquire}), writes the payload, sends
 * the slot index in a ring record; the consumer copies the payload out and frees the slot
 * ({@link #release}, release store). Running out of slots is the flow control: acquire answers
 * {@code -EAGAIN}. The slots of a dead holder are freed with {@link #releaseAllHeldBy}.
 * Lock-free, no allocation; a scan visits each slot at most once.
 */
public final class BounceSlots {

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final ByteBuffer region;
    private final ByteBuffer slots;
    private final int slotSize;
    private final int slotCount;

    /**
     * Slots over memory laid out as {@link RegionDescriptor} (state words at
     * {@link RegionDescriptor#SLOT_STATES_OFFSET}, buffers at {@code bounceOffset}).
     *
     * @throws IllegalArgumentException when the buffer is not direct or the slots do not fit
     */
    public BounceSlots(ByteBuffer region, int bounceOffset, int slotSize, int slotCount) {
        if (!region.isDirect()) {
            throw new IllegalArgumentException("bounce slots must be in a direct buffer");
        }
        if (slotSize <= 0 || slotCount < 0 || bounceOffset < RegionDescriptor.slotStateOffset(slotCount)
                || (long) bounceOffset + (long) slotSize * slotCount > region.capacity()) {
            throw new IllegalArgumentException(slotCount + " bounce slots of " + slotSize + " bytes at "
                    + bounceOffset + " do not fit a buffer of " + region.capacity() + " bytes");
        }
        this.region = region.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        this.slots = this.region.slice(bounceOffset, slotSize * slotCount).order(ByteOrder.LITTLE_ENDIAN);
        this.slotSize = slotSize;
        this.slotCount = slotCount;
    }

    /**
     * Takes a free slot for {@code holder}.
     *
     * @param holder positive tag of the taker
     * @return the slot index, {@code -EAGAIN} when every slot is taken, {@code -EINVAL} for a
     *         holder that is not positive
     */
    public int acquire(int holder) {
        if (holder <= 0) {
            return -Errno.EINVAL;
        }
        int start = (int) INT.getOpaque(region, SLOT_HINT_OFFSET);
        if (start < 0 || start >= slotCount) {
            start = 0; // the hint is shared memory: any value is possible
        }
        for (int i = 0; i < slotCount; i++) {
            int slot = start + i;
            if (slot >= slotCount) {
                slot -= slotCount;
            }
            final int state = RegionDescriptor.slotStateOffset(slot);
            if ((int) INT.getVolatile(region, state) == 0 && INT.compareAndSet(region, state, 0, holder)) {
                INT.setOpaque(region, SLOT_HINT_OFFSET, slot + 1 == slotCount ? 0 : slot + 1);
                return slot;
            }
        }
        return -Errno.EAGAIN;
    }

    /**
     * Frees a slot (release: the consumer's reads of the payload happen before a producer can
     * take it again).
     *
     * @return 0, or {@code -EINVAL} for an index out of range (it comes from shared memory)
     */
    public int release(int slot) {
        if (slot < 0 || slot >= slotCount) {
            return -Errno.EINVAL;
        }
        INT.setRelease(region, RegionDescriptor.slotStateOffset(slot), 0);
        return 0;
    }

    /** @return the holder of {@code slot} (0 = free), or {@code -EINVAL} for an index out of range */
    public int holder(int slot) {
        if (slot < 0 || slot >= slotCount) {
            return -Errno.EINVAL;
        }
        return (int) INT.getAcquire(region, RegionDescriptor.slotStateOffset(slot));
    }

    /**
     * Frees every slot held by {@code holder} (a producer that died).
     *
     * @return the number of slots freed
     */
    public int releaseAllHeldBy(int holder) {
        int freed = 0;
        for (int slot = 0; slot < slotCount; slot++) {
            if (holder > 0 && INT.compareAndSet(region, RegionDescriptor.slotStateOffset(slot), holder, 0)) {
                freed++;
            }
        }
        return freed;
    }

    /** @return whether {@code slot} is a valid index */
    public boolean isValid(int slot) {
        return slot >= 0 && slot < slotCount;
    }

    /** @return the bounce area (little-endian); slot {@code i} starts at {@link #offset(int) offset(i)} */
    public ByteBuffer buffer() {
        return slots;
    }

    /** @return the offset of a valid {@code slot} in {@link #buffer()} */
    public int offset(int slot) {
        return slot * slotSize;
    }

    /** @return bytes per slot */
    public int slotSize() {
        return slotSize;
    }

    /** @return number of slots */
    public int slotCount() {
        return slotCount;
    }
}
