package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.ConnectionConformance;

/** The shared ConnectionConformance suite against the tcp provider (default progress). */
class TcpConnectionConformanceTest extends ConnectionConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
