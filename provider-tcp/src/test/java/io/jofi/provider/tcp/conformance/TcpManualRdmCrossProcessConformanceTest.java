package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.Progress;
import io.jofi.conformance.CrossProcessConformance;

/** Runs {@link CrossProcessConformance} on tcp RDM endpoints with side b in a child JVM: MANUAL progress on both sides. */
class TcpManualRdmCrossProcessConformanceTest extends CrossProcessConformance {
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
        return Progress.MANUAL;
    }

    @Override
    protected Progress remoteProgress() {
        return Progress.MANUAL;
    }
}
