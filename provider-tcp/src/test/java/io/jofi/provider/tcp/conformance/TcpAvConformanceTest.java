package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.AvConformance;

/** The shared AvConformance suite against the tcp provider (its default progress, AUTO). */
class TcpAvConformanceTest extends AvConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
