package io.jofi.rsa.itests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/**
 * The remote-services example of {@code examples/} as a user runs it: the examples bundle in two
 * containers, configured as store (exports {@code KeyValueStore} over JOFI shm) and as client
 * (calls the imported store when it appears and prints what it read back).
 */
class ExamplePairIT {

    @Test
    void theClientContainerCallsTheStoreContainer() throws Exception {
        Path work = Harness.workDirectory("ExamplePairIT");
        List<Path> bundles = Harness.concat(Harness.ariesCore(), Harness.jofi(), Harness.bundles("examples"));
        CompletableFuture<Container> startingClient = CompletableFuture.supplyAsync(() -> start(
                Container.builder("client", work).config("io.jofi.examples.rsa.client", "text", "hello from the client"),
                bundles));
        try (Container store = start(Container.builder("store", work).config("io.jofi.examples.rsa.store", "io.jofi.provider", "shm"),
                bundles); Container client = startingClient.join()) {
            Path endpoints = work.resolve("store-endpoints");
            store.call("endpoints " + endpoints + " io.jofi.examples.rsa.KeyValueStore");
            client.call("install " + Harness.endpointBundle(endpoints, "jofi.rsa.endpoints.store"));
            String line = client.awaitOutput("kv-client:", 30_000);
            assertTrue(line.contains("get(greeting) = hello from the client; keys = [greeting]"), line);
        }
    }

    private static Container start(Container.Builder builder, List<Path> bundles) {
        try {
            return builder.bundles(bundles).start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
