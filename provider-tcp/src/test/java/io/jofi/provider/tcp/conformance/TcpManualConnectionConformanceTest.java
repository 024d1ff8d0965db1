package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.ConnectionConformance;

/** The shared ConnectionConformance suite against the tcp provider with manual progress. */
class TcpManualConnectionConformanceTest extends ConnectionConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
