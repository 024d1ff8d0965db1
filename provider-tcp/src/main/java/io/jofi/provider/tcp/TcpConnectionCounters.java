package io.jofi.provider.tcp;

import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.FabricEvents;
import io.jofi.spi.util.stats.StatsCounter;
import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * The connection counters of one tcp MSG endpoint (in its counter group:
 * {@code tcp/TcpEndpoint 5: connections made}) and the JFR events that go with them. Written
 * under the connection's lock (its endpoint's): one writer.
 */
final class TcpConnectionCounters {
    private final String owner;
    private final StatsCounter made;
    private final StatsCounter refused;
    private final StatsCounter lost;
    final StatsCounter partialWrites;
    final StatsCounter readPauses;

    TcpConnectionCounters(CounterGroup group) {
        owner = group.owner();
        made = group.counter("connections made");
        refused = group.counter("connects refused");
        lost = group.counter("connections lost");
        partialWrites = group.counter("partial writes");
        readPauses = group.counter("read pauses");
    }

    /** The connection on {@code ch} is up. */
    void made(SocketChannel ch) {
        made.increment();
        if (FabricEvents.connectionsRecorded()) {
            FabricEvents.connectionEstablished("tcp", owner, local(ch), peer(ch));
        }
    }

    /** Our connect to {@code peer} failed ({@code err}, positive): refused, unreachable, timed out. */
    void refused(SocketChannel ch, Object peer, int err) {
        refused.increment();
        if (FabricEvents.connectionsRecorded()) {
            FabricEvents.connectionRefused("tcp", owner, local(ch), peer, err, io.jofi.Errno.strerror(err));
            FabricEvents.peerFailed("tcp", owner, peer, err);
        }
    }

    /** The established connection on {@code ch} (still open) ends by the peer or a failure ({@code err}, positive). */
    void lost(SocketChannel ch, int err, byte[] reason) {
        lost.increment();
        if (FabricEvents.connectionsRecorded()) {
            Object peer = peer(ch);
            String why = reason != null ? new String(reason, java.nio.charset.StandardCharsets.UTF_8)
                    : io.jofi.Errno.strerror(err);
            FabricEvents.connectionLost("tcp", owner, local(ch), peer, err, why);
            FabricEvents.peerFailed("tcp", owner, peer, err);
        }
    }

    private static Object local(SocketChannel ch) {
        try {
            return ch == null ? null : ch.getLocalAddress();
        } catch (IOException e) {
            return null; // closed already: the event names no address
        }
    }

    private static Object peer(SocketChannel ch) {
        try {
            return ch == null ? null : ch.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }
}
