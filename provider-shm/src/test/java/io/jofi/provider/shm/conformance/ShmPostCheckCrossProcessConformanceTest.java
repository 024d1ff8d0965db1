package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.PostCheckCrossProcessConformance;

/** Runs {@link PostCheckCrossProcessConformance} on shm RDM endpoints with side b in a child JVM: AUTO progress on both sides. */
class ShmPostCheckCrossProcessConformanceTest extends PostCheckCrossProcessConformance {
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
