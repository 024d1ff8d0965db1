package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.conformance.AtomicConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared AtomicConformance suite against verbs RDM endpoints (64-bit atomics towards an fi_addr over the
 * peer's RC connection, made on first use), default progress (AUTO); skipped with "verbs unavailable: …" where no
 * RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsRdmAtomicConformanceTest extends AtomicConformance {
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
