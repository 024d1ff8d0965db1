package io.jofi.provider.shm.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.MsgConformance;

/** Runs {@link MsgConformance} against shm RDM endpoints, AUTO progress. */
class ShmMsgConformanceTest extends MsgConformance {
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
