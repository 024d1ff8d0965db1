package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.SameInputConformance;
import org.junit.jupiter.api.BeforeEach;

/** Runs {@link SameInputConformance} against verbs RDM endpoints, manual progress; skipped with "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM). */
class VerbsManualRdmSameInputConformanceTest extends SameInputConformance {
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

    /** Verbs advertises its device's limits (README "Limits"). */
    @Override
    protected boolean offersApiMinimums() {
        return false;
    }
}
