package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.AtomicConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared AtomicConformance suite against the verbs provider; skipped with
 * "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsAtomicConformanceTest extends AtomicConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }
}
