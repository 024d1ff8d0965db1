package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.MsgConformance;

/** The shared MsgConformance suite against tcp RDM endpoints, default progress (AUTO). */
class TcpRdmMsgConformanceTest extends MsgConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
