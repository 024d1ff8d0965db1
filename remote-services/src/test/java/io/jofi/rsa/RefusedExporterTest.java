package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.osgi.framework.ServiceException;

/**
 * A tcp exporter in a JVM of its own, killed: its port is closed, so connecting to it is refused.
 * A call through a proxy made before the kill, and the first call through an importer that never
 * met the exporter (its handshake), fail at once with a ServiceException naming ECONNREFUSED —
 * not after the call timeout.
 */
class RefusedExporterTest {
    /** The importers' call timeout: a call that fails only by it fails the bound below. */
    private static final long TIMEOUT_MILLIS = 10_000;
    private static final long FAST_MILLIS = 3_000;

    @Test
    void callsToAKilledTcpExporterFailAtOnceWithTheRefusal() throws Exception {
        ChannelPool before = new ChannelPool(RsaPair.FABRICS, RsaPair.settings(TIMEOUT_MILLIS, null),
                new ExportedServices(), new RsaCounters());
        ChannelPool fresh = new ChannelPool(RsaPair.FABRICS, RsaPair.settings(TIMEOUT_MILLIS, null),
                new ExportedServices(), new RsaCounters());
        // a short-lived exporter: C1 alone and the serial collector start it with less CPU
        try (ChildExporter child = new ChildExporter("tcp", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")) {
            Echo known = child.importWith(new JofiDistributionProvider(before, "tcp"));
            assertEquals("hello before", known.greet("before"));
            Echo stranger = child.importWith(new JofiDistributionProvider(fresh, "tcp"));
            child.kill();

            assertRefusedFast(() -> known.greet("after"), "a call over the session made before the kill");
            assertRefusedFast(() -> stranger.greet("first"), "the first call of a new importer (its handshake)");
            assertRefusedFast(() -> known.greet("again"), "the next call over the old proxy");
        } finally {
            before.close("test over");
            fresh.close("test over");
        }
    }

    private static void assertRefusedFast(Runnable call, String what) {
        long start = System.nanoTime();
        ServiceException e = assertThrows(ServiceException.class, call::run, what);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println(what + ": failed after " + millis + " ms: " + e.getMessage());
        assertEquals(ServiceException.REMOTE, e.getType());
        assertTrue(e.getMessage().contains("ECONNREFUSED"), what + ": " + e.getMessage());
        assertTrue(millis < FAST_MILLIS, what + " failed only after " + millis + " ms");
    }
}
