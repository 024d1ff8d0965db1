package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.CqConformance;

/** Runs {@link CqConformance} against shm RDM endpoints, AUTO progress. */
class ShmCqConformanceTest extends CqConformance {
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
