package io.jofi.rsa;

import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.util.Arrays;

/**
 * Not a test: the p50/p99 of a 64 B {@code echo} between this JVM and an exporter in a child JVM,
 * over the provider named by the first argument ({@code shm} by default), with one caller.
 * Run with the module's test class path; prints one line.
 */
public final class EchoLatencyProbe {
    private EchoLatencyProbe() {
    }

    public static void main(String[] args) throws Exception {
        String provider = args.length > 0 ? args[0] : "shm";
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        ChannelPool pool = new ChannelPool(RsaPair.FABRICS, RsaPair.settings(30_000, null), new ExportedServices(),
                new RsaCounters());
        try (ChildExporter child = new ChildExporter(provider, System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("jofi.rsa.probe")).map(k -> "-D" + k + "=" + System.getProperty(k))
                .toArray(String[]::new))) {
            Echo echo = child.importWith(new JofiDistributionProvider(pool, provider));
            byte[] data = new byte[64];
            long[] nanos = new long[calls];
            for (int warm = 0; warm < calls; warm++) {
                echo.echo(data);
            }
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                echo.echo(data);
                nanos[i] = System.nanoTime() - t0;
            }
            Arrays.sort(nanos);
            System.out.printf("%s 64 B echo, %d calls: p50 %.1f us, p90 %.1f us, p99 %.1f us%n", provider, calls,
                    nanos[calls / 2] / 1e3, nanos[calls * 9 / 10] / 1e3, nanos[calls * 99 / 100] / 1e3);
        } finally {
            pool.close("probe over");
        }
    }
}
