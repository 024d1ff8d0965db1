package io.jofi.provider.shm.conformance;

import io.jofi.conformance.PostCountConformance;

/** Runs {@link PostCountConformance} against shm: exact post counters under FI_THREAD_SAFE. */
class ShmPostCountConformanceTest extends PostCountConformance {
    @Override
    protected String provider() {
        return "shm";
    }
}
