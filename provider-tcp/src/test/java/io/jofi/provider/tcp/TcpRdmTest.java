package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.jofi.Addresses;
import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Progress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** tcp RDM endpoints: connections on first use, reuse, FI_SOURCE (R10), failures. */
@Timeout(60)
class TcpRdmTest {

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void firstUseConnectsAndTheConnectionCarriesBothDirections(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            InetSocketAddress an = Addresses.fromSockaddr(a.name);
            assertNotEquals(0, an.getPort(), "getName of an enabled RDM endpoint has the listening port");
            long bInA = a.insert(b);
            long aInB = b.insert(a);
            ByteBuffer rb = ByteBuffer.allocateDirect(64);
            assertEquals(0, b.ep.recv(rb, null, Fi.FI_ADDR_UNSPEC, "rb"));
            assertEquals(0, a.ep.send(ByteBuffer.wrap(new byte[] {1, 2, 3}), null, bInA, "sa"));
            long[] src = {12345};
            CqEntry[] e = {new CqEntry()};
            readFrom(b, e, src);
            assertEquals(3, e[0].len());
            assertEquals(aInB, src[0], "readFrom: the sender's fi_addr in b's AV (R10)");
            assertEquals("sa", awaitCompletion(a.txCq).context());
            // b answers over the connection a made (no second connection)
            ByteBuffer ra = ByteBuffer.allocateDirect(64);
            assertEquals(0, a.ep.recv(ra, null, Fi.FI_ADDR_UNSPEC, "ra"));
            assertEquals(0, b.ep.send(ByteBuffer.wrap(new byte[] {9}), null, aInB, "sb"));
            readFrom(a, e, src);
            assertEquals(bInA, src[0]);
            assertEquals(1, ra.get(0) == 9 ? 1 : 0);
            assertEquals("sb", awaitCompletion(b.txCq).context());
            assertEquals(1, connections(b), "b reused a's connection");
            assertEquals(1, connections(a));
        }
    }

    /**
     * Endpoints whose info names a port (as {@code -B} does): the listener takes that port, and
     * the connections the endpoint makes do not try to bind it again (an MSG connect binds its
     * info's source address; an RDM endpoint's is its listener's).
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void endpointsOnNamedPortsConnectToEachOther(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node a = bed.node("a", onPort(bed, freePort()));
            RdmTestBed.Node b = bed.node("b", onPort(bed, freePort()));
            long bInA = a.insert(b);
            long aInB = b.insert(a);
            ByteBuffer rb = ByteBuffer.allocateDirect(64);
            ByteBuffer ra = ByteBuffer.allocateDirect(64);
            assertEquals(0, b.ep.recv(rb, null, Fi.FI_ADDR_UNSPEC, "rb"));
            assertEquals(0, a.ep.recv(ra, null, Fi.FI_ADDR_UNSPEC, "ra"));
            // both connect at once: each endpoint makes a connection from its own side
            assertEquals(0, a.ep.send(ByteBuffer.wrap(new byte[] {1}), null, bInA, "sa"));
            assertEquals(0, b.ep.send(ByteBuffer.wrap(new byte[] {2}), null, aInB, "sb"));
            CqEntry[] e = {new CqEntry()};
            long[] src = {0};
            readFrom(b, e, src);
            assertEquals(aInB, src[0]);
            readFrom(a, e, src);
            assertEquals(bInA, src[0]);
            assertEquals("sa", awaitCompletion(a.txCq).context());
            assertEquals("sb", awaitCompletion(b.txCq).context());
            assertEquals(1, rb.get(0));
            assertEquals(2, ra.get(0));
        }
    }

    private static io.jofi.Info onPort(RdmTestBed bed, int port) {
        io.jofi.Info i = bed.info.copy();
        i.srcAddr(Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", port)));
        return i;
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** FI_LOCAL_COMM: an endpoint sends to its own name (one socket, both ends its own). */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void anEndpointSendsToItself(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node a = bed.node("a");
            long self = a.insert(a);
            for (int i = 0; i < 3; i++) {
                ByteBuffer r = ByteBuffer.allocate(8);
                assertEquals(0, a.ep.recv(r, null, Fi.FI_ADDR_UNSPEC, "r" + i));
                assertEquals(0, a.ep.send(ByteBuffer.allocate(8).putLong(0, i), null, self, "s" + i));
                CqEntry[] e = {new CqEntry()};
                long[] src = {0};
                readFrom(a, e, src);
                assertEquals(self, src[0]);
                assertEquals(i, r.getLong(0));
                assertEquals("s" + i, awaitCompletion(a.txCq).context());
            }
        }
    }

    /** Both sides send first, at once, many times: one connection each time, every message once and in order. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void crossedConnectsEndWithOneConnectionAndLoseNothing(Progress mode) throws Exception {
        int rounds = 25;
        int perSide = 20;
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            for (int r = 0; r < rounds; r++) {
                RdmTestBed.Node a = bed.node("a" + r);
                RdmTestBed.Node b = bed.node("b" + r);
                long bInA = a.insert(b);
                long aInB = b.insert(a);
                ByteBuffer[] ra = new ByteBuffer[perSide];
                ByteBuffer[] rb = new ByteBuffer[perSide];
                for (int i = 0; i < perSide; i++) {
                    ra[i] = ByteBuffer.allocate(8);
                    rb[i] = ByteBuffer.allocate(8);
                    assertEquals(0, a.ep.recv(ra[i], null, Fi.FI_ADDR_UNSPEC, i));
                    assertEquals(0, b.ep.recv(rb[i], null, Fi.FI_ADDR_UNSPEC, i));
                }
                Thread other = new Thread(() -> sendSeq(b, aInB, perSide));
                other.start();
                sendSeq(a, bInA, perSide);
                other.join(TcpTestBed.TIMEOUT_MS);
                expectSeq(a, ra, bInA, perSide);
                expectSeq(b, rb, aInB, perSide);
                for (int i = 0; i < perSide; i++) {
                    awaitCompletion(a.txCq);
                    awaitCompletion(b.txCq);
                }
                awaitOneConnection(a);
                awaitOneConnection(b);
            }
        }
    }

    private static void sendSeq(RdmTestBed.Node n, long dest, int count) {
        for (int i = 0; i < count; i++) {
            ByteBuffer m = ByteBuffer.allocate(8).putLong(0, i);
            int rc;
            long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
            while ((rc = n.ep.send(m, null, dest, "s" + i)) == -io.jofi.Errno.EAGAIN) {
                n.txCq.read(new CqEntry[0], 0);
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("send kept returning EAGAIN");
                }
            }
            assertEquals(0, rc, "send " + i);
        }
    }

    /** The receives (posted in order) got 0, 1, 2, ... from {@code from}, each exactly once. */
    private static void expectSeq(RdmTestBed.Node n, ByteBuffer[] bufs, long from, int count) {
        CqEntry[] e = {new CqEntry()};
        long[] src = {0};
        for (int i = 0; i < count; i++) {
            readFrom(n, e, src);
            assertEquals(i, e[0].context(), "receives complete in posting order");
            assertEquals(8, e[0].len());
            assertEquals(from, src[0]);
            assertEquals(i, bufs[i].getLong(0), "message " + i + " in order, once");
        }
        TcpTestBed.assertNothing(n.rxCq, 20);
    }

    static void awaitOneConnection(RdmTestBed.Node n) {
        long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
        while (connections(n) != 1) {
            n.rxCq.read(new CqEntry[0], 0);
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError(connections(n) + " connections, expected 1");
            }
            Thread.onSpinWait();
        }
    }

    static int connections(RdmTestBed.Node n) {
        return ((io.jofi.provider.rxm.RxmEndpoint) n.ep).connectionCount();
    }

    static void readFrom(RdmTestBed.Node n, CqEntry[] e, long[] src) {
        long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
        while (true) {
            int rc = n.rxCq.readFrom(e, 1, src);
            if (rc == 1) {
                return;
            }
            assertEquals(-io.jofi.Errno.EAGAIN, rc, "readFrom");
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("no receive completion within " + TcpTestBed.TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }
}
