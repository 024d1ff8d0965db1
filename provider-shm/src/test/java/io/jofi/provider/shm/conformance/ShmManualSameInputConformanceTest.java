package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.SameInputConformance;

/** Runs {@link SameInputConformance} against shm RDM endpoints, manual progress. */
class ShmManualSameInputConformanceTest extends SameInputConformance {
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
        return Progress.MANUAL;
    }
}
