package io.jofi.provider.verbs.conformance;

import io.jofi.Progress;
import io.jofi.conformance.MsgConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared MsgConformance suite against the verbs provider with manual progress; skipped with
 * "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsManualMsgConformanceTest extends MsgConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }

    /**
     * Verbs advertises its device's limits, below docs/API.md's minimums (README "Limits"): 32-bit
     * immediate data, 55 bytes of connection data, the port's max_msg_sz (soft-RoCE: 8 MiB).
     */
    @Override
    protected boolean offersApiMinimums() {
        return false;
    }
}
