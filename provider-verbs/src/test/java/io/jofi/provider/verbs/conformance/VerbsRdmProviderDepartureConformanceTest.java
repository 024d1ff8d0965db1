package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;

/**
 * {@link VerbsProviderDepartureConformanceTest} (R15) with verbs RDM endpoints: pending
 * operations complete with ECANCELED, the connections and the listener go; skipped with
 * "verbs unavailable: …" where no RDMA port is active.
 */
class VerbsRdmProviderDepartureConformanceTest extends VerbsProviderDepartureConformanceTest {
    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
