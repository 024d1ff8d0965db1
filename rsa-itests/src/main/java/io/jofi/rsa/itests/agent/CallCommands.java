package io.jofi.rsa.itests.agent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.osgi.util.promise.Promise;

import io.jofi.rsa.itests.echo.EchoException;
import io.jofi.rsa.itests.echo.Gadget;

/**
 * Single calls through the imported echo proxy. Each answers what happened, so the test decides:
 * {@code returned ...} or {@code threw <description>} with the elapsed milliseconds.
 */
final class CallCommands {
    private final ImportedEcho echo;

    CallCommands(ImportedEcho echo) {
        this.echo = echo;
    }

    /** {@code echo SIZE [COUNT]}: COUNT synchronous calls; answers the mean microseconds per call. */
    String echo(String[] arguments) {
        byte[] payload = Payloads.of(Integer.parseInt(arguments[0]));
        int count = arguments.length > 1 ? Integer.parseInt(arguments[1]) : 1;
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            Payloads.check(payload, echo.current().echo(payload));
        }
        return "calls=" + count + " meanUs=" + (System.nanoTime() - start) / 1000 / count;
    }

    /** {@code promise SIZE}: one call returning an OSGi promise, which must resolve to the payload. */
    String promise(String[] arguments) throws Exception {
        byte[] payload = Payloads.of(Integer.parseInt(arguments[0]));
        Promise<byte[]> result = echo.current().echoPromise(payload);
        Payloads.check(payload, result.timeout(60_000).getValue());
        return "resolved";
    }

    /** {@code future SIZE}: one call returning a CompletableFuture, which must complete with the payload. */
    String future(String[] arguments) throws Exception {
        byte[] payload = Payloads.of(Integer.parseInt(arguments[0]));
        CompletableFuture<byte[]> result = echo.current().echoFuture(payload);
        Payloads.check(payload, result.get(60, TimeUnit.SECONDS));
        return "completed";
    }

    /** {@code fail MESSAGE}: the service throws; answers the exception that arrived. */
    String fail(String[] arguments) {
        long start = System.nanoTime();
        try {
            echo.current().fail(arguments[0]);
            return "returned";
        } catch (EchoException | RuntimeException e) {
            return threw(e, start);
        }
    }

    /** {@code slow MILLIS}: the service sleeps MILLIS; answers whether the call returned or how it failed. */
    String slow(String[] arguments) {
        byte[] payload = Payloads.of(16);
        long start = System.nanoTime();
        try {
            Payloads.check(payload, echo.current().slow(payload, Long.parseLong(arguments[0])));
            return "returned elapsedMs=" + (System.nanoTime() - start) / 1_000_000;
        } catch (RuntimeException e) {
            return threw(e, start);
        }
    }

    /** {@code gadget}: sends a {@link Gadget}; answers whether the call returned or how it failed. */
    String gadget() {
        long start = System.nanoTime();
        try {
            return "returned " + echo.current().inspect(new Gadget());
        } catch (RuntimeException e) {
            return threw(e, start);
        }
    }

    /** {@code gadgets}: how many gadgets this container deserialized (zero where a filter works). */
    String gadgetsRead() {
        return Integer.toString(Gadget.READS.get());
    }

    private static String threw(Exception e, long start) {
        return "threw elapsedMs=" + (System.nanoTime() - start) / 1_000_000 + " " + Failure.describe(e);
    }
}
