package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.ReceivePostingConformance;

/** The shared ReceivePostingConformance suite against tcp MSG endpoints, default progress (AUTO). */
class TcpReceivePostingConformanceTest extends ReceivePostingConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
