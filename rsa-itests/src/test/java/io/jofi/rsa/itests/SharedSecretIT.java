package io.jofi.rsa.itests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The optional shared secret ({@code io.jofi.rsa.secret}): an importer configured with the wrong
 * secret gets no call through (a remote ServiceException) and the exporter counts it as refused;
 * once the importer is configured with the right secret, the same container calls successfully.
 */
class SharedSecretIT {
    private static final String PID = "io.jofi.rsa";
    private static final String DISTRIBUTION_PROVIDER = "org.apache.aries.rsa.spi.DistributionProvider";

    @Test
    void aWrongSecretIsRefusedAndCountedTheRightOneCalls() throws Exception {
        Path work = Harness.workDirectory("SharedSecretIT");
        CompletableFuture<Container> startingImporter = CompletableFuture.supplyAsync(() -> start("importer", work, "not-the-secret"));
        try (Container exporter = start("exporter", work, "the-secret"); Container importer = startingImporter.join()) {
            exporter.call("export io.jofi io.jofi.provider=tcp io.jofi.rsa.timeout=5000");
            Harness.discoverByFiles(exporter, importer, work);
            importer.call("imported 30000");

            String refused = importer.call("slow 0");
            assertTrue(refused.startsWith("threw") && refused.contains("ServiceException[type=5]"), refused);
            String counted = exporter.call("service-property " + DISTRIBUTION_PROVIDER + " io.jofi.rsa.refused.importers");
            assertTrue(Long.parseLong(counted) >= 1, "refused importers counted: " + counted);

            importer.call("config " + PID + " io.jofi.rsa.secret=the-secret");
            String answer = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                answer = importer.call("slow 0");
                if (answer.startsWith("returned")) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(250);
            }
            assertTrue(answer.startsWith("returned"), "with the right secret: " + answer);
            importer.call("echo 4096 10");
        }
    }

    private static Container start(String name, Path work, String secret) {
        try {
            return Container.builder(name, work)
                    .config(PID, "io.jofi.rsa.secret", secret)
                    .bundles(Harness.concat(Harness.ariesCore(), Harness.jofi()))
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
