package io.jofi.spi.util.stats;

/**
 * Builds and commits {@link FabricEvents}' JFR events: the only class that touches
 * {@code jdk.jfr} types in its code, so that {@link FabricEvents} loads and answers where the
 * runtime does not offer {@code jdk.jfr} (an OSGi framework whose system bundle does not export
 * it, such as Karaf's default: the util bundle imports it optionally).
 */
final class FabricEventRecorder {
    private FabricEventRecorder() {
    }

    // Probes: never committed, only asked whether their type is enabled (thread-safe, no allocation).
    private static final FabricEvents.ConnectionEstablished ESTABLISHED = new FabricEvents.ConnectionEstablished();
    private static final FabricEvents.ConnectionRefused REFUSED = new FabricEvents.ConnectionRefused();
    private static final FabricEvents.ConnectionLost LOST = new FabricEvents.ConnectionLost();
    private static final FabricEvents.PeerFailed PEER_FAILED = new FabricEvents.PeerFailed();
    private static final FabricEvents.QueueOverrun OVERRUN = new FabricEvents.QueueOverrun();

    /**
     * Whether a recording takes any of the connection events: a provider asks before it looks
     * up addresses for them.
     */
    static boolean connectionsRecorded() {
        return ESTABLISHED.isEnabled() || REFUSED.isEnabled() || LOST.isEnabled() || PEER_FAILED.isEnabled();
    }

    /** A connection of {@code owner} ({@code provider}) came up between {@code local} and {@code peer}. */
    static void connectionEstablished(String provider, String owner, Object local, Object peer) {
        if (ESTABLISHED.isEnabled()) {
            FabricEvents.ConnectionEstablished e = new FabricEvents.ConnectionEstablished();
            e.provider = provider;
            e.owner = owner;
            e.local = String.valueOf(local);
            e.peer = String.valueOf(peer);
            e.commit();
        }
    }

    /** {@code owner}'s connect to {@code peer} was refused ({@code errno}, positive). */
    static void connectionRefused(String provider, String owner, Object local, Object peer, int errno,
                                         String reason) {
        if (REFUSED.isEnabled()) {
            commitEnd(new FabricEvents.ConnectionRefused(), provider, owner, local, peer, errno, reason);
        }
    }

    /** {@code owner}'s established connection to {@code peer} was lost ({@code errno}, positive). */
    static void connectionLost(String provider, String owner, Object local, Object peer, int errno,
                                      String reason) {
        if (LOST.isEnabled()) {
            commitEnd(new FabricEvents.ConnectionLost(), provider, owner, local, peer, errno, reason);
        }
    }

    private static void commitEnd(FabricEvents.ConnectionEnd e, String provider, String owner, Object local, Object peer, int errno,
                                  String reason) {
        e.provider = provider;
        e.owner = owner;
        e.local = String.valueOf(local);
        e.peer = String.valueOf(peer);
        e.errno = errno;
        e.reason = reason;
        e.commit();
    }

    /** {@code owner} declared {@code peer} failed ({@code errno}, positive). */
    static void peerFailed(String provider, String owner, Object peer, int errno) {
        if (PEER_FAILED.isEnabled()) {
            FabricEvents.PeerFailed e = new FabricEvents.PeerFailed();
            e.provider = provider;
            e.owner = owner;
            e.peer = String.valueOf(peer);
            e.errno = errno;
            e.commit();
        }
    }

    /** The queue labelled {@code queue} (its counters' owner) of {@code capacity} entries overran. */
    static void queueOverrun(String queue, long capacity) {
        if (OVERRUN.isEnabled()) {
            FabricEvents.QueueOverrun e = new FabricEvents.QueueOverrun();
            e.queue = queue;
            e.capacity = capacity;
            e.commit();
        }
    }
}
