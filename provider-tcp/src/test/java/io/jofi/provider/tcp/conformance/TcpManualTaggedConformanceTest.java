package io.jofi.provider.tcp.conformance;

import io.jofi.Progress;
import io.jofi.conformance.TaggedConformance;

/** The shared TaggedConformance suite against the tcp provider with manual progress. */
class TcpManualTaggedConformanceTest extends TaggedConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
