package io.jofi.rsa.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/**
 * The harness proven on Aries' own transport: two forked Felix containers export an echo service
 * over {@code aries.tcp}, learn each other's endpoints from endpoint files
 * ({@code discovery.local}) and call each other, every kind of call.
 */
class AriesTcpIT {

    @Test
    void twoContainersCallEachOtherOverAriesTcp() throws Exception {
        Path work = Harness.workDirectory("AriesTcpIT");
        CompletableFuture<Container> startingB = CompletableFuture.supplyAsync(() -> start("b", work));
        try (Container a = start("a", work); Container b = startingB.join()) {
            a.call("export aries.tcp aries.rsa.hostname=127.0.0.1 aries.rsa.port=" + Harness.freePort());
            b.call("export aries.tcp aries.rsa.hostname=127.0.0.1 aries.rsa.port=" + Harness.freePort());
            Harness.discoverByFiles(a, b, work);
            Harness.discoverByFiles(b, a, work);

            for (Container caller : new Container[] {a, b}) {
                assertTrue(caller.call("imported 30000").startsWith("configs=aries.tcp"), caller.name());
                caller.call("echo 64 20");
                caller.call("echo 1048576");
                assertEquals("resolved", caller.call("promise 4096"));
                assertEquals("completed", caller.call("future 4096"));
                String failed = caller.call("fail boom");
                assertTrue(failed.contains("io.jofi.rsa.itests.echo.EchoException: boom"), failed);
            }
        }
    }

    private static Container start(String name, Path work) {
        try {
            return Container.builder(name, work)
                    .bundles(Harness.concat(Harness.ariesCore(), Harness.ariesTcp()))
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
