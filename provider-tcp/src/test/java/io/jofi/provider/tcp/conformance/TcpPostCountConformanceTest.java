package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.PostCountConformance;

/** Runs {@link PostCountConformance} against tcp: exact post counters under FI_THREAD_SAFE. */
class TcpPostCountConformanceTest extends PostCountConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
