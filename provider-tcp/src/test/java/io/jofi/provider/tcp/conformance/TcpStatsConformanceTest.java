package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.StatsConformance;
import io.jofi.tools.PlainJvmMain;
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

    @Override
    protected String stat(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "stat";
        System.arraycopy(args, 0, command, 1, args.length);
        return runInAnotherJvm(PlainJvmMain.class.getName(), command);
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
        // connected: the receiver and the victim; lost: the victim; refused: the victim again
        return Map.of("peers connected", 2L, "peers reconnected", 0L, "connections lost", 1L, "connects refused", 1L,
                "requests refused", 0L, "peers declared failed", 2L);
    }

    @Override
    protected Map<String, Integer> senderEvents() {
        return Map.of("io.jofi.ConnectionEstablished", 2, "io.jofi.ConnectionLost", 1, "io.jofi.ConnectionRefused", 1,
                "io.jofi.PeerFailed", 2, "io.jofi.ProviderChange arrived", 1);
    }
}
