package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.EqConformance;

/** The shared EqConformance suite against the tcp provider (default progress). */
class TcpEqConformanceTest extends EqConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
