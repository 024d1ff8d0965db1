package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jofi.Fabrics;
import io.jofi.internal.FabricsRegistry;
import io.jofi.rsa.channel.ChannelSettings;
import io.jofi.spi.FabricProvider;
import java.time.Duration;
import java.util.Map;
import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Remote-services calls over verbs between two JVMs: an exporter in a JVM of its own
 * ({@link ExporterProcess}) and the importer here, both bound to the verbs device's address, in
 * the soft-RoCE guest ({@code provider-verbs/vm/ci} runs it there with {@code run-tests}). A 64 B
 * echo, a string call and a 1 MiB echo (by RMA rendezvous) must come back intact within 120 s
 * (the exporter JVM's start under the emulator comes first and is bounded by the test's timeout).
 *
 * <p>Skipped, with a message, outside the VM ({@code -Djofi.verbs.vm=true} unset) and where no
 * verbs provider answers {@code getInfo}. The node is {@code jofi.rsa.verbs.node} (default the
 * guest's {@code eth0}, 10.0.2.15, which carries rxe0): rdma_cm routes nothing through loopback.
 */
class VerbsEchoVmTest {
    private static long seconds(long since) {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since);
    }

    /**
     * A registry with the verbs provider bound, for the test and its child exporter: the VM run
     * compiles the module without packaging it (run-tests), so the providers are class
     * directories without the service files bnd writes into their jars.
     */
    static Fabrics verbsFabrics() {
        FabricsRegistry registry = new FabricsRegistry();
        try {
            registry.bindProvider((FabricProvider) Class.forName("io.jofi.provider.verbs.VerbsProvider")
                    .getConstructor().newInstance(), Map.of());
            // RDM over verbs is the layered verbs;ofi_rxm: the rxm provider over the verbs core
            registry.bindProvider(new io.jofi.provider.rxm.RxmProvider(), Map.of());
        } catch (ReflectiveOperationException e) {
            Assumptions.abort("the verbs provider is not on the class path (the Maven profile verbs-vm adds it): " + e);
        }
        return registry;
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS) // the child JVM's start under emulation, then the calls' 120 s
    void echoRoundTripsOverVerbsBetweenTwoJvms() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("jofi.verbs.vm"),
                "not in the soft-RoCE VM (-Djofi.verbs.vm=true): provider-verbs/vm/ci runs this test there");
        String node = System.getProperty("jofi.rsa.verbs.node", "10.0.2.15");
        ChannelPool pool = new ChannelPool(verbsFabrics(),
                new ChannelSettings(60_000, null, ChannelSettings.MAX_INLINE, 16, 200, node), new ExportedServices(),
                new RsaCounters());
        if (!pool.availableProviders().contains("verbs")) {
            pool.close("no verbs");
            Assumptions.abort("no verbs device: getInfo offers no verbs provider for remote-services channels here");
        }
        long start = System.nanoTime();
        try (ChildExporter child = new ChildExporter("verbs", "-Djofi.verbs.vm=true", "-Djofi.rsa.test.verbs=true",
                "-Djofi.rsa.test.node=" + node)) {
            System.out.println("verbs: the exporter JVM is ready after " + seconds(start) + " s");
            Echo echo = child.importWith(new JofiDistributionProvider(pool, "verbs"));
            long calls = System.nanoTime();
            assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
                byte[] small = new byte[64];
                new Random(7).nextBytes(small);
                assertArrayEquals(small, echo.echo(small));
                System.out.println("verbs: first 64 B echo (with the handshake) after " + seconds(calls) + " s");
                assertEquals("hello verbs", echo.greet("verbs"));
                byte[] large = new byte[1 << 20];
                new Random(8).nextBytes(large);
                assertArrayEquals(large, echo.echo(large));
            });
            System.out.println("verbs: 64 B, a string and 1 MiB echoed between two JVMs over " + node + " in "
                    + seconds(calls) + " s");
        } finally {
            pool.close("test over");
        }
    }
}
