package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.TaggedConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared TaggedConformance suite against verbs RDM endpoints (the rxm layer over verbs MSG
 * endpoints), manual progress; skipped with "verbs unavailable: …" where no RDMA port is active
 * (runs in the soft-RoCE VM).
 */
class VerbsManualRdmTaggedConformanceTest extends TaggedConformance {
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
}
