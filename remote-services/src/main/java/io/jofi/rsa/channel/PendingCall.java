package io.jofi.rsa.channel;

import io.jofi.rsa.wire.ValueDecoder;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One call waiting for its reply: completed with the result, with the service's own exception
 * (exceptionally), or with a {@link org.osgi.framework.ServiceException} naming why no reply
 * can come (timeout, lost peer, refused argument, channel closed).
 */
public final class PendingCall extends CompletableFuture<Object> {
    /** Set once by {@link PendingCalls#add} before the call is visible to any other thread. */
    long id;
    final long peer;
    final long deadlineNanos;
    final Method method;
    final ValueDecoder decoder;
    final String peerName;

    PendingCall(long peer, String peerName, long deadlineNanos, Method method, ValueDecoder decoder) {
        this.peer = peer;
        this.peerName = peerName;
        this.deadlineNanos = deadlineNanos;
        this.method = method;
        this.decoder = decoder;
    }

    /** The synchronous caller parked in {@link #await}, woken by the completion. */
    private volatile Thread waiter;

    /**
     * Waits for the result as {@code get(timeout)} does, but parks the caller itself: the
     * completion unparks it, so a wait allocates no waiting node (the JDK's {@code get} does, per
     * call). The caller announces itself before its last look at the result, the completer
     * publishes the result before it looks for a waiter: no wake-up is lost.
     */
    public Object await(long timeoutNanos) throws InterruptedException, ExecutionException, TimeoutException {
        if (!isDone()) {
            long deadline = System.nanoTime() + timeoutNanos;
            waiter = Thread.currentThread();
            try {
                while (!isDone()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new TimeoutException();
                    }
                    LockSupport.parkNanos(this, left);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
            } finally {
                waiter = null;
            }
        }
        return get(); // done: no wait
    }

    @Override
    public boolean complete(Object value) {
        boolean done = super.complete(value);
        wake();
        return done;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        boolean done = super.completeExceptionally(failure);
        wake();
        return done;
    }

    private void wake() {
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    public Method method() {
        return method;
    }

    public long id() {
        return id;
    }
}
