package io.jofi.provider.tcp.conformance;

import io.jofi.conformance.TaggedConformance;

/** The shared TaggedConformance suite against the tcp provider (its default progress, AUTO). */
class TcpTaggedConformanceTest extends TaggedConformance {
    @Override
    protected String provider() {
        return "tcp";
    }
}
