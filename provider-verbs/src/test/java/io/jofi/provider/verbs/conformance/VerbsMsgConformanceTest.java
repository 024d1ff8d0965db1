package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.MsgConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared MsgConformance suite against the verbs provider; skipped with
 * "verbs unavailable: …" where no RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsMsgConformanceTest extends MsgConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }
}
