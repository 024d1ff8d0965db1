package io.jofi.rsa.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A killed peer: four callers wait in calls the exporter holds for 30 s (the call timeout is
 * 60 s), the exporter's JVM gets SIGKILL, and every pending call fails with a remote
 * ServiceException well before its timeout — within the provider's detection bound.
 */
class PeerKilledIT {
    /** How long after the kill the last pending call may still be waiting. */
    static final long DETECTION_BOUND_MILLIS = 10_000;

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void pendingCallsFailSoonAfterTheExporterIsKilled(String provider) throws Exception {
        Path work = Harness.workDirectory("PeerKilledIT-" + provider);
        CompletableFuture<Container> startingImporter = CompletableFuture.supplyAsync(() -> start("importer", work));
        try (Container exporter = start("exporter", work); Container importer = startingImporter.join()) {
            exporter.call("export io.jofi io.jofi.provider=" + provider + " io.jofi.rsa.timeout=60000");
            Harness.discoverByFiles(exporter, importer, work);
            importer.call("imported 30000");
            importer.call("echo 64 5");

            CompletableFuture<String> pending = importer.callAsync("pending 4 30000", 120_000);
            TimeUnit.MILLISECONDS.sleep(1_500);
            long killed = System.currentTimeMillis();
            exporter.kill();
            String answer = pending.get(60, TimeUnit.SECONDS);

            Map<String, String> counts = JofiCallsContract.fields(answer);
            assertEquals("4", counts.get("failed"), answer);
            assertEquals("0", counts.get("pending"), answer);
            assertTrue(answer.contains("ServiceException[type=5]"), answer);
            long detected = Long.parseLong(counts.get("lastDoneEpochMs")) - killed;
            assertTrue(detected < DETECTION_BOUND_MILLIS, "the last pending call failed " + detected + " ms after the kill: " + answer);
        }
    }

    private static Container start(String name, Path work) {
        try {
            return Container.builder(name, work)
                    .bundles(Harness.concat(Harness.ariesCore(), Harness.jofi()))
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
