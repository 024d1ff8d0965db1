package io.jofi.provider.verbs;

import io.jofi.spi.util.stats.ConnectionCounters;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;

/**
 * The transport counters of one verbs MSG endpoint (in its counter group:
 * {@code verbs/VerbsEndpoint 5: empty CQ polls}): the util layer's {@link ConnectionCounters}
 * (made, refused, lost, with their JFR events) and verbs' own — empty CQ polls and RNR retries
 * exceeded. Written under the endpoint's monitor only (the CM thread per event, the progress
 * thread or an application thread per poll, both under that monitor): one writer at a time,
 * plain stores.
 */
final class VerbsTransportCounters {
    final ConnectionCounters connections;
    /** {@code ibv_poll_cq} calls that found no completion (the endpoint's poller). */
    final StatsCounter emptyPolls;
    /**
     * Sends that failed with {@code IBV_WC_RNR_RETRY_EXC_ERR}: the peer posted no receive
     * within the RNR retries ({@code rnr_retry_count} 7 retries for ever, so on JOFI's own
     * connections this stays 0 unless the peer set a lower count).
     */
    private final StatsCounter rnrRetriesExceeded;

    VerbsTransportCounters(CounterGroup group) {
        connections = new ConnectionCounters("verbs", group);
        emptyPolls = group.counter("empty CQ polls");
        rnrRetriesExceeded = group.counter("RNR retries exceeded");
    }

    /** A work completion with {@code status}: counts an RNR retry exceeded. */
    void failedCompletion(int status) {
        if (status == io.jofi.provider.verbs.binding.VerbsConstants.IBV_WC_RNR_RETRY_EXC_ERR) {
            rnrRetriesExceeded.increment();
        }
    }
}
