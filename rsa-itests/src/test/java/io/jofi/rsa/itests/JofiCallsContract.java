package io.jofi.rsa.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every kind of call through JOFI's distribution provider between two forked containers over one
 * fabric provider (the subclass names it): the exporter exports the echo service with
 * {@code service.exported.configs=io.jofi} and {@code io.jofi.provider=...}, the importer learns
 * the endpoint from an endpoint file and calls.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JofiCallsContract {
    /** The call timeout the exported service carries ({@code io.jofi.rsa.timeout}). */
    static final long TIMEOUT_MILLIS = 3_000;

    private Container exporter;
    private Container importer;

    /** {@code tcp} or {@code shm}. */
    abstract String provider();

    /** {@code felix} or {@code equinox}. */
    String framework() {
        return "felix";
    }

    @BeforeAll
    void startContainers() throws Exception {
        Path work = Harness.workDirectory(getClass().getSimpleName());
        CompletableFuture<Container> startingImporter = CompletableFuture.supplyAsync(() -> start("importer", work));
        exporter = start("exporter", work);
        importer = startingImporter.join();
        exporter.call("export io.jofi io.jofi.provider=" + provider() + " io.jofi.rsa.timeout=" + TIMEOUT_MILLIS);
        Harness.discoverByFiles(exporter, importer, work);
        String imported = importer.call("imported 30000");
        assertTrue(imported.startsWith("configs=io.jofi"), imported);
    }

    @AfterAll
    void stopContainers() throws InterruptedException {
        if (importer != null) {
            importer.close();
        }
        if (exporter != null) {
            exporter.close();
        }
    }

    @Test
    void synchronousCallsReturnThePayload() {
        importer.call("echo 64 50");
        importer.call("echo 4096 20");
        importer.call("echo 0");
    }

    @Test
    void promiseAndFutureMethodsAreAsynchronous() {
        assertEquals("resolved", importer.call("promise 4096"));
        assertEquals("completed", importer.call("future 4096"));
    }

    @Test
    void theServicesExceptionArrivesAsItself() {
        String answer = importer.call("fail boom");
        assertTrue(answer.startsWith("threw") && answer.contains("io.jofi.rsa.itests.echo.EchoException: boom"), answer);
    }

    @Test
    void aSlowCallTimesOutWithARemoteServiceException() {
        String answer = importer.call("slow 10000");
        assertTrue(answer.startsWith("threw") && answer.contains("org.osgi.framework.ServiceException[type=5]"), answer);
        long elapsed = Long.parseLong(field(answer, "elapsedMs"));
        assertTrue(elapsed >= TIMEOUT_MILLIS - 100 && elapsed < TIMEOUT_MILLIS + 3_000, answer);
        importer.call("echo 64 5");
    }

    @Test
    void sixteenConcurrentCallersLoseNothing() {
        String answer = importer.call("load 16 3000 4096");
        assertEquals("0", field(answer, "failed"), answer);
        assertEquals("0", field(answer, "pending"), answer);
        assertTrue(Long.parseLong(field(answer, "succeeded")) > 16, answer);
    }

    @Test
    void oneMebibytePayloadsRoundTrip() {
        importer.call("echo 1048576 3");
    }

    @Test
    void aGadgetIsRefusedAndTheConnectionSurvives() {
        String answer = importer.call("gadget");
        assertTrue(answer.startsWith("threw") && answer.contains("ServiceException[type=5]"), answer);
        assertEquals("0", exporter.call("gadgets"), "the exporter deserialized the gadget");
        assertEquals("0", importer.call("gadgets"));
        importer.call("echo 64 5");
    }

    Container start(String name, Path work) {
        try {
            return Container.builder(name, work)
                    .framework(framework())
                    .bundles(Harness.concat(Harness.ariesCore(), Harness.jofi()))
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The value of {@code key=value} in an answer line. */
    static String field(String answer, String key) {
        for (String word : answer.split(" ")) {
            if (word.startsWith(key + "=")) {
                return word.substring(key.length() + 1);
            }
        }
        throw new AssertionError("no " + key + " in " + answer);
    }

    static Map<String, String> fields(String answer) {
        Map<String, String> all = new java.util.HashMap<>();
        for (String word : answer.split(" ")) {
            int equals = word.indexOf('=');
            if (equals > 0) {
                all.put(word.substring(0, equals), word.substring(equals + 1));
            }
        }
        return all;
    }
}
