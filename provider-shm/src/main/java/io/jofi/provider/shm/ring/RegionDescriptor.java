package io.jofi.provider.shm.ring;

/**
 * The layout of a region file: one file per endpoint (its owner, the consumer), mapped by every
 * peer that sends to it. All numbers are little-endian; offsets are from the start of the file.
 *
 * <pre>
 *   0 +--------------------------------------------------------------+
 *     | magic (long)               "JOFISHM\1", written LAST (release) |
 *   8 | layout version (int)       | header length (int) = ring offset |
 *  16 | owner pid (long)                                               |
 *  24 | owner start time (long)    /proc/&lt;pid&gt;/stat field 22 (ticks)  |
 *  32 | owner uid (int)            | state (int) READY/CLOSED/FAILED   |
 *  40 | ring capacity (int)        | slot size (int)                   |
 *  48 | slot count (int)           | reserved (int)                    |
 *  56 | file length (long)                                             |
 *  64 | features (int): bit 0 CMA  | reserved ... up to 128            |
 * 128 +--------------------------------------------------------------+
 *     | consumer "sleeping" flag (int), alone on 128 bytes             |
 * 256 +--------------------------------------------------------------+
 *     | ring tail (long): producers getAndAdd/CAS it, alone on 128 B   |
 * 384 +--------------------------------------------------------------+
 *     | ring head (long): written by the consumer only, alone on 128 B |
 * 512 +--------------------------------------------------------------+
 *     | bounce slot search hint (int), alone on 128 bytes              |
 * 640 +--------------------------------------------------------------+
 *     | bounce slot states: slot count ints (0 free, else the holder)  |
 *     | ... padded to a multiple of 4096                               |
 * H   +--------------------------------------------------------------+  H = header length
 *     | ring: ring capacity bytes of records ({@link RingDescriptor})  |
 * H+C +--------------------------------------------------------------+
 *     | bounce buffers: slot count x slot size bytes                   |
 * end +--------------------------------------------------------------+  = file length
 * </pre>
 *
 * The 128-byte spacing keeps each shared counter on its own pair of cache lines (the adjacent
 * line prefetcher pulls lines in pairs), so producers hammering the tail do not invalidate the
 * consumer's head and flag. Nothing of the header is trusted by a peer before
 * {@link ShmRegion#map} accepted it; the consumer never reads its head back from the file.
 */
public final class RegionDescriptor {

    /** "JOFISHM" followed by 0x01, read as a little-endian long. */
    public static final long MAGIC = 0x014D4853_49464F4AL;
    /** The layout described here; a region with another version is refused. */
    public static final int LAYOUT_VERSION = 1;

    /** Bytes between two shared counters: two cache lines. */
    public static final int PAD = 128;
    /** Alignment of the header length (the ring offset). */
    public static final int PAGE = 4096;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int HEADER_LENGTH_OFFSET = 12;
    public static final int OWNER_PID_OFFSET = 16;
    public static final int OWNER_START_TIME_OFFSET = 24;
    public static final int OWNER_UID_OFFSET = 32;
    public static final int STATE_OFFSET = 36;
    public static final int RING_CAPACITY_OFFSET = 40;
    public static final int SLOT_SIZE_OFFSET = 44;
    public static final int SLOT_COUNT_OFFSET = 48;
    public static final int FILE_LENGTH_OFFSET = 56;
    /**
     * Feature bits of the owner (int, 0 in regions of builds that know none): written by the
     * owner after creation, read by peers as a hint only (a peer verifies what it relies on).
     */
    public static final int FEATURES_OFFSET = 64;
    /**
     * {@link #FEATURES_OFFSET}: the owner reads large messages from its senders' memory with
     * {@code process_vm_readv} (cross-memory attach) and answers CMA probes.
     */
    public static final int FEATURE_CMA = 1;
    public static final int SLEEPING_OFFSET = PAD;
    public static final int TAIL_OFFSET = 2 * PAD;
    public static final int HEAD_OFFSET = 3 * PAD;
    public static final int SLOT_HINT_OFFSET = 4 * PAD;
    public static final int SLOT_STATES_OFFSET = 5 * PAD;

    /** {@link #STATE_OFFSET}: the owner is running and consuming. */
    public static final int STATE_READY = 1;
    /** {@link #STATE_OFFSET}: the owner closed the region (it is about to be deleted). */
    public static final int STATE_CLOSED = 2;
    /** {@link #STATE_OFFSET}: the owner found its ring corrupt and stopped consuming it. */
    public static final int STATE_FAILED = 3;

    public static final int MIN_RING_CAPACITY = 4096;
    public static final int MAX_RING_CAPACITY = 1 << 30;
    public static final int MAX_SLOT_SIZE = 1 << 24;
    public static final int MAX_SLOT_COUNT = 1 << 16;
    /** A region file is one mapping: at most this many bytes. */
    public static final long MAX_FILE_LENGTH = Integer.MAX_VALUE;

    private RegionDescriptor() {
    }

    /** @return the header length (= ring offset) for {@code slotCount} bounce slots */
    public static int headerLength(int slotCount) {
        return align(SLOT_STATES_OFFSET + 4 * slotCount, PAGE);
    }

    /** @return the offset of the bounce-buffer area */
    public static long bounceOffset(int ringCapacity, int slotCount) {
        return (long) headerLength(slotCount) + ringCapacity;
    }

    /** @return the file length of a region with these (valid) sizes, as a long (no overflow) */
    public static long fileLength(int ringCapacity, int slotSize, int slotCount) {
        return bounceOffset(ringCapacity, slotCount) + (long) slotSize * slotCount;
    }

    /** @return the offset of the state word of bounce slot {@code slot} */
    public static int slotStateOffset(int slot) {
        return SLOT_STATES_OFFSET + 4 * slot;
    }

    /**
     * Checks sizes whether they come from a caller or from a file.
     *
     * @return null when valid, otherwise what is wrong
     */
    public static String checkSizes(long ringCapacity, long slotSize, long slotCount) {
        if (ringCapacity < MIN_RING_CAPACITY || ringCapacity > MAX_RING_CAPACITY
                || Long.bitCount(ringCapacity) != 1) {
            return "ring capacity " + ringCapacity + " is not a power of two in [" + MIN_RING_CAPACITY
                    + ", " + MAX_RING_CAPACITY + "]";
        }
        if (slotSize < 64 || slotSize > MAX_SLOT_SIZE || (slotSize & 63) != 0) {
            return "bounce slot size " + slotSize + " is not a multiple of 64 in [64, " + MAX_SLOT_SIZE + "]";
        }
        if (slotCount < 0 || slotCount > MAX_SLOT_COUNT) {
            return "bounce slot count " + slotCount + " is not in [0, " + MAX_SLOT_COUNT + "]";
        }
        long length = fileLength((int) ringCapacity, (int) slotSize, (int) slotCount);
        if (length > MAX_FILE_LENGTH) {
            return "region of " + length + " bytes exceeds one mapping (" + MAX_FILE_LENGTH + " bytes)";
        }
        return null;
    }

    /** @return {@code value} rounded up to a multiple of {@code alignment} (a power of two) */
    public static int align(int value, int alignment) {
        return (value + alignment - 1) & -alignment;
    }
}
