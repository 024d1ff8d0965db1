package io.jofi.spi.util;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Every object a provider has opened and not yet closed, so that the provider's departure
 * (its DS component deactivating, R15) can shut all of them down in one call.
 *
 * <p>Objects are departed in reverse order of opening (endpoints before the queues they
 * complete into), so that pending operations still find their CQs readable.
 */
public final class ProviderResources {
    private final Set<AbstractFid> live = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<AbstractFid> order = new ArrayList<>();
    private boolean departed;

    /** Records an opened object; returns it. Refuses when the provider has already departed. */
    public synchronized <T extends AbstractFid> T add(T fid) {
        if (departed) {
            throw new IllegalStateException("provider has departed");
        }
        if (live.add(fid)) {
            order.add(fid);
        }
        return fid;
    }

    /** Forgets a closed object. */
    public synchronized void remove(AbstractFid fid) {
        if (live.remove(fid)) {
            order.remove(fid);
        }
    }

    /** Whether {@link #departAll()} has run. */
    public synchronized boolean isDeparted() {
        return departed;
    }

    /** How many objects are open. */
    public synchronized int size() {
        return live.size();
    }

    /**
     * Departs every open object, newest first (R15). Later {@link #add} calls fail.
     * Idempotent.
     */
    public void departAll() {
        List<AbstractFid> snapshot;
        synchronized (this) {
            departed = true;
            snapshot = new ArrayList<>(order);
            order.clear();
            live.clear();
        }
        RuntimeException first = null;
        for (int i = snapshot.size() - 1; i >= 0; i--) {
            try {
                snapshot.get(i).depart();
            } catch (RuntimeException e) {
                // Keep departing the others: one broken object must not keep the rest alive.
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
