package io.jofi.provider.verbs.conformance;

import io.jofi.Progress;
import io.jofi.conformance.WaitConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared WaitConformance suite against the verbs provider with manual progress; skipped with
 * "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsManualWaitConformanceTest extends WaitConformance {
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
}
