package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.CounterConformance;

/** The shared CounterConformance suite against the tcp provider with manual progress. */
class TcpManualCounterConformanceTest extends CounterConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
