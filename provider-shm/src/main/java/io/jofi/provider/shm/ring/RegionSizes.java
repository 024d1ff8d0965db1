package io.jofi.provider.shm.ring;

/**
 * The sizes of a region: the ring capacity in bytes and the bounce-buffer area (slot size in
 * bytes, slot count). Validated by the constructor so that a region built from it always fits
 * one mapping (a single {@link java.nio.MappedByteBuffer}, at most 2 GiB - 1).
 *
 * @param ringCapacity bytes of the MPSC ring: a power of two in
 *                     [{@link RegionDescriptor#MIN_RING_CAPACITY}, {@link RegionDescriptor#MAX_RING_CAPACITY}]
 * @param slotSize     bytes of one bounce buffer: a multiple of 64 in
 *                     [64, {@link RegionDescriptor#MAX_SLOT_SIZE}]
 * @param slotCount    number of bounce buffers, [0, {@link RegionDescriptor#MAX_SLOT_COUNT}]
 */
public record RegionSizes(int ringCapacity, int slotSize, int slotCount) {

    /** 64 KiB ring, 64 bounce buffers of 64 KiB: a region of about 4.1 MiB. */
    public static final RegionSizes DEFAULT = new RegionSizes(64 * 1024, 64 * 1024, 64);

    /**
     * Checks the sizes.
     *
     * @throws IllegalArgumentException naming the size that is out of range
     */
    public RegionSizes {
        String problem = RegionDescriptor.checkSizes(ringCapacity, slotSize, slotCount);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    /** @return the number of bytes of the whole region file with these sizes */
    public int fileLength() {
        return (int) RegionDescriptor.fileLength(ringCapacity, slotSize, slotCount);
    }
}
