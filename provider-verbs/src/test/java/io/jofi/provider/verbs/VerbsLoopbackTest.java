package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.Addresses;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.ProviderState;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Loopback addresses reach no RDMA device (rxe and siw sit on an Ethernet interface, rdma_cm
 * routes nothing through {@code lo} to them): {@code getInfo} with {@code FI_SOURCE} on
 * 127.0.0.1 finds nothing ({@code ENODATA}, runs anywhere), and an MSG connect from the
 * device's address to 127.0.0.1 ends with an error event at once instead of a connect request
 * nobody ever answers (on a device: the soft-RoCE VM).
 */
@Timeout(60)
class VerbsLoopbackTest {
    private static final ActivePort PORT = new ActivePort("rxe0", 1, false, true, 16384, 32, 65536, 1L << 31, 16, true);

    @Test
    void aLoopbackSourceAddressFindsNoDevice() {
        FabricException e = assertThrows(FabricException.class,
                () -> VerbsInfos.offer(List.of(PORT), "127.0.0.1", "7471", Fi.FI_SOURCE, 256, 64));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("loopback"), e.getMessage());
    }

    @Test
    void aLoopbackDestinationStillFindsInfos() throws FabricException {
        // a client's destination is not checked by getInfo: the connect (or send) reports it
        assertTrue(!VerbsInfos.offer(List.of(PORT), "127.0.0.1", "7471", 0, 256, 64).isEmpty());
    }

    @Test
    void loopbackSockaddrsAreRecognised() throws Exception {
        assertTrue(Sockaddrs.isLoopback(sa("127.0.0.1")));
        assertTrue(Sockaddrs.isLoopback(sa("127.1.2.3")));
        assertTrue(Sockaddrs.isLoopback(sa("::1")));
        assertTrue(!Sockaddrs.isLoopback(sa("10.0.2.15")));
        assertTrue(!Sockaddrs.isLoopback(sa("0.0.0.0")));
        assertTrue(!Sockaddrs.isLoopback(sa("::")));
        assertTrue(!Sockaddrs.isLoopback(sa("fe80::1")));
        assertTrue(!Sockaddrs.isLoopback(null));
    }

    private static byte[] sa(String host) throws Exception {
        return Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByName(host), 7471));
    }

    /** R14: a connect to 127.0.0.1 from the device's address gets an error event (EHOSTUNREACH), promptly. */
    @Test
    void anMsgConnectToLoopbackEndsWithAnErrorEvent() throws Exception {
        VerbsProvider provider = new VerbsProvider();
        assumeTrue(provider.state() == ProviderState.AVAILABLE, "verbs unavailable: " + provider.unavailableReason());
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        Info info = provider.getInfo("127.0.0.1", "7471", 0, hints).get(0);
        assertTrue(info.srcAddr() != null && !Sockaddrs.isLoopback(info.srcAddr()), "the source is the device's address");
        List<Fid> opened = new ArrayList<>();
        try {
            Fabric fabric = provider.fabric(info.fabricAttr(), null);
            opened.add(fabric);
            EventQueue eq = fabric.openEq(new EqAttr(), "eq");
            opened.add(eq);
            Domain domain = fabric.domain(info, null);
            opened.add(domain);
            CompletionQueue cq = domain.openCq(new CqAttr(), "cq");
            opened.add(cq);
            Endpoint ep = domain.endpoint(info, "ep");
            opened.add(ep);
            ep.bind(eq, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            ep.connect(info.destAddr(), null);
            EqEntry entry = new EqEntry();
            EqErrEntry err = new EqErrEntry();
            long end = System.nanoTime() + 30_000_000_000L;
            int rc;
            while ((rc = eq.read(entry, 0)) == -Errno.EAGAIN && System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
            if (rc != -Errno.EAVAIL) {
                fail("expected an error event, got " + rc + (rc >= 0 ? " event " + entry.event() : ""));
            }
            assertEquals(1, eq.readErr(err, 0));
            assertEquals(Errno.EHOSTUNREACH, err.err(), "connect to 127.0.0.1: " + err);
            assertEquals("ep", err.context());
        } finally {
            // newest first, so that each object is closed after what it is bound to
            Collections.reverse(opened);
            for (Fid f : opened) {
                f.close();
            }
        }
    }
}
