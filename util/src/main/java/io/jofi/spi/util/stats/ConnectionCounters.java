package io.jofi.spi.util.stats;

import io.jofi.Errno;

/**
 * The counters an endpoint keeps of its connections — made, connects refused, lost — in its
 * counter group ({@code tcp/TcpEndpoint 5: connections made}), with the JFR events that go with
 * them ({@link FabricEvents}: established, refused, lost, peer failed): one implementation for
 * every provider's MSG endpoints. One writer (the endpoint's lock); a connection's addresses are
 * asked for once when it is made (published as the group's description, {@code jofi stat}'s
 * "local A peer B"), and otherwise only while a recording takes the events.
 */
public final class ConnectionCounters {
    /**
     * What a connection answers about its two ends for the events: asked only while a
     * recording takes them, on the path that reports the connection's fate, so an answer never
     * throws (null when an end is not known).
     */
    public interface Ends {
        /** The local end's address (a {@code SocketAddress}, a sockaddr's text, …), or null. */
        Object localEnd();

        /** The peer's address (for a failed connect: the address connected to), or null. */
        Object peerEnd();
    }

    private final String provider;
    private final String owner;
    private final CounterGroup group;
    private final StatsCounter made;
    private final StatsCounter refused;
    private final StatsCounter lost;

    /** @param provider the provider the events name; {@code group} the endpoint's counters */
    public ConnectionCounters(String provider, CounterGroup group) {
        this.provider = provider;
        this.owner = group.owner();
        this.group = group;
        this.made = group.counter("connections made");
        this.refused = group.counter("connects refused");
        this.lost = group.counter("connections lost");
    }

    /** The connection {@code c} is up (either side): counted, and its ends published with the counters. */
    public void made(Ends c) {
        made.increment();
        group.describeEnds(c.localEnd(), c.peerEnd(), 1);
        if (FabricEvents.connectionsRecorded()) {
            FabricEvents.connectionEstablished(provider, owner, c.localEnd(), c.peerEnd());
        }
    }

    /** Our connect on {@code c} failed ({@code err}, positive): refused, unreachable, timed out. */
    public void refused(Ends c, int err) {
        refused.increment();
        if (FabricEvents.connectionsRecorded()) {
            Object peer = c.peerEnd();
            FabricEvents.connectionRefused(provider, owner, c.localEnd(), peer, err, Errno.strerror(err));
            FabricEvents.peerFailed(provider, owner, peer, err);
        }
    }

    /**
     * The established connection {@code c} ended by the peer or a failure ({@code err},
     * positive; {@code why} the peer's reason or null for errno's text) — a local shutdown or
     * close is not a loss.
     */
    public void lost(Ends c, int err, String why) {
        lost.increment();
        if (FabricEvents.connectionsRecorded()) {
            Object peer = c.peerEnd();
            FabricEvents.connectionLost(provider, owner, c.localEnd(), peer, err, why != null ? why : Errno.strerror(err));
            FabricEvents.peerFailed(provider, owner, peer, err);
        }
    }
}
