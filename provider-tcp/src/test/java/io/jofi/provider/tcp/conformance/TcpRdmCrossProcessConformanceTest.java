package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.CrossProcessConformance;

/** Runs {@link CrossProcessConformance} on tcp RDM endpoints with side b in a child JVM: AUTO progress on both sides. */
class TcpRdmCrossProcessConformanceTest extends CrossProcessConformance {
    @Override
    protected String provider() {
        return "tcp";
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }

    @Override
    protected Progress progress() {
        return Progress.AUTO;
    }

    @Override
    protected Progress remoteProgress() {
        return Progress.AUTO;
    }
}
