package io.jofi.provider.tcp.conformance;

import io.jofi.Fabrics;
import io.jofi.Progress;
import io.jofi.conformance.ProviderControl;
import io.jofi.conformance.ProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.tcp.TcpLifecycle;
import io.jofi.provider.tcp.TcpProvider;
import java.util.Map;

/**
 * Runs {@link ProviderDepartureConformance} (R15) against the tcp provider with manual progress: a
 * registry of its own (the class the OSGi component and {@code Fabrics.standalone()} use)
 * with a tcp provider this test binds, then unbinds and deactivates in the order DS uses
 * when the bundle stops, and replaces with a fresh one when it starts again.
 */
class TcpManualProviderDepartureConformanceTest extends ProviderDepartureConformance {
    private final FabricsRegistry registry = new FabricsRegistry();
    private TcpProvider current;

    TcpManualProviderDepartureConformanceTest() {
        start();
    }

    private void start() {
        current = new TcpProvider();
        registry.bindProvider(current, Map.of());
    }

    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
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
                // DS order on bundle stop: the registry's reference is unbound, then the
                // provider component is deactivated
                registry.unbindProvider(current, Map.of());
                TcpLifecycle.deactivate(current);
            }

            @Override
            public void start() {
                TcpManualProviderDepartureConformanceTest.this.start();
            }
        };
    }
}
