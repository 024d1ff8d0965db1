package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.RmaConformance;

/** The shared RmaConformance suite against the tcp provider with manual progress. */
class TcpManualRmaConformanceTest extends RmaConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
