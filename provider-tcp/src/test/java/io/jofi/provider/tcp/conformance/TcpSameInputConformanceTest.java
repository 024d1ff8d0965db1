package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.SameInputConformance;

/** Runs {@link SameInputConformance} against tcp MSG endpoints, default progress (AUTO). */
class TcpSameInputConformanceTest extends SameInputConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
