package io.jofi.rsa.channel;

import io.jofi.rsa.wire.ValueDecoder;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;

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

    public Method method() {
        return method;
    }

    public long id() {
        return id;
    }
}
