package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitError;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Addresses;
import io.jofi.CqErrEntry;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Ends of connections: peer shutdown with pending operations, garbage from a raw socket, departure (R14, R15). */
@Timeout(60)
class TcpFailureTest {

    @Test
    void thePeersShutdownFailsPendingOperationsWithConnReset() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocate(8);
            bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "r1");
            bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "r2");
            bed.server.shutdown(0);
            awaitEvent(bed.clientEq, Fi.FI_SHUTDOWN);
            CqErrEntry e1 = awaitError(bed.clientCq);
            CqErrEntry e2 = awaitError(bed.clientCq);
            assertEquals("r1", e1.context());
            assertEquals("r2", e2.context());
            assertEquals(Errno.ECONNRESET, e1.err());
            assertEquals(Errno.ECONNRESET, e2.err());
            assertEquals(-Errno.ENOTCONN, bed.client.send(rx, null, 0, "late"));
        }
    }

    /** Data the peer sent before its shutdown is not lost: a receive posted afterwards gets it. */
    @Test
    void messagesThatArrivedBeforeThePeersShutdownStayReceivable() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            ByteBuffer tx = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
            assertEquals(0, bed.server.inject(tx, 0));
            bed.server.shutdown(0);
            awaitEvent(bed.clientEq, Fi.FI_SHUTDOWN); // the message was read before the FIN
            ByteBuffer rx = ByteBuffer.allocate(8);
            assertEquals(0, bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "after-shutdown"));
            io.jofi.CqEntry c = awaitCompletion(bed.clientCq);
            assertEquals("after-shutdown", c.context());
            assertEquals(5, c.len());
            assertEquals(3, rx.get(2));
            assertEquals(-Errno.EOPBADSTATE, bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "nothing-left"),
                    "with nothing left to receive, a receive on an ended connection is refused");
        }
    }

    @Test
    void ourShutdownCancelsPendingReceives() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocate(8);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "pending");
            bed.server.shutdown(0);
            awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
            CqErrEntry e = awaitError(bed.serverCq);
            assertEquals("pending", e.context());
            assertEquals(Errno.ECANCELED, e.err());
        }
    }

    /** A raw peer that connects, gets accepted, then sends a header with op 9. */
    @Test
    void garbageFromAPeerTearsDownThatConnectionOnly() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            InetSocketAddress listen = Addresses.fromSockaddr(bed.pep.getName());
            try (Socket raw = new Socket(listen.getAddress(), listen.getPort())) {
                OutputStream out = raw.getOutputStream();
                ByteBuffer req = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH);
                new CmMessage().set(TcpWireDescriptor.CM_TYPE_REQUEST, null, 0, 0).encode(req);
                out.write(req.array());
                out.flush();
                EqEntry creq = awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
                Endpoint victim = bed.domain.endpoint(creq.info(), "victim");
                try {
                    victim.bind(bed.serverEq, 0);
                    victim.bind(bed.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                    victim.enable();
                    victim.accept(null);
                    awaitEvent(bed.serverEq, Fi.FI_CONNECTED);
                    InputStream in = raw.getInputStream();
                    byte[] resp = in.readNBytes(TcpWireDescriptor.CM_HEADER_LENGTH);
                    assertEquals(TcpWireDescriptor.CM_TYPE_ACCEPT, resp[1]);
                    ByteBuffer rx = ByteBuffer.allocate(64);
                    victim.recv(rx, null, Fi.FI_ADDR_UNSPEC, "victim-rx");
                    byte[] garbage = {3, 9, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 16};
                    out.write(garbage);
                    out.flush();
                    EqEntry down = awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
                    assertSame(victim, down.fid());
                    CqErrEntry e = awaitError(bed.serverCq);
                    assertEquals("victim-rx", e.context());
                    assertEquals(Errno.ECONNRESET, e.err());
                    assertEquals(-1, in.read(), "the socket is closed");
                } finally {
                    victim.close();
                }
            }
            // the good connection is undisturbed
            ByteBuffer rx = ByteBuffer.allocate(8);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "ok");
            bed.client.send(ByteBuffer.allocate(3), null, Fi.FI_ADDR_UNSPEC, "tx");
            assertEquals("ok", awaitCompletion(bed.serverCq).context());
        }
    }

    @Test
    void aRequestOfAnotherVersionIsDroppedWithoutAnEvent() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            InetSocketAddress listen = Addresses.fromSockaddr(bed.pep.getName());
            try (Socket raw = new Socket(listen.getAddress(), listen.getPort())) {
                byte[] req = new byte[TcpWireDescriptor.CM_HEADER_LENGTH];
                req[0] = 2;
                raw.getOutputStream().write(req);
                raw.setSoTimeout((int) TcpTestBed.TIMEOUT_MS);
                int r;
                try {
                    r = raw.getInputStream().read();
                } catch (java.net.SocketException reset) {
                    r = -1;
                }
                assertEquals(-1, r, "closed without an answer");
            }
            assertEquals(-Errno.EAGAIN, bed.pepEq.read(new EqEntry(), 0));
        }
    }

    @Test
    void departureCancelsPendingOperationsShutsConnectionsAndStopsThreads() throws Exception {
        TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
        ByteBuffer rx = ByteBuffer.allocate(8);
        bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "pending");
        bed.provider.deactivate();
        awaitEvent(bed.clientEq, Fi.FI_SHUTDOWN);
        CqErrEntry e = awaitError(bed.clientCq);
        assertEquals("pending", e.context());
        assertEquals(Errno.ECANCELED, e.err());
        assertEquals(-Errno.ENODEV, bed.client.send(rx, null, 0, null));
        FabricException ex = assertThrows(FabricException.class, () -> bed.domain.endpoint(bed.info, null));
        assertEquals(Errno.ENODEV, ex.errno());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("jofi-tcp-")) {
                t.join(TcpTestBed.TIMEOUT_MS);
                assertFalse(t.isAlive(), t.getName() + " outlived the provider");
            }
        }
        FabricException info = assertThrows(FabricException.class, () -> bed.provider.getInfo(null, null, 0, null));
        assertEquals(Errno.ENODEV, info.errno());
    }

    @Test
    void infosNameTheInterfaceAndItsNetwork() throws Exception {
        TcpProvider p = new TcpProvider();
        io.jofi.Info i = p.getInfo("127.0.0.1", "4711", 0, null).get(0);
        assertEquals("lo", i.domainAttr().name());
        assertEquals("127.0.0.0/8", i.fabricAttr().name());
        assertEquals("tcp", i.fabricAttr().provName());
        assertEquals(io.jofi.EpType.MSG, i.epAttr().type());
        assertEquals(io.jofi.AddrFormat.SOCKADDR_IN, i.addrFormat());
        assertEquals(new InetSocketAddress("127.0.0.1", 4711), Addresses.fromSockaddr(i.destAddr()));
        assertTrue(i.epAttr().maxMsgSize() >= 16 << 20);
        assertEquals(128, i.txAttr().injectSize());
        assertEquals(8, i.domainAttr().cqDataSize());
        assertEquals(Fi.FI_MSG | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_SOURCE | Fi.FI_LOCAL_COMM | Fi.FI_REMOTE_COMM
                | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ
                | Fi.FI_REMOTE_WRITE | Fi.FI_MULTI_RECV | Fi.FI_RMA_EVENT | Fi.FI_DIRECTED_RECV, i.caps());
        io.jofi.Info s = p.getInfo("127.0.0.1", "4711", Fi.FI_SOURCE, null).get(0);
        assertEquals(new InetSocketAddress("127.0.0.1", 4711), Addresses.fromSockaddr(s.srcAddr()));
        assertNull(s.destAddr());
        io.jofi.Info hints = new io.jofi.Info().caps(Fi.FI_COLLECTIVE); // not offered
        FabricException none = assertThrows(FabricException.class, () -> p.getInfo(null, null, 0, hints));
        assertEquals(Errno.ENODATA, none.errno());
        assertEquals(Fi.FI_PROTO_SOCK_TCP, i.epAttr().protocol());
    }

    @Test
    void addressesArePrintedAsInetNtopDoes() {
        assertEquals("127.0.0.0", TcpProvider.numeric(new byte[] {127, 0, 0, 0}));
        byte[] v6 = new byte[16];
        v6[15] = 1;
        assertEquals("::1", TcpProvider.numeric(v6));
        v6[0] = (byte) 0xfd;
        assertEquals("fd00::1", TcpProvider.numeric(v6));
        byte[] one = new byte[16];
        one[1] = 1; // 0001:0:...:0 -> 1::
        assertEquals("1::", TcpProvider.numeric(one));
    }
}
