package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.SameInputConformance;
import org.junit.jupiter.api.BeforeEach;

/** Runs {@link SameInputConformance} against verbs MSG endpoints, default progress; skipped with "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM). */
class VerbsSameInputConformanceTest extends SameInputConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    /** Verbs advertises its device's limits (README "Limits"). */
    @Override
    protected boolean offersApiMinimums() {
        return false;
    }
}
