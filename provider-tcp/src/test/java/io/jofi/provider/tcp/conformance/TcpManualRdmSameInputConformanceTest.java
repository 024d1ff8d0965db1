package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.SameInputConformance;

/** Runs {@link SameInputConformance} against tcp RDM endpoints, manual progress. */
class TcpManualRdmSameInputConformanceTest extends SameInputConformance {
    @Override
    protected String provider() {
        return "tcp";
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
