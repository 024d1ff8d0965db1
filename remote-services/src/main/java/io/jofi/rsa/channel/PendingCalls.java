package io.jofi.rsa.channel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * The calls of one channel that wait for a reply, by call id: a reply takes its call out and
 * completes it; the sweep fails calls past their deadline; a lost peer or a closed channel
 * fails every call concerned. A call leaves the table exactly once: whoever takes it first
 * claims it by its id ({@link PendingCall#claim}) and only then empties its slot, so it settles
 * once, and a taker that comes for an older use of a reused call object finds nothing.
 *
 * <p>The table is an array indexed by the id's low bits: adding and removing allocate nothing
 * and take no lock. An id whose slot is still held by an older call (one that waits longer
 * than {@link #SLOTS} later calls took) is skipped for the next free one.
 */
final class PendingCalls {
    /** Calls that may wait at once; a power of two. */
    static final int SLOTS = 1 << 14;
    private static final int MASK = SLOTS - 1;

    private final AtomicReferenceArray<PendingCall> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();

    /** An id for a handshake: never in the table, so it may share the id space. */
    long nextId() {
        return ids.incrementAndGet();
    }

    /**
     * Gives {@code call} an id whose slot is free and puts it there.
     *
     * @throws IllegalStateException when {@link #SLOTS} calls wait already
     */
    void add(PendingCall call) {
        if (waiting.incrementAndGet() > SLOTS) {
            waiting.decrementAndGet();
            throw new IllegalStateException(SLOTS + " calls wait for replies on this channel already");
        }
        while (true) {
            long id = ids.incrementAndGet();
            int index = (int) (id & MASK);
            if (slots.get(index) == null) {
                call.arm(id); // published by the compare-and-set below
                if (slots.compareAndSet(index, null, call)) {
                    return;
                }
            }
        }
    }

    /**
     * Takes the call waiting under {@code id} out and claims it for the taker, who must settle it;
     * {@code null} when it was taken before (a late reply, a second failure).
     */
    PendingCall take(long id) {
        int index = (int) (id & MASK);
        PendingCall call = slots.get(index);
        if (call == null || !call.claim(id)) {
            return null;
        }
        // claimed under id: the object waits under id, so it is the one in slot index, and only
        // the claimer empties the slot
        slots.set(index, null);
        waiting.decrementAndGet();
        return call;
    }

    PendingCall peek(long id) {
        PendingCall call = slots.get((int) (id & MASK));
        return call != null && call.id == id ? call : null;
    }

    boolean isEmpty() {
        return waiting.get() == 0;
    }

    /** Fails every call past its deadline with the failure {@code why} makes for it. */
    void expire(long nowNanos, Function<PendingCall, Throwable> why) {
        failIf(call -> nowNanos - call.deadlineNanos >= 0, why);
    }

    /** Fails every call towards {@code peer}. */
    void failPeer(long peer, Function<PendingCall, Throwable> why) {
        failIf(call -> call.peer == peer, why);
    }

    void failAll(Function<PendingCall, Throwable> why) {
        failIf(call -> true, why);
    }

    /** Calls {@code each} with the peer of every waiting call (peers may repeat) until it answers false. */
    void forEachPeer(LongPredicate each) {
        if (isEmpty()) {
            return;
        }
        for (int i = 0; i < SLOTS; i++) {
            PendingCall call = slots.get(i);
            if (call != null && !each.test(call.peer)) {
                return;
            }
        }
    }

    private void failIf(Predicate<PendingCall> test, Function<PendingCall, Throwable> why) {
        if (isEmpty()) {
            return;
        }
        for (int i = 0; i < SLOTS; i++) {
            PendingCall call = slots.get(i);
            if (call == null) {
                continue;
            }
            long id = call.id;
            if ((id & MASK) == i && test.test(call) && take(id) == call) {
                call.completeExceptionally(why.apply(call));
            }
        }
    }
}
