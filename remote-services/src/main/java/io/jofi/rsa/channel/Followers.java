package io.jofi.rsa.channel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The threads of one channel that wait to read its CQ next (leader/followers): a leader that
 * hands the CQ over wakes one of them directly — no queue node, no executor submission, nothing
 * allocated. At most {@link #MAX_WAITING} wait; other threads go back to the executor's pool.
 *
 * <p>A lock-free stack: followers push themselves, and only the leader of the moment pops (one
 * popper, so a node cannot come back between its read and the compare-and-set); the close wakes
 * every follower at once, after which the stack is never used again.
 */
final class Followers {
    /** Followers kept waiting: one is enough to take over at once, the second covers a burst. */
    static final int MAX_WAITING = 2;
    /** A waiting follower looks at the channel's state this often (a close it missed). */
    private static final long RECHECK_NANOS = 100_000_000L;

    private static final int WAITING = 0;
    private static final int PROMOTED = 1;
    /** Woken by the close: not a promotion (no leader term was counted for it). */
    private static final int RELEASED = 2;

    private static final class Follower {
        final Thread thread = Thread.currentThread();
        volatile int state;
        Follower next;
    }

    private final AtomicReference<Follower> top = new AtomicReference<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final ThreadLocal<Follower> own = ThreadLocal.withInitial(Follower::new);

    /** Wakes one waiting follower to lead (called by the leader only); false when none waits. */
    boolean promote() {
        Follower f;
        do {
            f = top.get();
            if (f == null) {
                return false;
            }
        } while (!top.compareAndSet(f, f.next));
        waiting.decrementAndGet();
        f.next = null;
        f.state = PROMOTED;
        LockSupport.unpark(f.thread);
        return true;
    }

    /**
     * The calling thread waits to lead. Returns true when promoted, false at once when enough
     * threads wait already, or when {@code closing} turns true while it waits.
     */
    boolean await(BooleanSupplier closing) {
        if (closing.getAsBoolean() || waiting.incrementAndGet() > MAX_WAITING) {
            waiting.decrementAndGet();
            return false;
        }
        Follower me = own.get();
        me.state = WAITING;
        Follower t;
        do {
            t = top.get();
            me.next = t;
        } while (!top.compareAndSet(t, me));
        int state;
        while ((state = me.state) == WAITING) {
            if (closing.getAsBoolean()) {
                return false; // the channel is gone: a late promotion of this node leads nothing
            }
            LockSupport.parkNanos(this, RECHECK_NANOS);
        }
        return state == PROMOTED;
    }

    /** The channel closes: every waiting follower wakes (and finds the channel closed). */
    void wakeAll() {
        for (Follower f = top.getAndSet(null); f != null; f = f.next) {
            f.state = RELEASED;
            LockSupport.unpark(f.thread);
        }
    }
}
