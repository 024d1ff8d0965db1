package io.jofi.provider.shm.conformance;

import io.jofi.conformance.StatsConformance;
import java.util.Map;

/**
 * Runs {@link StatsConformance} against shm: {@code jofi stat}, in a JVM of its own, reads a
 * child JVM's shm counters. The sender maps the receiver's and the victim's regions; the
 * liveness check finds the killed victim gone (lost, declared failed once), and the send after
 * the kill fails with ECONNRESET.
 */
class ShmStatsConformanceTest extends StatsConformance {
    @Override
    protected String provider() {
        return "shm";
    }

    @Override
    protected Map<String, Long> senderConnectionCounters() {
        return Map.of("peers linked", 2L, "peers unreachable", 0L, "peers lost", 1L, "peers declared failed", 1L);
    }

    @Override
    protected Map<String, Integer> senderEvents() {
        return Map.of("io.jofi.ConnectionEstablished", 2, "io.jofi.ConnectionLost", 1, "io.jofi.PeerFailed", 1,
                "io.jofi.ProviderChange arrived", 1);
    }
}
