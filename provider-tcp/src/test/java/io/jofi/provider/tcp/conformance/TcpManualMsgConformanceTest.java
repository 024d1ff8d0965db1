package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.MsgConformance;

/** The shared MsgConformance suite against the tcp provider with manual progress. */
class TcpManualMsgConformanceTest extends MsgConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
