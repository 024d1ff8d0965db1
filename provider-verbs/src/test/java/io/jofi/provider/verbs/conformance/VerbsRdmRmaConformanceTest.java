package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.conformance.RmaConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared RmaConformance suite against verbs RDM endpoints (RMA towards an fi_addr over the
 * peer's RC connection, made on first use), default progress (AUTO); skipped with "verbs unavailable: …" where no
 * RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsRdmRmaConformanceTest extends RmaConformance {
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
