package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.PostCheckConformance;

/** Runs {@link PostCheckConformance} against tcp RDM endpoints, default progress (AUTO). */
class TcpRdmPostCheckConformanceTest extends PostCheckConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
