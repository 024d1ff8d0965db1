package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.SameInputConformance;

/** Runs {@link SameInputConformance} against tcp MSG endpoints, manual progress. */
class TcpManualSameInputConformanceTest extends SameInputConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
