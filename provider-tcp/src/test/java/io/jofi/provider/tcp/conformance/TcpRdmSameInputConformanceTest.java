package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.SameInputConformance;

/** Runs {@link SameInputConformance} against tcp RDM endpoints, default progress (AUTO). */
class TcpRdmSameInputConformanceTest extends SameInputConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
