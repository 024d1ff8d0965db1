package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.RmaConformance;

/** Runs {@link RmaConformance} against shm RDM endpoints, AUTO progress. */
class ShmRmaConformanceTest extends RmaConformance {
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
