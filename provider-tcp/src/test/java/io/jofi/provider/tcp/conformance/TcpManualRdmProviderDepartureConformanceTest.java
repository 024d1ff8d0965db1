package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;

/** {@link TcpManualProviderDepartureConformanceTest} (R15) with tcp RDM endpoints. */
class TcpManualRdmProviderDepartureConformanceTest extends TcpManualProviderDepartureConformanceTest {
    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
