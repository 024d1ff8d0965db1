package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.util.ArrayList;
import java.util.List;

/**
 * Real sockets on 127.0.0.1: one provider, fabric and domain, and any number of RDM
 * endpoints ({@link Node}), each with its own AV and transmit/receive CQs. Waits are the
 * bounded ones of {@link TcpTestBed}.
 */
final class RdmTestBed implements AutoCloseable {
    final TcpProvider provider = new TcpProvider();
    /** tcp and ofi_rxm over it: RDM over tcp is tcp;ofi_rxm. */
    final io.jofi.internal.FabricsRegistry registry = TcpRdm.registry(provider);
    final Info info;
    final Fabric fabric;
    final Domain domain;
    /** Caps of {@link #overTcpDomain}'s endpoints; -1 when they open through {@code domain.endpoint}. */
    private final long directCaps;
    /** The settings of {@link #overTcpDomain}'s endpoints. */
    private final io.jofi.provider.rxm.RxmSettings directSettings;
    final List<Node> nodes = new ArrayList<>();

    /** One RDM endpoint with its AV and CQs. */
    final class Node {
        final Endpoint ep;
        final AddressVector av;
        final CompletionQueue txCq;
        final CompletionQueue rxCq;
        final byte[] name;

        Node(Info with, String label) throws FabricException {
            txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), label + "-tx");
            rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), label + "-rx");
            av = domain.openAv(new AvAttr(), label + "-av");
            ep = directCaps < 0 ? domain.endpoint(with, label)
                    : io.jofi.provider.rxm.RxmEndpoint.open(fabric, domain, with, directCaps,
                            directSettings, label);
            ep.bind(av, 0);
            ep.bind(txCq, Fi.FI_TRANSMIT);
            ep.bind(rxCq, Fi.FI_RECV);
            ep.enable();
            name = ep.getName();
        }

        /** Inserts {@code other}'s name into this node's AV; its fi_addr here. */
        long insert(Node other) {
            long[] fi = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, av.insert(new byte[][] {other.name}, fi, 0, null), "av insert");
            assertTrue(fi[0] != Fi.FI_ADDR_NOTAVAIL);
            return fi[0];
        }

        void close() throws FabricException {
            ep.close();
            av.close();
            txCq.close();
            rxCq.close();
        }
    }

    RdmTestBed(Progress mode, long caps) throws FabricException {
        Info hints = new Info().caps(caps);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(mode);
        info = TcpRdm.info(registry, "127.0.0.1", "0", Fi.FI_SOURCE, hints);
        assertEquals(EpType.RDM, info.epAttr().type());
        fabric = registry.fabric(info.fabricAttr(), null);
        domain = fabric.domain(info, null);
        directCaps = -1;
        directSettings = null;
    }

    /** RDM endpoints over a tcp MSG domain ({@code domain} is the {@link TcpDomain}), opened straight. */
    private RdmTestBed(long caps, Info msgInfo, io.jofi.provider.rxm.RxmSettings settings) throws FabricException {
        info = msgInfo;
        fabric = provider.fabric(info.fabricAttr(), null);
        domain = fabric.domain(info, null);
        directCaps = caps;
        directSettings = settings;
    }

    /**
     * A bed whose RDM endpoints are {@code RxmEndpoint}s opened straight over a tcp MSG domain, for
     * a test that looks into that domain (its loop): {@code domain} is the {@link TcpDomain}.
     */
    static RdmTestBed overTcpDomain(Progress mode, long caps) throws FabricException {
        return overTcpDomain(mode, caps, io.jofi.provider.rxm.RxmSettings.defaults());
    }

    /** The same with other rxm settings. */
    static RdmTestBed overTcpDomain(Progress mode, long caps, io.jofi.provider.rxm.RxmSettings settings)
            throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(mode);
        return new RdmTestBed(caps, new TcpProvider().getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints).get(0), settings);
    }

    /**
     * The tcp bundle stops, as DS stops it: the registry unbinds tcp (the rxm layer departs what it
     * opened over it), then tcp's component deactivates (its own objects depart).
     */
    void stopTcp() {
        registry.unbindProvider(provider, java.util.Map.of());
        provider.deactivate();
    }

    Node node(String label) throws FabricException {
        return node(label, info);
    }

    /** A node opened with another info of the same domain (e.g. another source address). */
    Node node(String label, Info with) throws FabricException {
        Node n = new Node(with, label);
        nodes.add(n);
        return n;
    }

    @Override
    public void close() throws Exception {
        for (Node n : nodes) {
            n.close();
        }
        domain.close();
        fabric.close();
    }
}
