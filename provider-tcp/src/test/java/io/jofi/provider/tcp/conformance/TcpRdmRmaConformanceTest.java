package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.RmaConformance;

/** The shared RmaConformance suite against tcp RDM endpoints, default progress (AUTO). */
class TcpRdmRmaConformanceTest extends RmaConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
