package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.rxm.RxmProvider;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code ofi_rxm} layer as a provider of its own over tcp: {@code prov_name tcp} finds the
 * RDM infos of {@code tcp;ofi_rxm}, which tcp itself no longer offers; stopping the layer departs
 * its RDM endpoints ({@code ENODEV}) and takes RDM away while tcp's MSG connections carry on, and
 * starting it again brings RDM back; stopping tcp takes {@code tcp;ofi_rxm} away with it.
 */
class RxmLayerLifecycleTest {
    private static final Map<String, Object> NO_PROPS = Map.of();

    private static Info rdmHints(String provName) {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provName);
        return hints;
    }

    @Test
    void tcpOffersMsgOnlyAndItsNameSelectsTheLayerOverIt() throws Exception {
        TcpProvider tcp = new TcpProvider();
        FabricException none = assertThrows(FabricException.class, () -> tcp.getInfo(null, null, 0, rdmHints(null)));
        assertEquals(Errno.ENODATA, none.errno());
        FabricsRegistry registry = TcpRdm.registry(tcp);
        for (String name : List.of("tcp", "tcp;ofi_rxm", "ofi_rxm")) {
            List<Info> infos = registry.getInfo("127.0.0.1", null, 0, rdmHints(name));
            for (Info i : infos) {
                assertEquals("tcp;ofi_rxm", i.fabricAttr().provName(), name);
                assertEquals(EpType.RDM, i.epAttr().type(), name);
            }
        }
        Info msgHints = new Info();
        msgHints.epAttr().type(EpType.MSG);
        msgHints.fabricAttr().provName("tcp;ofi_rxm");
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class,
                () -> registry.getInfo(null, null, 0, msgHints)).errno());
        msgHints.fabricAttr().provName("tcp");
        assertEquals("tcp", registry.getInfo(null, null, 0, msgHints).get(0).fabricAttr().provName());
    }

    @Test
    void stoppingTheLayerDepartsRdmAndLeavesTcpMsgWorkingAndStartingItBringsRdmBack() throws Exception {
        try (TcpTestBed msg = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            FabricsRegistry registry = new FabricsRegistry();
            RxmProvider layer = new RxmProvider();
            registry.bindProvider(layer, NO_PROPS);
            registry.bindProvider(msg.provider, NO_PROPS);
            Pair rdm = new Pair(registry);
            rdm.exchange("before");

            registry.unbindProvider(layer, NO_PROPS);
            layer.deactivate(); // what DS calls when the layer's bundle stops
            ByteBuffer buf = ByteBuffer.allocateDirect(16);
            FabricException departed = assertThrows(FabricException.class,
                    () -> FabricException.check(rdm.a.recv(buf, null, Fi.FI_ADDR_UNSPEC, "late"), "late"));
            assertEquals(Errno.ENODEV, departed.errno(), departed.getMessage());
            assertEquals(Errno.ENODATA, assertThrows(FabricException.class,
                    () -> registry.getInfo("127.0.0.1", null, 0, rdmHints("tcp"))).errno());
            msgExchange(msg, "tcp MSG carries on");

            registry.bindProvider(new RxmProvider(), NO_PROPS);
            Pair again = new Pair(registry);
            again.exchange("after");
            again.close();
            msgExchange(msg, "and still");
        }
    }

    @Test
    void stoppingTcpTakesTcpOfiRxmAwayAndItsRdmEndpointsReportEnodev() throws Exception {
        TcpProvider tcp = new TcpProvider();
        FabricsRegistry registry = TcpRdm.registry(tcp);
        Pair rdm = new Pair(registry);
        rdm.exchange("before");
        registry.unbindProvider(tcp, NO_PROPS);
        TcpLifecycle.deactivate(tcp);
        ByteBuffer buf = ByteBuffer.allocateDirect(16);
        FabricException departed = assertThrows(FabricException.class,
                () -> FabricException.check(rdm.b.send(buf, null, rdm.aAddr, "late"), "late"));
        assertEquals(Errno.ENODEV, departed.errno(), departed.getMessage());
        FabricException gone = assertThrows(FabricException.class,
                () -> registry.getInfo("127.0.0.1", null, 0, rdmHints("tcp;ofi_rxm")));
        assertEquals(Errno.ENODATA, gone.errno());
        assertTrue(registry.providers().stream().allMatch(p -> !p.name().equals("tcp")));
    }

    private static void msgExchange(TcpTestBed bed, String text) throws FabricException {
        ByteBuffer rx = ByteBuffer.allocateDirect(64);
        FabricException.check(bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"), "rx");
        ByteBuffer tx = ByteBuffer.allocateDirect(64).put(text.getBytes(StandardCharsets.UTF_8)).flip();
        FabricException.check(bed.client.send(tx, null, Fi.FI_ADDR_UNSPEC, "tx"), "tx");
        assertEquals(text.length(), awaitCompletion(bed.serverCq).len());
        awaitCompletion(bed.clientCq);
    }

    /** Two RDM endpoints of tcp;ofi_rxm in one domain, each in the other's AV. */
    private static final class Pair {
        final Fabric fabric;
        final Domain domain;
        final CompletionQueue cq;
        final AddressVector av;
        final Endpoint a;
        final Endpoint b;
        final long aAddr;
        final long bAddr;

        Pair(FabricsRegistry registry) throws FabricException {
            Info info = TcpRdm.info(registry, "127.0.0.1", "0", Fi.FI_SOURCE, new Info().caps(Fi.FI_MSG));
            assertEquals("tcp;ofi_rxm", info.fabricAttr().provName());
            fabric = registry.fabric(info.fabricAttr(), null);
            domain = fabric.domain(info, null);
            cq = domain.openCq(new CqAttr().format(CqFormat.MSG), null);
            av = domain.openAv(new AvAttr(), null);
            a = open(info);
            b = open(info);
            aAddr = av.insert(a.getName());
            bAddr = av.insert(b.getName());
        }

        private Endpoint open(Info info) throws FabricException {
            Endpoint ep = domain.endpoint(info, null);
            ep.bind(av, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            return ep;
        }

        void exchange(String text) throws FabricException {
            ByteBuffer rx = ByteBuffer.allocateDirect(64);
            FabricException.check(a.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"), "rx");
            ByteBuffer tx = ByteBuffer.allocateDirect(64).put(text.getBytes(StandardCharsets.UTF_8)).flip();
            FabricException.check(b.send(tx, null, aAddr, "tx"), "tx");
            int seen = 0;
            while (seen < 2) {
                io.jofi.CqEntry e = awaitCompletion(cq);
                if ((e.flags() & Fi.FI_RECV) != 0) {
                    assertEquals(text.length(), e.len());
                }
                seen++;
            }
        }

        void close() throws FabricException {
            a.close();
            b.close();
            av.close();
            cq.close();
            domain.close();
            fabric.close();
        }
    }
}
