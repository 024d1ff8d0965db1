package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.TaggedConformance;

/** The shared TaggedConformance suite against tcp RDM endpoints, default progress (AUTO). */
class TcpRdmTaggedConformanceTest extends TaggedConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
