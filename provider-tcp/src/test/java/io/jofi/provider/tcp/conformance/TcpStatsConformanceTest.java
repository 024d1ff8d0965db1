package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.StatsConformance;
import java.util.Map;

/**
 * Runs {@link StatsConformance} against tcp: {@code jofi stat}, in a JVM of its own, reads a
 * child JVM's tcp counters. The sender is an rxm endpoint over tcp MSG
 * endpoints: it connects to the receiver and to the victim, loses the victim's connection when
 * the victim is killed, and its next connect to the victim is refused (nobody listens): two
 * peers declared failed.
 */
class TcpStatsConformanceTest extends StatsConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    /**
     * tcp's own endpoints are the MSG endpoints under rxm (the RDM endpoints count as rxm's):
     * the two ends of the sender's connection to the receiver, the one to the victim, and the
     * one of the refused connect.
     */
    @Override
    protected long endpointsOpened() {
        return 4;
    }

    @Override
    protected Map<String, Long> senderConnectionCounters() {
        return RXM_SENDER_COUNTERS;
    }

    @Override
    protected Map<String, Integer> senderEvents() {
        return RXM_SENDER_EVENTS;
    }
}
