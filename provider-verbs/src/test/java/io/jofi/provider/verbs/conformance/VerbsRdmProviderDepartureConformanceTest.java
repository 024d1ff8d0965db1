package io.jofi.provider.verbs.conformance;

import io.jofi.EpType;
import io.jofi.conformance.StandaloneProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.rxm.RxmProvider;
import io.jofi.provider.verbs.VerbsLifecycle;
import io.jofi.provider.verbs.VerbsProvider;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link io.jofi.conformance.ProviderDepartureConformance} (R15) with verbs RDM endpoints
 * ({@code verbs;ofi_rxm}): the {@code ofi_rxm} layer stays bound while verbs departs, and its RDM
 * endpoints over verbs depart with their core: pending operations complete with ECANCELED, the
 * connections and the listener go; skipped with "verbs unavailable: …" where no RDMA port is active.
 */
class VerbsRdmProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<VerbsProvider> {
    VerbsRdmProviderDepartureConformanceTest() {
        super(layerOnly(), (r, p) -> r.bindProvider(p, Map.of()), (r, p) -> r.unbindProvider(p, Map.of()),
                VerbsProvider::new, VerbsLifecycle::deactivate);
    }

    private static FabricsRegistry layerOnly() {
        FabricsRegistry registry = new FabricsRegistry();
        registry.bindProvider(new RxmProvider(), Map.of());
        return registry;
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
    protected EpType epType() {
        return EpType.RDM;
    }
}
