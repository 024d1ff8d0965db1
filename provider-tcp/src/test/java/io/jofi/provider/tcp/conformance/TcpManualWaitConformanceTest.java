package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.WaitConformance;

/** The shared WaitConformance suite against the tcp provider with manual progress. */
class TcpManualWaitConformanceTest extends WaitConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
