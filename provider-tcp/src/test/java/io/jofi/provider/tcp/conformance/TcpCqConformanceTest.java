package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.CqConformance;

/** The shared CqConformance suite against the tcp provider (default progress). */
class TcpCqConformanceTest extends CqConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
