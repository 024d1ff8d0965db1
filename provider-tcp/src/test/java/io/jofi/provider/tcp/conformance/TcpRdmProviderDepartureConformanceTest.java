package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.StandaloneProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.tcp.TcpLifecycle;
import io.jofi.provider.tcp.TcpProvider;
import io.jofi.provider.tcp.TcpRdm;
import java.util.Map;

/**
 * {@link io.jofi.conformance.ProviderDepartureConformance} (R15) with tcp RDM endpoints: the
 * {@code ofi_rxm} layer stays bound while tcp departs and comes back, and the RDM endpoints over
 * tcp ({@code tcp;ofi_rxm}) depart with their core.
 */
class TcpRdmProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<TcpProvider> {
    TcpRdmProviderDepartureConformanceTest() {
        super(TcpRdm.layerOnly(), (r, p) -> r.bindProvider(p, Map.of()), (r, p) -> r.unbindProvider(p, Map.of()),
                TcpProvider::new, TcpLifecycle::deactivate);
    }

    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
