package io.jofi.rsa.itests.agent;

import java.util.concurrent.CompletableFuture;

import org.osgi.util.promise.Promise;
import org.osgi.util.promise.PromiseFactory;

import io.jofi.rsa.itests.echo.EchoException;
import io.jofi.rsa.itests.echo.EchoService;

/**
 * The exported echo service: answers with what it was given, late, or with an exception. Public:
 * Aries' tcp provider invokes the implementation class's methods reflectively.
 */
public final class EchoServiceImpl implements EchoService {
    private final PromiseFactory promises = new PromiseFactory(null);

    @Override
    public byte[] echo(byte[] payload) {
        return payload;
    }

    @Override
    public Promise<byte[]> echoPromise(byte[] payload) {
        return promises.resolved(payload);
    }

    @Override
    public CompletableFuture<byte[]> echoFuture(byte[] payload) {
        return CompletableFuture.completedFuture(payload);
    }

    @Override
    public void fail(String message) throws EchoException {
        throw new EchoException(message);
    }

    @Override
    public byte[] slow(byte[] payload, long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return payload;
    }

    @Override
    public String inspect(Object value) {
        return value == null ? "null" : value.getClass().getName();
    }
}
