package io.jofi.rsa.channel;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongPredicate;

/**
 * The calls of one channel that wait for a reply, by call id: a reply takes its call out and
 * completes it; the sweep fails calls past their deadline; a lost peer or a closed channel
 * fails every call concerned. A call leaves the table exactly once, so it completes once.
 */
final class PendingCalls {
    private final ConcurrentHashMap<Long, PendingCall> calls = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    long nextId() {
        return ids.incrementAndGet();
    }

    void add(PendingCall call) {
        calls.put(call.id, call);
    }

    /** Takes the call out, or {@code null} when it already completed (a late reply). */
    PendingCall remove(long id) {
        return calls.remove(id);
    }

    PendingCall peek(long id) {
        return calls.get(id);
    }

    boolean isEmpty() {
        return calls.isEmpty();
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

    /** Calls {@code each} with the peer of every waiting call (peers may repeat). */
    void forEachPeer(LongPredicate each) {
        for (PendingCall call : calls.values()) {
            if (!each.test(call.peer)) {
                return;
            }
        }
    }

    private void failIf(java.util.function.Predicate<PendingCall> test, Function<PendingCall, Throwable> why) {
        for (Iterator<PendingCall> it = calls.values().iterator(); it.hasNext(); ) {
            PendingCall call = it.next();
            if (test.test(call) && calls.remove(call.id, call)) {
                call.completeExceptionally(why.apply(call));
            }
        }
    }
}
