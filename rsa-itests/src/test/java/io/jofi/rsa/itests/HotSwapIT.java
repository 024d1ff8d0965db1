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
 * Hot swap under load: 16 callers run in the importer while the JOFI fabric provider bundle under
 * the exporter is stopped and started again. Every call issued ends, succeeded or failed with a
 * remote ServiceException (none pending), and calls succeed again once the provider is back,
 * with no container restarted. Discovery is Aries' ZooKeeper discovery, so the importer learns the
 * new endpoint the exporter publishes after the swap.
 */
class HotSwapIT {

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void stoppingAndStartingTheFabricProviderUnderLoadLosesNothing(String provider) throws Exception {
        Path work = Harness.workDirectory("HotSwapIT-" + provider);
        try (ZooKeeperServer zookeeper = ZooKeeperServer.start("127.0.0.1", Harness.freePort(), work.resolve("zookeeper"), null)) {
            CompletableFuture<Container> startingImporter = CompletableFuture.supplyAsync(() -> start("importer", work, zookeeper));
            try (Container exporter = start("exporter", work, zookeeper); Container importer = startingImporter.join()) {
                exporter.call("export io.jofi io.jofi.provider=" + provider + " io.jofi.rsa.timeout=2000");
                importer.call("imported 30000");
                importer.call("echo 64 10");

                CompletableFuture<String> load = importer.callAsync("load 16 10000 1024", 120_000);
                TimeUnit.MILLISECONDS.sleep(2_000);
                exporter.call("stop io.jofi.provider." + provider);
                TimeUnit.MILLISECONDS.sleep(1_500);
                exporter.call("start io.jofi.provider." + provider);
                String answer = load.get(120, TimeUnit.SECONDS);

                Map<String, String> counts = JofiCallsContract.fields(answer);
                assertEquals("0", counts.get("pending"), answer);
                assertEquals(Long.parseLong(counts.get("issued")),
                        Long.parseLong(counts.get("succeeded")) + Long.parseLong(counts.get("failed")), answer);
                assertEquals("true", counts.get("recovered"), answer);
                String failures = answer.substring(answer.indexOf("failures=") + "failures=".length());
                if (!"{}".equals(failures)) {
                    for (String failure : failures.substring(1, failures.length() - 1).split(", (?=[a-z]+\\.)")) {
                        assertTrue(failure.startsWith("org.osgi.framework.ServiceException[type=5]"), answer);
                    }
                }
                importer.call("imported 30000");
                importer.call("echo 64 10");
            }
        }
    }

    private static Container start(String name, Path work, ZooKeeperServer zookeeper) {
        try {
            return zookeeper.configure(Container.builder(name, work))
                    .bundles(Harness.concat(Harness.ariesCore(), Harness.zookeeperDiscovery(), Harness.jofi()))
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
