package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;

/** {@link TcpProviderDepartureConformanceTest} (R15) with manual progress. */
class TcpManualProviderDepartureConformanceTest extends TcpProviderDepartureConformanceTest {
    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
