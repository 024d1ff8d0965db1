package io.jofi.rsa;

import io.jofi.rsa.channel.FabricChannel;
import io.jofi.rsa.channel.PendingCall;
import io.jofi.rsa.channel.PeerLink;
import io.jofi.rsa.wire.AdmittedTypes;
import io.jofi.rsa.wire.MethodTable;
import io.jofi.rsa.wire.ValueDecoder;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import org.osgi.framework.ServiceException;
import org.osgi.util.promise.Deferred;
import org.osgi.util.promise.Promise;

/**
 * The invocation handler behind an imported service's proxy: numbers the method, sends the
 * call over the channel and either blocks for the reply (bounded by the timeout) or, for
 * methods returning {@code Promise}, {@code CompletionStage}/{@code CompletableFuture} or
 * {@code Future}, returns at once with a future the reply completes (on another thread than
 * the channel's progress thread, so callbacks may block).
 */
final class RemoteServiceProxy implements InvocationHandler {
    private enum Shape { SYNC, PROMISE, STAGE, FUTURE }

    private final FabricChannel channel;
    private final PeerLink link;
    private final long service;
    private final MethodTable methods;
    private final Shape[] shapes;
    private final ValueDecoder decoder;
    private final long timeoutMillis;
    private final String name;
    private final Executor callbacks = ForkJoinPool.commonPool();

    RemoteServiceProxy(FabricChannel channel, PeerLink link, long service, Class<?>[] interfaces, ClassLoader loader,
                       long timeoutMillis, String name) {
        this.channel = channel;
        this.link = link;
        this.service = service;
        this.methods = new MethodTable(interfaces);
        this.shapes = new Shape[methods.size()];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = shapeOf(methods.method(i).getReturnType());
        }
        this.decoder = new ValueDecoder(loader, new AdmittedTypes(interfaces));
        this.timeoutMillis = timeoutMillis;
        this.name = name;
    }

    private static Shape shapeOf(Class<?> type) {
        if (Promise.class.isAssignableFrom(type)) {
            return Shape.PROMISE;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            return Shape.STAGE;
        }
        if (Future.class.isAssignableFrom(type)) {
            return Shape.FUTURE;
        }
        return Shape.SYNC;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        int index = methods.indexOf(method);
        if (index < 0) {
            return local(proxy, method, args);
        }
        switch (shapes[index]) {
            case PROMISE: {
                Deferred<Object> deferred = new Deferred<>();
                CompletableFuture<Object> settled = callAsync(index, method, args);
                settled.whenComplete((value, failure) -> {
                    if (failure == null) {
                        deferred.resolve(value);
                    } else {
                        deferred.fail(failure);
                    }
                });
                return deferred.getPromise();
            }
            case STAGE:
            case FUTURE:
                return callAsync(index, method, args);
            default:
                return callAndWait(index, method, args);
        }
    }

    /** The future the caller asked for, completed on {@link #callbacks} (never the channel's progress thread). */
    private CompletableFuture<Object> callAsync(int index, Method method, Object[] args) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        channel.caller().callAsync(new PendingCall(result, callbacks), link, service, index, methods.signature(index), args,
                method, decoder, timeoutMillis);
        return result;
    }

    private Object callAndWait(int index, Method method, Object[] args) throws Throwable {
        try {
            return channel.caller().callAndWait(link, service, index, methods.signature(index), args, method, decoder,
                    timeoutMillis);
        } catch (TimeoutException e) {
            throw new ServiceException("no reply from " + name + " to " + method.getName() + " within " + timeoutMillis
                    + " ms", ServiceException.REMOTE, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServiceException("interrupted while waiting for " + method.getName(), ServiceException.REMOTE, e);
        } catch (ExecutionException e) {
            Throwable thrown = e.getCause();
            if (thrown instanceof RuntimeException || thrown instanceof Error || declares(method, thrown)) {
                throw thrown;
            }
            throw new ServiceException("the remote " + method.getName() + " threw an undeclared " + thrown,
                    ServiceException.REMOTE, thrown);
        }
    }

    private static boolean declares(Method method, Throwable thrown) {
        for (Class<?> type : method.getExceptionTypes()) {
            if (type.isInstance(thrown)) {
                return true;
            }
        }
        return false;
    }

    private Object local(Object proxy, Method method, Object[] args) {
        switch (method.getName()) {
            case "equals":
                return args != null && args.length == 1 && proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            case "toString":
                return "proxy of " + name;
            default:
                throw new ServiceException(method + " is not a method of the imported interfaces", ServiceException.REMOTE);
        }
    }
}
