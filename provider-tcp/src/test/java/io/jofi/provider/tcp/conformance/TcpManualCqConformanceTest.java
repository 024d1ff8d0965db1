package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.CqConformance;

/** The shared CqConformance suite against the tcp provider with manual progress. */
class TcpManualCqConformanceTest extends CqConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
