package io.jofi.provider.rxm;

import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.FabricEvents;
import io.jofi.spi.util.stats.StatsCounter;
import java.net.InetSocketAddress;

/**
 * The connection counters of one rxm endpoint (in its counter group, so labelled
 * {@code tcp/RxmEndpoint 4: peers connected}) and the JFR events that go with them. Written
 * by {@link RxmConnectionManager}, which runs under the endpoint's lock: one writer.
 */
final class RxmConnectionCounters {
    private final String provider;
    private final String owner;
    private final InetSocketAddress local;
    private final CounterGroup group;
    private final StatsCounter connected;
    private final StatsCounter reconnected;
    private final StatsCounter lost;
    private final StatsCounter refused;
    private final StatsCounter requestsRefused;
    private final StatsCounter failed;

    RxmConnectionCounters(CounterGroup group, String provider, InetSocketAddress local) {
        this.provider = provider;
        this.owner = group.owner();
        this.local = local;
        connected = group.counter("peers connected");
        reconnected = group.counter("peers reconnected");
        lost = group.counter("connections lost");
        refused = group.counter("connects refused");
        requestsRefused = group.counter("requests refused");
        failed = group.counter("peers declared failed");
        this.group = group;
        group.describeEnds(local, null, 0);
    }

    /** {@code c}'s connection is up (either side); a peer connected before counts as reconnected too. */
    void connected(RxmConnection c) {
        connected.increment();
        if (c.connectedBefore) {
            reconnected.increment();
        }
        c.connectedBefore = true;
        if (connected.get() <= 2) {
            group.describeEnds(local, c.peer, connected.get()); // the first peer, then "and others" once
        }
        FabricEvents.connectionEstablished(provider, owner, local, c.peer);
    }

    /** Our connect to {@code c} was refused or failed before it was up: the peer is failed for what waits on it. */
    void refused(RxmConnection c, int err, String why) {
        refused.increment();
        failed.increment();
        FabricEvents.connectionRefused(provider, owner, local, c.peer, err, why);
        FabricEvents.peerFailed(provider, owner, c.peer, err);
    }

    /** We refused a peer's request (not the crossed-request "already", which is no failure). */
    void requestRefused() {
        requestsRefused.increment();
    }

    /** {@code c}'s established connection ended by the peer or a failure: the peer is failed for what waits on it. */
    void lost(RxmConnection c, int err, String why) {
        lost.increment();
        failed.increment();
        FabricEvents.connectionLost(provider, owner, local, c.peer, err, why);
        FabricEvents.peerFailed(provider, owner, c.peer, err);
    }
}
