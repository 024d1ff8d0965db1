package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.StandaloneProviderDepartureConformance;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.shm.ShmLifecycle;
import io.jofi.provider.shm.ShmProvider;
import java.util.Map;

/**
 * Runs {@link io.jofi.conformance.ProviderDepartureConformance} (R15) against the shm
 * provider, AUTO progress, in a plain JVM: {@link StandaloneProviderDepartureConformance}
 * binds an shm provider to a registry of its own, unbinds and deactivates it as DS does when
 * the bundle stops, and binds a fresh one when it starts again.
 */
class ShmProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<ShmProvider> {
    ShmProviderDepartureConformanceTest() {
        super(new FabricsRegistry(), (r, p) -> r.bindProvider(p, Map.of()), (r, p) -> r.unbindProvider(p, Map.of()),
                ShmProvider::new, ShmLifecycle::deactivate);
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
}
