package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static io.jofi.provider.tcp.TcpTestBed.awaitEventError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Addresses;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Progress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** MSG connection management over real sockets (R14, docs/TCP-WIRE.md handshake). */
@Timeout(60)
class TcpConnectionTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void connectAndAcceptCarryExactlyTheDataBothWays(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode)) {
            bed.client = bed.newClient();
            bed.client.connect(bed.pep.getName(), bytes("ClientData"));
            EqEntry req = awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
            assertSame(bed.pep, req.fid());
            assertEquals("pep", req.context());
            assertEquals(10, req.payloadLength());
            assertArrayEquals(bytes("ClientData"), Arrays.copyOf(req.payload(), req.payloadLength()));
            assertEquals(PendingConnection.class, req.info().handle().getClass());

            bed.server = bed.domain.endpoint(req.info(), "server");
            bed.server.bind(bed.serverEq, 0);
            bed.server.bind(bed.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            bed.server.enable();
            bed.server.accept(bytes("ACCEPT"));

            EqEntry s = awaitEvent(bed.serverEq, Fi.FI_CONNECTED);
            assertSame(bed.server, s.fid());
            EqEntry c = awaitEvent(bed.clientEq, Fi.FI_CONNECTED);
            assertSame(bed.client, c.fid());
            assertEquals("client", c.context());
            assertEquals(6, c.payloadLength());
            assertArrayEquals(bytes("ACCEPT"), Arrays.copyOf(c.payload(), c.payloadLength()));

            assertArrayEquals(bed.client.getName(), bed.server.getPeer());
            assertArrayEquals(bed.server.getName(), bed.client.getPeer());
        }
    }

    /**
     * The passive side's {@code FI_CONNECTED} is on its EQ before any request that its peer can send
     * only after its own {@code FI_CONNECTED}: fabtests' fi_multi_ep server reads the pep's and the
     * endpoints' events from one EQ and fails on a {@code FI_CONNREQ} where it waits for the
     * {@code FI_CONNECTED} of the endpoint it just accepted; its client connects its next endpoint as
     * soon as the previous one is connected. Before, the accepting side posted its event after the
     * response was written and its socket had moved to the data loop, a window in which the next
     * request could be read and posted first.
     */
    @Test
    @Timeout(120)
    void theAcceptedEndpointsConnectedComesBeforeTheNextRequestOnASharedEq() throws Exception {
        int n = 300;
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            java.util.List<Endpoint> opened = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            java.util.concurrent.atomic.AtomicReference<Throwable> clientFailure = new java.util.concurrent.atomic.AtomicReference<>();
            Thread clients = new Thread(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        Endpoint c = bed.newClient();
                        opened.add(c);
                        c.connect(bed.pep.getName(), null);
                        awaitEvent(bed.clientEq, Fi.FI_CONNECTED); // then at once the next one, as fi_multi_ep
                    }
                } catch (Throwable t) {
                    clientFailure.set(t);
                }
            }, "clients");
            clients.start();
            try {
                for (int i = 0; i < n && clientFailure.get() == null; i++) {
                    EqEntry req = awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
                    Endpoint s = bed.domain.endpoint(req.info(), "server-" + i);
                    opened.add(s);
                    s.bind(bed.pepEq, 0); // one EQ for the listener and every accepted endpoint
                    s.bind(bed.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                    s.enable();
                    s.accept(null);
                    EqEntry next = new EqEntry();
                    long deadline = System.nanoTime() + TcpTestBed.TIMEOUT_MS * 1_000_000L;
                    int rc;
                    while ((rc = bed.pepEq.read(next, 0)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    assertEquals(1, rc, "the event after accept " + i);
                    assertEquals(Fi.FI_CONNECTED, next.event(), "connection " + i + ": the event after accept, on the shared EQ");
                    assertSame(s, next.fid());
                }
            } finally {
                clients.join(TcpTestBed.TIMEOUT_MS * 2);
                bed.closeLater.addAll(opened);
            }
            if (clientFailure.get() != null) {
                throw new AssertionError("the client side failed", clientFailure.get());
            }
        }
    }

    @Test
    void connectWithoutDataGivesAnEmptyPayload() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            bed.client = bed.newClient();
            bed.client.connect(bed.pep.getName(), null);
            EqEntry req = awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
            assertEquals(0, req.payloadLength());
        }
    }

    @Test
    void rejectWithDataGivesConnRefusedAndTheData() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            bed.client = bed.newClient();
            bed.client.connect(bed.pep.getName(), bytes("hello"));
            EqEntry req = awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
            bed.pep.reject(req.info().handle(), bytes("REJECT-DATA"));
            EqErrEntry err = awaitEventError(bed.clientEq);
            assertEquals(Errno.ECONNREFUSED, err.err());
            assertSame(bed.client, err.fid());
            assertEquals(11, err.errDataSize());
            assertArrayEquals(bytes("REJECT-DATA"), Arrays.copyOf(err.errData(), err.errDataSize()));
            // the handle is spent
            FabricException again = assertThrows(FabricException.class, () -> bed.pep.reject(req.info().handle(), null));
            assertEquals(Errno.EINVAL, again.errno());
        }
    }

    @Test
    void connectToAClosedPortGivesConnRefused() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            bed.client = bed.newClient();
            bed.client.connect(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", port)), null);
            EqErrEntry err = awaitEventError(bed.clientEq);
            assertEquals(Errno.ECONNREFUSED, err.err());
        }
    }

    @Test
    void connectBindsTheSourceAddressOfItsInfo() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            bed.client = bed.newClientFrom(new InetSocketAddress("127.0.0.1", port));
            bed.client.connect(bed.pep.getName(), null);
            bed.acceptServer(null, ep -> { });
            awaitEvent(bed.clientEq, Fi.FI_CONNECTED);
            assertEquals(new InetSocketAddress("127.0.0.1", port), Addresses.fromSockaddr(bed.server.getPeer()));
            assertArrayEquals(bed.client.getName(), bed.server.getPeer());
        }
    }

    @Test
    void aSourcePortInUseIsRefusedAndTheEndpointCanStillConnect() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO);
             ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            bed.client = bed.newClientFrom(new InetSocketAddress("127.0.0.1", taken.getLocalPort()));
            FabricException e = assertThrows(FabricException.class, () -> bed.client.connect(bed.pep.getName(), null));
            assertEquals(Errno.EADDRINUSE, e.errno(), e.getMessage());
            assertTrue(e.getMessage().contains(Integer.toString(taken.getLocalPort())), e.getMessage());
            assertThrows(FabricException.class, bed.client::getPeer); // nothing half-made
            taken.close(); // the port is free now: the same endpoint connects from it
            bed.client.connect(bed.pep.getName(), null);
            awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shutdownFromTheClientGivesOneShutdownOnBothSides(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            bed.client.shutdown(0);
            bed.client.shutdown(0); // a second call does nothing
            awaitEvent(bed.clientEq, Fi.FI_SHUTDOWN);
            awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
            assertNoMoreEvents(bed);
        }
    }

    @Test
    void shutdownFromTheServerGivesOneShutdownOnBothSides() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            bed.server.shutdown(0);
            awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
            awaitEvent(bed.clientEq, Fi.FI_SHUTDOWN);
            assertNoMoreEvents(bed);
        }
    }

    @Test
    void closingThePeerGivesShutdownOnce() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            bed.server.close();
            bed.server = null;
            awaitEvent(bed.clientEq, Fi.FI_SHUTDOWN);
            assertNoMoreEvents(bed);
        }
    }

    /**
     * fi_getname names the endpoint's own address also once the peer has closed the connection
     * (fabtests' fi_msg_sockets checks it right after accept, when a fast client may be gone).
     */
    @Test
    void getNameAfterThePeerClosedStillNamesTheLocalAddress() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            bed.client.close();
            bed.client = null;
            awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
            assertArrayEquals(bed.pep.getName(), bed.server.getName());
        }
    }

    private static void assertNoMoreEvents(TcpTestBed bed) throws InterruptedException {
        Thread.sleep(100);
        EqEntry e = new EqEntry();
        assertEquals(-Errno.EAGAIN, bed.clientEq.read(e, 0), "client EQ has no further event");
        assertEquals(-Errno.EAGAIN, bed.serverEq.read(e, 0), "server EQ has no further event");
    }

    @Test
    void cmDataSizeOptionIs256AndLongerDataIsRefused() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            Endpoint ep = bed.newClient();
            bed.client = ep;
            assertEquals(256, ep.getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_CM_DATA_SIZE));
            FabricException e = assertThrows(FabricException.class, () -> ep.connect(bed.pep.getName(), new byte[257]));
            assertEquals(Errno.EINVAL, e.errno());
        }
    }

    @Test
    void manualProgressRunsNoDataThreadAndAutoRunsOne() throws Exception {
        try (TcpTestBed manual = new TcpTestBed(Progress.MANUAL)) {
            assertEquals(null, ((TcpDomain) manual.domain).engine().thread(), "MANUAL: data moves in the application's calls");
            assertEquals(Progress.MANUAL, ((TcpDomain) manual.domain).engine().mode());
        }
        try (TcpTestBed auto = new TcpTestBed(Progress.AUTO)) {
            Thread t = ((TcpDomain) auto.domain).engine().thread();
            assertEquals(true, t != null && t.isAlive() && t.getName().startsWith("jofi-tcp-progress-"));
        }
    }

    @Test
    void acceptingWithoutAConnReqIsABadState() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            Endpoint ep = bed.newClient();
            bed.client = ep;
            FabricException e = assertThrows(FabricException.class, () -> ep.accept(null));
            assertEquals(Errno.EOPBADSTATE, e.errno());
        }
    }
}
