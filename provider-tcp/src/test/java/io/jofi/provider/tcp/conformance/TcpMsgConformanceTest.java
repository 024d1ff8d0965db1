package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.MsgConformance;

/** The shared MsgConformance suite against the tcp provider (default progress). */
class TcpMsgConformanceTest extends MsgConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
