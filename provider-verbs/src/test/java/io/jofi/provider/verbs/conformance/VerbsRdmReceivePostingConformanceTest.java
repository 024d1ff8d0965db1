package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.conformance.ReceivePostingConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared ReceivePostingConformance suite against verbs RDM endpoints (the rxm layer),
 * default progress (AUTO); skipped with "verbs unavailable: …" where no RDMA port is active
 * (runs in the soft-RoCE VM). Verbs MSG endpoints lack FI_MULTI_RECV: nothing to run there.
 */
class VerbsRdmReceivePostingConformanceTest extends ReceivePostingConformance {
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
}
