package io.jofi.rsa.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/**
 * Discovery across hosts: the exporter runs in network namespace {@code jofi-rsa-a}
 * (198.18.0.1), the importer in {@code jofi-rsa-b} (198.18.0.2), joined only by a veth pair; each
 * binds its JOFI tcp endpoint to its own address ({@code io.jofi.rsa.node}). The importer finds
 * the service through Aries' ZooKeeper discovery (the ZooKeeper server runs in namespace a) or
 * through endpoint files, and calls it over tcp. Skipped with the reason where the machine cannot
 * make namespaces.
 */
class NamespaceDiscoveryIT {
    private static final int ZOOKEEPER_PORT = 2181;

    @Test
    void zookeeperDiscoveryFindsTheServiceAcrossNamespaces() throws Exception {
        Path work = Harness.workDirectory("NamespaceDiscoveryIT-zookeeper");
        try (NetworkNamespaces namespaces = NetworkNamespaces.create();
                ZooKeeperServer zookeeper = ZooKeeperServer.start(NetworkNamespaces.ADDRESS_A, ZOOKEEPER_PORT,
                        work.resolve("zookeeper"), NetworkNamespaces.A)) {
            List<Path> bundles = Harness.concat(Harness.ariesCore(), Harness.zookeeperDiscovery(), Harness.jofi());
            CompletableFuture<Container> startingImporter = CompletableFuture.supplyAsync(() -> start(
                    zookeeper.configure(Container.builder("importer", work)), bundles, NetworkNamespaces.B, NetworkNamespaces.ADDRESS_B));
            try (Container exporter = start(zookeeper.configure(Container.builder("exporter", work)), bundles,
                    NetworkNamespaces.A, NetworkNamespaces.ADDRESS_A);
                    Container importer = startingImporter.join()) {
                callAcross(exporter, importer);
            }
        }
    }

    @Test
    void endpointFilesFindTheServiceAcrossNamespaces() throws Exception {
        Path work = Harness.workDirectory("NamespaceDiscoveryIT-files");
        try (NetworkNamespaces namespaces = NetworkNamespaces.create()) {
            List<Path> bundles = Harness.concat(Harness.ariesCore(), Harness.jofi());
            CompletableFuture<Container> startingImporter = CompletableFuture.supplyAsync(() -> start(
                    Container.builder("importer", work), bundles, NetworkNamespaces.B, NetworkNamespaces.ADDRESS_B));
            try (Container exporter = start(Container.builder("exporter", work), bundles, NetworkNamespaces.A,
                    NetworkNamespaces.ADDRESS_A);
                    Container importer = startingImporter.join()) {
                exporter.call("export io.jofi io.jofi.provider=tcp");
                Harness.discoverByFiles(exporter, importer, work);
                assertTrue(importer.call("imported 30000").startsWith("configs=io.jofi"));
                importer.call("echo 64 20");
                importer.call("echo 1048576 2");
            }
        }
    }

    private static void callAcross(Container exporter, Container importer) {
        exporter.call("export io.jofi io.jofi.provider=tcp");
        assertTrue(importer.call("imported 30000").startsWith("configs=io.jofi"));
        importer.call("echo 64 20");
        importer.call("echo 1048576 2");
        String load = importer.call("load 16 2000 4096");
        assertEquals("0", JofiCallsContract.field(load, "failed"), load);
        assertEquals("0", JofiCallsContract.field(load, "pending"), load);
    }

    private static Container start(Container.Builder builder, List<Path> bundles, String namespace, String address) {
        try {
            return builder.namespace(namespace)
                    .config("io.jofi.rsa", "io.jofi.rsa.node", address)
                    .bundles(bundles)
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
