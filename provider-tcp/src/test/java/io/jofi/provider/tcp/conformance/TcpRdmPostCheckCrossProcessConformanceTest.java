package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.PostCheckCrossProcessConformance;

/** Runs {@link PostCheckCrossProcessConformance} on tcp RDM endpoints with side b in a child JVM, default progress. */
class TcpRdmPostCheckCrossProcessConformanceTest extends PostCheckCrossProcessConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
