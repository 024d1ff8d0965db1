package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.MsgConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared MsgConformance suite against verbs RDM endpoints (per-peer RC connections, one
 * shared receive queue), manual progress; skipped with "verbs unavailable: …" where no RDMA port
 * is active (runs in the soft-RoCE VM).
 */
class VerbsManualRdmMsgConformanceTest extends MsgConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }

    /** Verbs advertises its device's limits (README "Limits"): 32-bit immediate data, the port's max_msg_sz. */
    @Override
    protected boolean offersApiMinimums() {
        return false;
    }
}
