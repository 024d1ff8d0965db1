package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.PostCheckConformance;

/** Runs {@link PostCheckConformance} against tcp MSG endpoints, manual progress. */
class TcpManualPostCheckConformanceTest extends PostCheckConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
