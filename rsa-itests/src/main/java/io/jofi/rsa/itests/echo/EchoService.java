package io.jofi.rsa.itests.echo;

import java.util.concurrent.CompletableFuture;

import org.osgi.util.promise.Promise;

/**
 * The service the tests export from one container and call from another: every kind of remote
 * call a distribution provider must carry (synchronous, the two asynchronous return types, a
 * declared exception, a slow call for timeouts, an arbitrary object for the deserialization
 * filter).
 *
 * <p>Method names are unique: Aries' own tcp provider finds the method by name alone.
 */
public interface EchoService {

    /** Returns {@code payload} unchanged. */
    byte[] echo(byte[] payload);

    /** Returns {@code payload} unchanged through an OSGi promise (the {@code osgi.async} intent). */
    Promise<byte[]> echoPromise(byte[] payload);

    /** Returns {@code payload} unchanged through a {@link CompletableFuture}. */
    CompletableFuture<byte[]> echoFuture(byte[] payload);

    /** Always throws {@link EchoException} with {@code message}: the exception must arrive as itself. */
    void fail(String message) throws EchoException;

    /** Sleeps {@code millis}, then returns {@code payload}: a call that outlives a timeout or its peer. */
    byte[] slow(byte[] payload, long millis);

    /**
     * Accepts any object and returns its class name: the path a peer could abuse to send a
     * deserialization gadget.
     */
    String inspect(Object value);
}
