package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.ConnectionConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared ConnectionConformance suite against the verbs provider; skipped with
 * "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsConnectionConformanceTest extends ConnectionConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }
}
