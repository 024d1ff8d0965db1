package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.RmaConformance;

/** The shared RmaConformance suite against tcp RDM endpoints, manual progress. */
class TcpManualRdmRmaConformanceTest extends RmaConformance {
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
