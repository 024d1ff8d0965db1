package io.jofi.provider.rxm;

import io.jofi.spi.util.EpisodeWarning;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;

/**
 * Refuses the packets the rxm wire does not allow ({@link RxmPacketHandler} drops them): checks
 * a received header's versions and {@code conn_id} against the wire and the connection, counts
 * each refusal ("packets refused") and logs them once per episode — a peer can send millions.
 * libfabric's rxm asserts both versions of every packet it receives and finds the connection by
 * {@code conn_id}: anything else is another protocol or another connection's packet, never a
 * message of this one. One writer: the endpoint's progress, under its lock.
 */
final class RxmPacketRefusals {
    private static final System.Logger LOG = System.getLogger(RxmPacketRefusals.class.getName());
    /** How long without a refusal ends an episode of them (and its log line). */
    static final long QUIET_MS = 10_000;

    private final StatsCounter refused;
    private final EpisodeWarning warning;

    RxmPacketRefusals(CounterGroup group) {
        this.refused = group.counter("packets refused");
        this.warning = new EpisodeWarning(LOG, "rxm: " + group.owner() + " refused a packet",
                "; refused packets are dropped and counted (\"packets refused\")", QUIET_MS);
    }

    /**
     * Whether header {@code h} that arrived on {@code c} is one the wire allows; refused (counted,
     * logged) when not. Allocation-free when it is.
     */
    boolean allowed(RxmConnection c, RxmPacketHeader h) {
        if (h.ctrlVersion != RxmWireDescriptor.CTRL_VERSION) {
            refuse(c, "control header version " + h.ctrlVersion + ", the wire's is " + RxmWireDescriptor.CTRL_VERSION);
            return false;
        }
        if (h.opVersion != RxmWireDescriptor.OP_VERSION) {
            refuse(c, "operation version " + h.opVersion + ", the wire's is " + RxmWireDescriptor.OP_VERSION);
            return false;
        }
        if (h.connId != (c.index & 0xFFFF_FFFFL)) {
            refuse(c, "conn_id " + h.connId + ", this connection's is " + c.index);
            return false;
        }
        return true;
    }

    /** A packet of {@code c} the wire does not allow, for {@code why}: counted and logged once per episode. */
    void refuse(RxmConnection c, String why) {
        refused.increment();
        long now = System.nanoTime();
        warning.tick(now);
        warning.failed(now, why + " from " + c.peer);
    }
}
