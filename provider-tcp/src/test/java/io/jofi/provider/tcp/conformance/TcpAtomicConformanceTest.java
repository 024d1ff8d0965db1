package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.AtomicConformance;

/** The shared AtomicConformance suite against the tcp provider (its default progress, AUTO). */
class TcpAtomicConformanceTest extends AtomicConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
