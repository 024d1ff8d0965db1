package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.ReceivePostingConformance;

/** Runs {@link ReceivePostingConformance} against shm RDM endpoints, AUTO progress. */
class ShmReceivePostingConformanceTest extends ReceivePostingConformance {
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
