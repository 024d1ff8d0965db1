package io.jofi.provider.rxm;

import io.jofi.Errno;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import java.util.List;

/**
 * Sends rxm's credit packets: a control header of {@link RxmWireDescriptor#TYPE_CREDIT} whose
 * {@code ctrl_data} is the number of receives granted (libfabric 1.17 fills {@code op} with the
 * same value; nothing else). A grant goes out ahead of the connection's waiting sends, as
 * libfabric's {@code FI_PRIORITY} send, and may take the peer's last credit. One that finds no
 * transmit or no room in the MSG queue stays due and is tried again by {@link #retry}. Takes the
 * peer's grants too ({@link #received}). Counts both in the endpoint's counter group ("credit
 * grants sent", "credit grants received": where neither moves, the peers did not agree on
 * credits). Used under the endpoint's lock.
 *
 * <p><b>Back-pressure.</b> With credits a packet is never left in its buffer (a held buffer
 * could be the one the peer's grant needs, and then both sides wait); instead, while the
 * endpoint's unexpected messages are at their limits, grants are withheld — but for one credit
 * to a peer that has none: the last credit is only for a grant, so the peer can tell us of
 * its receives (and our sends go on) but send no message. The unexpected messages beyond the
 * limits are therefore at most the credits the peer held when they were reached. Once a
 * receive is posted ({@link #resume}) what is due goes out.
 */
final class RxmCreditGrants {
    private static final System.Logger LOG = System.getLogger(RxmCreditGrants.class.getName());

    private final RxmTransmitPool transmits;
    private final ReceiveQueue receives;
    private final RxmPacketHeader header = new RxmPacketHeader();
    private final StatsCounter sent;
    private final StatsCounter received;
    /** Grants that could not be sent since the last {@link #retry}. */
    private int deferred;
    /** Grants withheld for the unexpected limits since the last {@link #resume}. */
    private int withheld;

    RxmCreditGrants(RxmTransmitPool transmits, ReceiveQueue receives, CounterGroup group) {
        this.transmits = transmits;
        this.receives = receives;
        this.sent = group.counter("credit grants sent");
        this.received = group.counter("credit grants received");
    }

    /** A credit packet from {@code c}'s peer granted {@code n}. */
    void received(RxmConnection c, long n) {
        c.credits.arrived(n);
        received.increment();
    }

    /** Sends {@code c}'s peer the credits due to it, if enough are. */
    void grant(RxmConnection c) {
        RxmCredits credits = c.credits;
        if (!credits.enabled() || !c.isConnected()) {
            return; // no credits on this connection (tcp's default): nothing more per posted buffer
        }
        boolean full = !receives.admits(1);
        long n = credits.grant(full);
        if (full && credits.hasDue()) {
            withheld++;
        }
        if (n == 0) {
            return;
        }
        RxmTransmit t = transmits.takeForGrant();
        if (t == null) {
            credits.regrant(n);
            deferred++;
            return;
        }
        t.kind = RxmTransmit.Kind.CONTROL;
        t.connection = c;
        t.grantsCredits = true;
        RxmPacketHeader h = header.clear();
        h.type = RxmWireDescriptor.TYPE_CREDIT;
        h.op = RxmWireDescriptor.TYPE_CREDIT;
        h.connId = c.remoteIndex & 0xFFFF_FFFFL;
        h.msgId = t.index;
        h.ctrlData = n;
        t.headerOnly(h);
        int rc = RxmSendPath.postNow(t);
        if (rc == 0) {
            sent.increment();
        } else {
            transmits.give(t);
            credits.regrant(n);
            if (rc == -Errno.EAGAIN) {
                deferred++;
            } else {
                LOG.log(System.Logger.Level.DEBUG, "rxm: a credit grant to " + c.peer + " failed (the connection is closing): "
                        + Errno.strerror(-rc));
            }
        }
    }

    /** A receive was posted: grants withheld for the unexpected limits go out if there is room now. */
    void resume(List<RxmConnection> connections) {
        if (withheld == 0 || !receives.admits(1)) {
            return;
        }
        withheld = 0;
        for (int i = 0; i < connections.size(); i++) {
            grant(connections.get(i));
        }
    }

    /** Tries again the grants that found no transmit or no room; returns how many went out. */
    int retry(List<RxmConnection> connections) {
        if (deferred == 0) {
            return 0;
        }
        int before = deferred;
        deferred = 0;
        for (int i = 0; i < connections.size(); i++) {
            grant(connections.get(i));
        }
        return Math.max(0, before - deferred);
    }
}
