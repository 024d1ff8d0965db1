package io.jofi.provider.verbs;

import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.FabricEvents;
import io.jofi.spi.util.stats.StatsCounter;

/**
 * The transport counters of one verbs MSG endpoint (in its counter group:
 * {@code verbs/VerbsEndpoint 5: empty CQ polls}) and the JFR events that go with them.
 * Written under the endpoint's monitor only (the CM thread per event, the progress thread or
 * an application thread per poll, both under that monitor): one writer at a time, plain
 * stores.
 */
final class VerbsTransportCounters {
    private final String owner;
    private final StatsCounter made;
    private final StatsCounter refused;
    private final StatsCounter lost;
    /** {@code ibv_poll_cq} calls that found no completion (the endpoint's poller). */
    final StatsCounter emptyPolls;
    /**
     * Sends that failed with {@code IBV_WC_RNR_RETRY_EXC_ERR}: the peer posted no receive
     * within the RNR retries ({@code rnr_retry_count} 7 retries for ever, so on JOFI's own
     * connections this stays 0 unless the peer set a lower count).
     */
    private final StatsCounter rnrRetriesExceeded;

    VerbsTransportCounters(CounterGroup group) {
        owner = group.owner();
        made = group.counter("connections made");
        refused = group.counter("connects refused");
        lost = group.counter("connections lost");
        emptyPolls = group.counter("empty CQ polls");
        rnrRetriesExceeded = group.counter("RNR retries exceeded");
    }

    /** {@code c} is up. */
    void made(MsgConnection c) {
        made.increment();
        if (FabricEvents.connectionsRecorded()) { // the addresses are looked up for a recording only
            FabricEvents.connectionEstablished("verbs", owner, text(c.localAddress()), text(c.peerAddress()));
        }
    }

    /** Our connect ({@code c}) failed ({@code err}, positive): rejected, unreachable, timed out. */
    void refused(MsgConnection c, int err) {
        refused.increment();
        if (FabricEvents.connectionsRecorded()) {
            String peer = text(c.peerAddress());
            FabricEvents.connectionRefused("verbs", owner, text(c.localAddress()), peer, err, Errno.strerror(err));
            FabricEvents.peerFailed("verbs", owner, peer, err);
        }
    }

    /**
     * The established connection {@code c} ended by the peer or a failure ({@code err}, positive; a
     * local {@code shutdown} or close is not a loss).
     */
    void lost(MsgConnection c, int err, String why) {
        lost.increment();
        if (FabricEvents.connectionsRecorded()) {
            String peer = text(c.peerAddress());
            FabricEvents.connectionLost("verbs", owner, text(c.localAddress()), peer, err, why);
            FabricEvents.peerFailed("verbs", owner, peer, err);
        }
    }

    /** A work completion with {@code status}: counts an RNR retry exceeded. */
    void failedCompletion(int status) {
        if (status == io.jofi.provider.verbs.binding.VerbsConstants.IBV_WC_RNR_RETRY_EXC_ERR) {
            rnrRetriesExceeded.increment();
        }
    }

    private static String text(byte[] sockaddr) {
        return sockaddr == null ? null : Addresses.toString(sockaddr);
    }
}
