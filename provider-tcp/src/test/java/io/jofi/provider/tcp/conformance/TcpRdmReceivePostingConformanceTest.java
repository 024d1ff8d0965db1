package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.conformance.ReceivePostingConformance;

/** The shared ReceivePostingConformance suite against tcp RDM endpoints (the rxm layer), default progress (AUTO). */
class TcpRdmReceivePostingConformanceTest extends ReceivePostingConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
