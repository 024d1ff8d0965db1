package io.jofi.provider.tcp;

import io.jofi.spi.util.stats.ConnectionCounters;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;

/**
 * The counters of one tcp MSG endpoint's connection (in its counter group:
 * {@code tcp/TcpEndpoint 5: connections made}): the util layer's {@link ConnectionCounters}
 * (made, refused, lost, with their JFR events) and tcp's own — partial writes and read pauses.
 * Written under the connection's lock (its endpoint's): one writer.
 */
final class TcpConnectionCounters {
    final ConnectionCounters connections;
    final StatsCounter partialWrites;
    final StatsCounter readPauses;

    TcpConnectionCounters(CounterGroup group) {
        connections = new ConnectionCounters("tcp", group);
        partialWrites = group.counter("partial writes");
        readPauses = group.counter("read pauses");
    }
}
