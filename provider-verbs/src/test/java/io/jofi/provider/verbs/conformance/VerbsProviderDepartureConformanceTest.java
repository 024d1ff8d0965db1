package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.StandaloneProviderDepartureConformance;
import io.jofi.provider.verbs.VerbsLifecycle;
import io.jofi.provider.verbs.VerbsProvider;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link io.jofi.conformance.ProviderDepartureConformance} (R15) against the verbs provider:
 * {@link StandaloneProviderDepartureConformance} binds a verbs provider to a registry of its
 * own, then unbinds and deactivates it as DS does when the bundle stops. Skipped with
 * "verbs unavailable: …" where no RDMA port is active.
 */
class VerbsProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<VerbsProvider> {
    VerbsProviderDepartureConformanceTest() {
        super(VerbsProvider::new, VerbsLifecycle::deactivate);
    }

    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }
}
