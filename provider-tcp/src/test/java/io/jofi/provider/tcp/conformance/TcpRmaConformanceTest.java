package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.RmaConformance;

/** The shared RmaConformance suite against the tcp provider (its default progress, AUTO). */
class TcpRmaConformanceTest extends RmaConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
