package io.jofi.provider.tcp.conformance;

import io.jofi.EpType;

/** {@link TcpProviderDepartureConformanceTest} (R15) with tcp RDM endpoints. */
class TcpRdmProviderDepartureConformanceTest extends TcpProviderDepartureConformanceTest {
    @Override
    protected EpType epType() {
        return EpType.RDM;
    }
}
