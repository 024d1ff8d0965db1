package io.jofi.provider.shm.conformance;

import io.jofi.Progress;

/** {@link ShmProviderDepartureConformanceTest} (R15) with MANUAL progress. */
class ShmManualProviderDepartureConformanceTest extends ShmProviderDepartureConformanceTest {
    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
