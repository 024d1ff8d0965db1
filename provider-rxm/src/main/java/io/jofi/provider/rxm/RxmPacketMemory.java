package io.jofi.provider.rxm;

import io.jofi.Domain;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One direct block of memory cut into equal packet buffers, registered whole with the MSG
 * domain when its provider works on registered native memory ({@link #nativeMemory}), so that
 * every post of one of its buffers carries the block's {@code desc}: libfabric's rxm registers
 * its buffer pools the same way when the MSG provider asks for {@code FI_MR_LOCAL}. A device
 * provider such as verbs would otherwise have to find (or make) a registration for every
 * packet buffer on every post.
 */
final class RxmPacketMemory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RxmPacketMemory.class.getName());
    /** Requested keys of the blocks ("RXB", then a number): unique in the process, for providers that take requested keys. */
    private static final AtomicLong KEYS = new AtomicLong(0x5258420000L << 16);

    /** The packet buffers, little-endian, each its own view of the block. */
    private final ByteBuffer[] buffers;
    private final ByteBuffer block;
    /** The block's registration, or null (not registered: the MSG provider takes unregistered buffers). */
    private MemoryRegion desc;

    /** How many packet buffers the block holds. */
    int count() {
        return buffers.length;
    }

    /** Packet buffer {@code i}. */
    ByteBuffer buffer(int i) {
        return buffers[i];
    }

    /** The block's registration, the {@code desc} of every post of its buffers; null when not registered. */
    MemoryRegion desc() {
        return desc;
    }

    /** {@code count} buffers of {@code size} bytes in one direct block, not registered yet. */
    RxmPacketMemory(int count, int size) {
        block = ByteBuffer.allocateDirect(Math.multiplyExact(count, size));
        buffers = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            buffers[i] = block.slice(i * size, size).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /**
     * Whether the MSG provider moves bytes by a device that works on registered, pinned native
     * memory: it asks for local registrations ({@code FI_MR_LOCAL}) or registers allocated
     * memory only ({@code FI_MR_ALLOCATED}). Then this layer registers its packet buffers and
     * keeps every buffer a read lands in direct.
     */
    static boolean nativeMemory(Info msgInfo) {
        return (msgInfo.domainAttr().mrMode() & (Fi.FI_MR_LOCAL | Fi.FI_MR_ALLOCATED)) != 0;
    }

    /**
     * Registers the block with {@code domain} for local sends and receives.
     *
     * @throws FabricException when the domain refuses
     */
    void register(Domain domain) throws FabricException {
        desc = domain.register(block, Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE, 0, KEYS.incrementAndGet(),
                0, null);
    }

    /** Undoes the registration (nothing may be posted from the block any more). */
    @Override
    public void close() {
        if (desc == null) {
            return;
        }
        MemoryRegion mr = desc;
        desc = null;
        try {
            mr.close();
        } catch (FabricException e) {
            LOG.log(System.Logger.Level.DEBUG, "rxm: closing a packet-buffer registration failed: " + e.getMessage());
        }
    }
}
