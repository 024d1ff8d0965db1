package io.jofi.provider.verbs.conformance;

import io.jofi.Fabrics;
import io.jofi.conformance.ProviderControl;
import io.jofi.conformance.ProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.verbs.VerbsLifecycle;
import io.jofi.provider.verbs.VerbsProvider;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link ProviderDepartureConformance} (R15) against the verbs provider: a registry of its own
 * with a verbs provider this test binds, then unbinds and deactivates as DS does when the
 * bundle stops. Skipped with "verbs unavailable: …" where no RDMA port is active.
 */
class VerbsProviderDepartureConformanceTest extends ProviderDepartureConformance {
    private final FabricsRegistry registry = new FabricsRegistry();
    private VerbsProvider current;

    VerbsProviderDepartureConformanceTest() {
        start();
    }

    private void start() {
        current = new VerbsProvider();
        registry.bindProvider(current, Map.of());
    }

    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    @Override
    protected Fabrics fabrics() {
        return registry;
    }

    @Override
    protected ProviderControl providerControl() {
        return new ProviderControl() {
            @Override
            public void stop() {
                registry.unbindProvider(current, Map.of());
                VerbsLifecycle.deactivate(current);
            }

            @Override
            public void start() {
                VerbsProviderDepartureConformanceTest.this.start();
            }
        };
    }
}
