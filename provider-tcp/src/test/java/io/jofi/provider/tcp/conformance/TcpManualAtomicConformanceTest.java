package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.AtomicConformance;

/** The shared AtomicConformance suite against the tcp provider with manual progress. */
class TcpManualAtomicConformanceTest extends AtomicConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
