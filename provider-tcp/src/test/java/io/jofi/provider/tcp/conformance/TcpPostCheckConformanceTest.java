package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.PostCheckConformance;

/** Runs {@link PostCheckConformance} against tcp MSG endpoints, default progress (AUTO). */
class TcpPostCheckConformanceTest extends PostCheckConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
