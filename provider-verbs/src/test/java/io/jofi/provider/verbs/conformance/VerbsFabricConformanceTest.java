package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.FabricConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared FabricConformance suite against the verbs provider; skipped with
 * "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsFabricConformanceTest extends FabricConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    /**
     * Verbs advertises its device's limits, below docs/API.md's minimums (README "Limits"): 32-bit
     * immediate data, 55 bytes of connection data, the port's max_msg_sz (soft-RoCE: 8 MiB).
     */
    @Override
    protected boolean offersApiMinimums() {
        return false;
    }
}
