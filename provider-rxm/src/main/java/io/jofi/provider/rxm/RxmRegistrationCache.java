package io.jofi.provider.rxm;

import io.jofi.Domain;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;

/**
 * Keeps the registrations of the application's rendezvous buffers for reuse, as libfabric's
 * MR cache does for rxm: a buffer sent again (same object, same position and limit) reuses its
 * registration, so a steady stream of rendezvous sends (above the eager limit, or with
 * {@code FI_DELIVERY_COMPLETE}) allocates nothing. A fixed number of slots, the least recently
 * used unused one replaced; when every slot is in use a registration is made for the one send
 * and closed after it. A cached buffer stays registered (and referenced) until it is replaced
 * or the endpoint closes. Serialised by its endpoint.
 */
final class RxmRegistrationCache {
    private static final System.Logger LOG = System.getLogger(RxmRegistrationCache.class.getName());
    private static final int SLOTS = 16;

    private final ByteBuffer[] buffers = new ByteBuffer[SLOTS];
    private final int[] positions = new int[SLOTS];
    private final int[] limits = new int[SLOTS];
    private final MemoryRegion[] regions = new MemoryRegion[SLOTS];
    private final int[] users = new int[SLOTS];
    private final long[] lastUse = new long[SLOTS];
    private long clock;

    /** A registration of {@code b}'s remaining bytes for remote reads: a cached one, or a new one. */
    MemoryRegion acquire(Domain domain, ByteBuffer b, long key) throws FabricException {
        clock++;
        int free = -1;
        for (int i = 0; i < SLOTS; i++) {
            if (buffers[i] == b && positions[i] == b.position() && limits[i] == b.limit()) {
                users[i]++;
                lastUse[i] = clock;
                return regions[i];
            }
            if (users[i] == 0 && (free < 0 || lastUse[i] < lastUse[free])) {
                free = i;
            }
        }
        MemoryRegion mr = domain.register(b, Fi.FI_REMOTE_READ, 0, key, 0, null);
        if (free < 0) {
            return mr; // every slot in use: this one is closed after its send
        }
        close(regions[free]);
        buffers[free] = b;
        positions[free] = b.position();
        limits[free] = b.limit();
        regions[free] = mr;
        users[free] = 1;
        lastUse[free] = clock;
        return mr;
    }

    /** The send that acquired {@code mr} is over. */
    void release(MemoryRegion mr) {
        for (int i = 0; i < SLOTS; i++) {
            if (regions[i] == mr) {
                users[i]--;
                return;
            }
        }
        close(mr);
    }

    /** Closes every cached registration (the endpoint closes or departs). */
    void closeAll() {
        for (int i = 0; i < SLOTS; i++) {
            close(regions[i]);
            regions[i] = null;
            buffers[i] = null;
            users[i] = 0;
        }
    }

    private static void close(MemoryRegion mr) {
        if (mr == null) {
            return;
        }
        try {
            mr.close();
        } catch (FabricException e) {
            LOG.log(System.Logger.Level.DEBUG, "rxm: closing a rendezvous registration failed: " + e.getMessage());
        }
    }
}
