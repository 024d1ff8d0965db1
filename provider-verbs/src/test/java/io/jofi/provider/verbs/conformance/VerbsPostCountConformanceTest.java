package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.PostCountConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * Runs {@link PostCountConformance} against verbs: exact post counters under FI_THREAD_SAFE on
 * a verbs MSG endpoint (its funnels count under its monitor) and on an RDM endpoint (rxm's);
 * skipped with "verbs unavailable: …" where no RDMA port is active (runs in the VM).
 */
class VerbsPostCountConformanceTest extends PostCountConformance {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    /**
     * Fewer than on the host: the VM emulates its CPUs (TCG), where the kit's 100 000 take 16 s
     * on RDM; 5 000 per thread still interleave the four posters.
     */
    @Override
    protected int postsPerThread() {
        return 5_000;
    }
}
