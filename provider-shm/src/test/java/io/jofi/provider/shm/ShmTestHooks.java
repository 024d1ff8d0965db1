package io.jofi.provider.shm;

import io.jofi.Endpoint;
import io.jofi.spi.util.ReceiveQueue;
import java.lang.reflect.Field;

/**
 * Test hooks into an shm endpoint's parts: what the tests look at that neither the API nor the
 * endpoint's counters show (the own ring's bytes, a peer's state, the unexpected list, the CMA
 * verdict towards a peer). Reached by reflection so that the main code keeps no test-only
 * accessors; the caller holds no lock, as the tests did before (they read from one thread
 * while the endpoint is idle or its progress is theirs, MANUAL).
 */
final class ShmTestHooks {
    private ShmTestHooks() {
    }

    /** The endpoint's own side: region, sender id, enabled and failed states. */
    static ShmOwnRing own(Endpoint ep) {
        return field(ep, "own", ShmOwnRing.class);
    }

    /** The endpoint's peer table. */
    static ShmPeers peers(Endpoint ep) {
        return field(ep, "peers", ShmPeers.class);
    }

    /** Messages buffered as unexpected, or being buffered, in the endpoint's receive queue. */
    static int unexpectedCount(Endpoint ep) {
        synchronized (ep) {
            return field(ep, "receiver", ShmReceiver.class).queue().unexpectedCount();
        }
    }

    /** The endpoint's receive queue. */
    static ReceiveQueue receiveQueue(Endpoint ep) {
        return field(ep, "receiver", ShmReceiver.class).queue();
    }

    /** Whether CMA is on towards the peer at {@code fiAddr}. */
    static boolean cmaOnTowards(Endpoint ep, long fiAddr) {
        synchronized (ep) {
            Peer p = peers(ep).peerFor(fiAddr);
            return p != null && p.cma == Peer.CMA_ON;
        }
    }

    /** Why CMA is off towards the peer at {@code fiAddr}, or null. */
    static String cmaReasonTowards(Endpoint ep, long fiAddr) {
        synchronized (ep) {
            Peer p = peers(ep).peerFor(fiAddr);
            return p == null ? null : p.cmaReason;
        }
    }

    private static <T> T field(Endpoint ep, String name, Class<T> type) {
        try {
            Field f = ShmEndpoint.class.getDeclaredField(name);
            f.setAccessible(true);
            return type.cast(f.get(ep));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("ShmEndpoint has no field " + name + " of " + type.getSimpleName(), e);
        }
    }
}
