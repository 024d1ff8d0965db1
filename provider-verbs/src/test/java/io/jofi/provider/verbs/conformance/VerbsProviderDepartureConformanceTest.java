package io.jofi.provider.verbs.conformance;

import io.jofi.conformance.StandaloneProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.verbs.VerbsLifecycle;
import io.jofi.provider.verbs.VerbsProvider;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link io.jofi.conformance.ProviderDepartureConformance} (R15) against the verbs provider:
 * {@link StandaloneProviderDepartureConformance} binds a verbs provider to a registry of its
 * own (the api's registry class), then unbinds and deactivates it as DS does when the bundle stops. Skipped with
 * "verbs unavailable: …" where no RDMA port is active.
 */
class VerbsProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<VerbsProvider> {
    VerbsProviderDepartureConformanceTest() {
        super(new FabricsRegistry(), (r, p) -> r.bindProvider(p, Map.of()), (r, p) -> r.unbindProvider(p, Map.of()),
                VerbsProvider::new, VerbsLifecycle::deactivate);
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
