package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.FabricConformance;

/** The shared FabricConformance suite against the tcp provider (default progress). */
class TcpFabricConformanceTest extends FabricConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
