package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.WaitConformance;

/** The shared WaitConformance suite against the tcp provider (its default progress, AUTO). */
class TcpWaitConformanceTest extends WaitConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
