package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;
import io.jofi.Fabrics;
import io.jofi.Progress;
import io.jofi.conformance.CounterConformance;

/** The shared CounterConformance suite against RxmEndpoint over tcp MSG endpoints (test-only provider tcp_rxm), manual progress. */
class RxmTcpCounterConformanceTest extends CounterConformance {
    @Override
    protected Fabrics fabrics() {
        return RxmOverTcpProvider.registry();
    }

    @Override
    protected String provider() {
        return RxmOverTcpProvider.NAME;
    }

    @Override
    protected EpType epType() {
        return EpType.RDM;
    }

    @Override
    protected Progress progress() {
        return Progress.MANUAL;
    }
}
