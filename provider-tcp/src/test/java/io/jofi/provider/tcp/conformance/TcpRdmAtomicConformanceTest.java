package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.AtomicConformance;

/** The shared AtomicConformance suite against tcp RDM endpoints, default progress (AUTO). */
class TcpRdmAtomicConformanceTest extends AtomicConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
