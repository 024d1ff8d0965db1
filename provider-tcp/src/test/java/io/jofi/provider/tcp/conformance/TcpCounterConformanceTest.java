package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.CounterConformance;

/** The shared CounterConformance suite against the tcp provider (default progress). */
class TcpCounterConformanceTest extends CounterConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
