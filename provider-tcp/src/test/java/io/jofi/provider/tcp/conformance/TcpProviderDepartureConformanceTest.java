package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.StandaloneProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.tcp.TcpLifecycle;
import io.jofi.provider.tcp.TcpProvider;
import java.util.Map;

/**
 * Runs {@link io.jofi.conformance.ProviderDepartureConformance} (R15) against the tcp
 * provider in a plain JVM: {@link StandaloneProviderDepartureConformance} binds a tcp
 * provider to a registry of its own, unbinds and deactivates it as DS does when the bundle
 * stops, and binds a fresh one when it starts again.
 */
class TcpProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<TcpProvider> {
    TcpProviderDepartureConformanceTest() {
        super(new FabricsRegistry(), (r, p) -> r.bindProvider(p, Map.of()), (r, p) -> r.unbindProvider(p, Map.of()),
                TcpProvider::new, TcpLifecycle::deactivate);
    }

    @Override
    protected String provider() {
        return "tcp";
    }
}
