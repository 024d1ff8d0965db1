package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.conformance.TaggedConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared TaggedConformance suite against verbs RDM endpoints (the rxm layer over verbs MSG
 * endpoints), default progress (AUTO); skipped with "verbs unavailable: …" where no RDMA port is active
 * (runs in the soft-RoCE VM).
 */
class VerbsRdmTaggedConformanceTest extends TaggedConformance {
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
