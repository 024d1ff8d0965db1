package io.jofi.rsa.channel;

import io.jofi.rsa.wire.ValueDecoder;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * One call waiting for its reply, settled once with the result, with the service's own exception,
 * or with a {@link org.osgi.framework.ServiceException} naming why no reply can come (timeout,
 * lost peer, refused argument, channel closed).
 *
 * <p>A synchronous caller keeps one of these per thread and reuses it call after call (a call
 * allocates no waiter); an asynchronous call gets its own, which settles the future the caller
 * was handed. Whoever settles a call first <em>claims</em> it by its id (a compare-and-set from
 * that id): a reply, a timeout or a failure that comes for an earlier use of the object finds
 * another id and changes nothing, so it can never settle a later call.
 */
public final class PendingCall {
    /** {@link #state} while the object waits for no call. */
    private static final long IDLE = 0;
    /** {@link #state} once a settler (or the timed-out caller) took the call. */
    private static final long CLAIMED = -1;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PendingCall.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The id of the current (or last) use; set by {@link PendingCalls#add} before the call is visible. */
    long id;
    long peer;
    long deadlineNanos;
    Method method;
    ValueDecoder decoder;
    String peerName;

    /** The id the call waits under, {@link #CLAIMED} once taken, {@link #IDLE} before its first use. */
    private volatile long state = IDLE;
    /** The id whose outcome {@link #value}/{@link #failure} hold: written last, read first. */
    private volatile long settled = IDLE;
    private Object value;
    private Throwable failure;
    /** The synchronous caller parked in {@link #awaitSettled}. */
    private volatile Thread waiter;

    /** For an asynchronous call: the future the caller holds, settled on {@link #callbacks}. */
    private final CompletableFuture<Object> future;
    private final Executor callbacks;

    /** A reusable waiter for synchronous calls. */
    PendingCall() {
        this(null, null);
    }

    /** A call whose outcome settles {@code future} on {@code callbacks} (never on the progress thread). */
    public PendingCall(CompletableFuture<Object> future, Executor callbacks) {
        this.future = future;
        this.callbacks = callbacks;
    }

    /** Readies the object for a new call; only its owner calls this, and only once the last use settled. */
    void prepare(long peer, String peerName, long deadlineNanos, Method method, ValueDecoder decoder) {
        this.peer = peer;
        this.peerName = peerName;
        this.deadlineNanos = deadlineNanos;
        this.method = method;
        this.decoder = decoder;
        this.value = null;
        this.failure = null;
    }

    /** Makes the call wait under {@code id} (before it enters the table). */
    void arm(long id) {
        this.id = id;
        this.state = id;
    }

    /** Takes the call waiting under {@code id}; false when another took it first or the object moved on. */
    boolean claim(long id) {
        return STATE.compareAndSet(this, id, CLAIMED);
    }

    /** True while the object serves a call that has not settled (its owner must not reuse it). */
    boolean busy() {
        long s = state;
        return s != IDLE && settled != id;
    }

    /** Settles the claimed call with its result. */
    void complete(Object result) {
        settle(result, null);
    }

    /** Settles the claimed call with a failure. */
    void completeExceptionally(Throwable why) {
        settle(null, why);
    }

    private void settle(Object result, Throwable why) {
        value = result;
        failure = why;
        settled = id; // publishes value and failure
        if (future != null) {
            callbacks.execute(why == null ? () -> future.complete(result) : () -> future.completeExceptionally(why));
            return;
        }
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Parks the caller until the call settles, {@code deadlineNanos} (a {@link System#nanoTime}
     * value) passes or the caller is interrupted (the flag stays set): true when it settled. The caller announces itself before its last look at
     * {@link #settled}, a settler publishes before it looks for the waiter: no wake-up is lost.
     */
    boolean awaitSettled(long deadlineNanos) {
        long me = id;
        if (settled == me) {
            return true;
        }
        waiter = Thread.currentThread();
        try {
            while (settled != me) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.currentThread().isInterrupted()) {
                    return settled == me;
                }
            }
            return true;
        } finally {
            waiter = null;
        }
    }

    /**
     * Waits, without bound, for a call another thread claimed: its claimer settles it right after
     * (a reply's value is decoded in between, so the caller parks rather than spins).
     */
    void awaitClaimed() {
        long me = id;
        waiter = Thread.currentThread();
        try {
            while (settled != me) {
                LockSupport.park(this);
            }
        } finally {
            waiter = null;
        }
    }

    /** The settled call's result, or its failure as the cause of an {@link ExecutionException}. */
    Object outcome() throws ExecutionException {
        if (failure != null) {
            throw new ExecutionException(failure);
        }
        return value;
    }

    public Method method() {
        return method;
    }

    public long id() {
        return id;
    }
}
