package io.jofi.spi.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads parked on one wait object, registered, left and woken without a lock: a woken
 * thread leaves its slot while the producer that woke it may still be scanning, so neither waits
 * for the other (a lock held around the unpark made the woken thread block on it a second time).
 *
 * <pre>
 *   first ──> [ T0 | -- | T2 | -- ] ──next──> [ -- | -- | -- | -- ] ──> null
 *              slots claimed by CAS (null -> thread), cleared by their owner; segments are only
 *              ever appended, so a producer's scan cannot miss a slot claimed before it looked
 * </pre>
 *
 * <p>A waiter {@link #register registers} (claims a free slot, then counts itself), fences,
 * re-checks its condition and parks; a producer publishes, fences and {@link #unparkAll wakes}
 * every registered thread: one of the two sees the other (Dekker). A stale unpark of a thread
 * that left its slot meanwhile is a spurious wake-up, which every parker tolerates. Registering
 * allocates only when more threads are parked at once than ever before (a new segment).
 */
final class ParkedWaiters {

    /** Slots per segment: one segment serves the usual one or two readers of a queue. */
    private static final int SEGMENT = 4;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Thread[].class);
    private static final VarHandle NEXT;
    private static final VarHandle PARKED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            NEXT = l.findVarHandle(Segment.class, "next", Segment.class);
            PARKED = l.findVarHandle(ParkedWaiters.class, "parked", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A fixed run of slots and the link to the next run. */
    private static final class Segment {
        final Thread[] slots = new Thread[SEGMENT];
        @SuppressWarnings("unused") // accessed through NEXT
        volatile Segment next;
    }

    private final Segment first = new Segment();
    /** How many slots are claimed: lets a producer skip the scan when nobody is parked. */
    @SuppressWarnings("unused") // accessed through PARKED
    private volatile int parked;

    /**
     * Registers {@code me} in a free slot (the caller then fences, re-checks and parks).
     *
     * @return the slot, for {@link #leave}
     */
    int register(Thread me) {
        Segment s = first;
        int base = 0;
        while (true) {
            Thread[] slots = s.slots;
            for (int i = 0; i < SEGMENT; i++) {
                if (SLOT.getVolatile(slots, i) == null && SLOT.compareAndSet(slots, i, null, me)) {
                    PARKED.getAndAdd(this, 1);
                    return base + i;
                }
            }
            Segment next = (Segment) NEXT.getVolatile(s);
            if (next == null) {
                Segment fresh = new Segment();
                Segment witness = (Segment) NEXT.compareAndExchange(s, (Segment) null, fresh);
                next = witness == null ? fresh : witness;
            }
            s = next;
            base += SEGMENT;
        }
    }

    /** Frees the slot {@link #register} returned (called by the thread that registered, after its park). */
    void leave(int slot) {
        Segment s = first;
        for (int k = slot / SEGMENT; k > 0; k--) {
            s = (Segment) NEXT.getVolatile(s);
        }
        SLOT.setVolatile(s.slots, slot % SEGMENT, null);
        PARKED.getAndAdd(this, -1);
    }

    /** Unparks every registered thread (the caller fenced after its publish). Takes no lock. */
    void unparkAll() {
        if ((int) PARKED.getVolatile(this) == 0) {
            return;
        }
        for (Segment s = first; s != null; s = (Segment) NEXT.getVolatile(s)) {
            Thread[] slots = s.slots;
            for (int i = 0; i < SEGMENT; i++) {
                Thread t = (Thread) SLOT.getVolatile(slots, i);
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }
        }
    }
}
