package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.AtomicConformance;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared AtomicConformance suite against verbs RDM endpoints (64-bit atomics towards an fi_addr over the
 * peer's RC connection, made on first use), manual progress; skipped with "verbs unavailable: …" where no
 * RDMA port is active (runs in the soft-RoCE VM).
 */
class VerbsManualRdmAtomicConformanceTest extends AtomicConformance {
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
