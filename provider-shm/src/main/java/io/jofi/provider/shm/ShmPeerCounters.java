package io.jofi.provider.shm;

import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.FabricEvents;
import io.jofi.spi.util.stats.StatsCounter;

/**
 * The peer, ring and CMA counters of one shm endpoint (in its counter group:
 * {@code shm/ShmEndpoint 3: ring-full waits}) and the JFR events that go with them. Written
 * under the endpoint's lock, as everything of its peers and transmitter: one writer.
 */
final class ShmPeerCounters {
    private final ShmOwnRing own;
    private final String owner;
    private final CounterGroup group;
    /** Where the endpoint is, for {@code jofi stat}: {@code fi_shm://<name>} and its chosen name; set once, when named. */
    private String localText;
    private final StatsCounter linked;
    private final StatsCounter unreachable;
    private final StatsCounter lost;
    private final StatsCounter failed;
    private final StatsCounter ringFullWaits;
    private final StatsCounter doorbells;
    /** Messages sent by cross-memory attach (the receiver read them from this process). */
    private final StatsCounter cmaSent;
    /** Messages read by cross-memory attach from their sender into a receive. */
    private final StatsCounter cmaRead;

    ShmPeerCounters(ShmOwnRing own, CounterGroup group) {
        this.own = own;
        this.group = group;
        owner = group.owner();
        linked = group.counter("peers linked");
        unreachable = group.counter("peers unreachable");
        lost = group.counter("peers lost");
        failed = group.counter("peers declared failed");
        ringFullWaits = group.counter("ring-full waits");
        doorbells = group.counter("doorbells rung");
        cmaSent = group.counter("CMA messages sent");
        cmaRead = group.counter("CMA messages read");
    }

    /** The endpoint has its name (enabled): published as where its counters are. */
    void named(String localText) {
        this.localText = localText;
        group.describeEnds(localText, null, 0);
    }

    /** {@code p}'s region is mapped: we can write into its ring. */
    void linked(Peer p) {
        linked.increment();
        if (linked.get() <= 2) {
            group.describeEnds(localText, ShmNames.SCHEME + p.name, linked.get()); // the first peer, then "and others" once
        }
        FabricEvents.connectionEstablished("shm", owner, own.name(), p.name);
    }

    /** {@code p}'s region could not be mapped ({@code EHOSTUNREACH}): it is failed. */
    void unreachable(Peer p, String why) {
        unreachable.increment();
        FabricEvents.connectionRefused("shm", owner, own.name(), p.name, io.jofi.Errno.EHOSTUNREACH, why);
        declaredFailed(p, io.jofi.Errno.EHOSTUNREACH);
    }

    /** {@code p}'s endpoint closed or its process died. */
    void lost(Peer p, String why) {
        lost.increment();
        FabricEvents.connectionLost("shm", owner, own.name(), p.name, io.jofi.Errno.ECONNRESET, why);
    }

    /** A peer's ring was full: the rest waits queued for the next pass. */
    void ringFullWait() {
        ringFullWaits.increment();
    }

    /** A peer's consumer slept: its doorbell was rung. */
    void doorbellRung() {
        doorbells.increment();
    }

    /** A message went by cross-memory attach (its receiver reads it from this process). */
    void cmaSent() {
        cmaSent.increment();
    }

    /** A message was read by cross-memory attach from its sender into a receive. */
    void cmaRead() {
        cmaRead.increment();
    }

    /** {@code p} is declared failed ({@code err}, positive): what waits on it ends with an error. */
    void declaredFailed(Peer p, int err) {
        failed.increment();
        FabricEvents.peerFailed("shm", owner, p.name, err);
    }
}
