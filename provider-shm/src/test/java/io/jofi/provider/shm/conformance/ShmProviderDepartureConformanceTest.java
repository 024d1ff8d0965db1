package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Fabrics;
import io.jofi.Progress;
import io.jofi.conformance.ProviderControl;
import io.jofi.conformance.ProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.shm.ShmLifecycle;
import io.jofi.provider.shm.ShmProvider;
import java.util.Map;

/**
 * Runs {@link ProviderDepartureConformance} (R15) against the shm provider, AUTO progress,
 * in a plain JVM: a registry of its own with an shm provider this test binds, then unbinds
 * and deactivates in the order DS uses when the bundle stops, and replaces with a fresh one
 * when it starts again.
 */
class ShmProviderDepartureConformanceTest extends ProviderDepartureConformance {
    private final FabricsRegistry registry = new FabricsRegistry();
    private ShmProvider current;

    ShmProviderDepartureConformanceTest() {
        start();
    }

    private void start() {
        current = new ShmProvider();
        registry.bindProvider(current, Map.of());
    }

    @Override
    protected String provider() {
        return "shm";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }

    @Override
    protected Progress progress() {
        return Progress.AUTO;
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
                ShmLifecycle.deactivate(current);
            }

            @Override
            public void start() {
                ShmProviderDepartureConformanceTest.this.start();
            }
        };
    }
}
