package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.Addresses;
import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Crossed connects, step by step against {@link RawRdmPeer}: the connection initiated by the
 * lower name is kept, the queued sends travel on it in order, the other is refused or closed.
 * Names: 127.0.0.1:P sorts below 127.0.0.2:P (same port, the address decides).
 */
@Timeout(60)
class TcpRdmCrossedConnectTest {

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** The peer's name is higher: the endpoint refuses the peer's request (crossed) and keeps its own. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void theLowerEndpointRefusesTheCrossingRequest(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node j = bed.node("j");
            int port = Addresses.fromSockaddr(j.name).getPort();
            try (RawRdmPeer x = new RawRdmPeer("127.0.0.2", port)) {
                long xInJ = insert(j, x.name);
                send(j, xInJ, "m1", "m2");
                try (Socket fromJ = x.accept(); Socket toJ = RawRdmPeer.connect(j.name)) {
                    CmMessage req = RawRdmPeer.readCm(fromJ);
                    assertEquals(TcpWireDescriptor.CM_TYPE_REQUEST, req.type());
                    byte[] hello = req.dataCopy();
                    assertEquals(TcpRdmHelloDescriptor.KIND_HELLO, TcpRdmHelloDescriptor.kind(hello, hello.length));
                    assertArrayEquals(j.name, TcpRdmHelloDescriptor.name(hello, hello.length), "the hello names the endpoint");
                    // x's own request crosses j's
                    RawRdmPeer.writeCm(toJ, TcpWireDescriptor.CM_TYPE_REQUEST, x.hello());
                    CmMessage answer = RawRdmPeer.readCm(toJ);
                    assertEquals(TcpWireDescriptor.CM_TYPE_REJECT, answer.type());
                    byte[] reason = answer.dataCopy();
                    assertEquals(TcpRdmHelloDescriptor.KIND_REJECT_CROSSED, TcpRdmHelloDescriptor.kind(reason, reason.length));
                    RawRdmPeer.assertEnds(toJ);
                    // x accepts j's request: j's queued sends arrive there, in order
                    RawRdmPeer.writeCm(fromJ, TcpWireDescriptor.CM_TYPE_ACCEPT, x.hello());
                    assertDeliveredInOrder(fromJ, j, "m1", "m2");
                    assertEquals(1, TcpRdmTest.connections(j));
                }
            }
        }
    }

    /** The peer's name is lower: the endpoint accepts the peer's request and moves its queued sends there. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void theHigherEndpointAcceptsTheCrossingRequestAndMovesItsSends(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            try (RawRdmPeer x = new RawRdmPeer("127.0.0.1", 0)) {
                RdmTestBed.Node j = higherThan(bed, x);
                long xInJ = insert(j, x.name);
                send(j, xInJ, "m1", "m2");
                try (Socket fromJ = x.accept(); Socket toJ = RawRdmPeer.connect(j.name)) {
                    assertEquals(TcpWireDescriptor.CM_TYPE_REQUEST, RawRdmPeer.readCm(fromJ).type());
                    RawRdmPeer.writeCm(toJ, TcpWireDescriptor.CM_TYPE_REQUEST, x.hello());
                    CmMessage answer = RawRdmPeer.readCm(toJ);
                    assertEquals(TcpWireDescriptor.CM_TYPE_ACCEPT, answer.type());
                    byte[] hello = answer.dataCopy();
                    assertArrayEquals(j.name, TcpRdmHelloDescriptor.name(hello, hello.length), "the accept carries j's hello");
                    assertEquals("m1", RawRdmPeer.readMessage(toJ), "j's queued sends moved to x's connection");
                    assertEquals("m2", RawRdmPeer.readMessage(toJ));
                    RawRdmPeer.assertEnds(fromJ);
                    assertEquals(0, j.ep.send(text("m3"), null, xInJ, "m3"));
                    assertEquals("m3", RawRdmPeer.readMessage(toJ), "later sends use it too");
                    ByteBuffer r = ByteBuffer.allocate(16);
                    assertEquals(0, j.ep.recv(r, null, Fi.FI_ADDR_UNSPEC, "r"));
                    RawRdmPeer.writeMessage(toJ, "hi");
                    CqEntry[] e = {new CqEntry()};
                    long[] src = {0};
                    TcpRdmTest.readFrom(j, e, src);
                    assertEquals(xInJ, src[0], "the acceptor maps the hello's name to the fi_addr (FI_SOURCE)");
                    assertEquals(1, TcpRdmTest.connections(j));
                }
            }
        }
    }

    /** The crossed reject arrives before the peer's request: the queued sends wait for that connection. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aRejectedEndpointKeepsItsSendsForThePeersConnection(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            try (RawRdmPeer x = new RawRdmPeer("127.0.0.1", 0)) {
                RdmTestBed.Node j = higherThan(bed, x);
                long xInJ = insert(j, x.name);
                TcpConnection parked = parkedByACrossedReject(j, x, xInJ);
                TcpTestBed.assertNothing(j.txCq, 20);
                try (Socket toJ = RawRdmPeer.connect(j.name)) {
                    RawRdmPeer.writeCm(toJ, TcpWireDescriptor.CM_TYPE_REQUEST, x.hello());
                    assertEquals(TcpWireDescriptor.CM_TYPE_ACCEPT, RawRdmPeer.readCm(toJ).type());
                    assertDeliveredInOrder(toJ, j, "m1", "m2");
                    assertEquals(false, parked.isUp(), "the parked connection is gone");
                }
            }
        }
    }

    /** The peer's connection never comes (its connect failed): the parked side connects again and delivers. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aParkedEndpointConnectsAgainWhenThePeersConnectionNeverComes(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            try (RawRdmPeer x = new RawRdmPeer("127.0.0.1", 0)) {
                RdmTestBed.Node j = higherThan(bed, x);
                long xInJ = insert(j, x.name);
                parkedByACrossedReject(j, x, xInJ);
                // x never connects: after TcpRdmEndpoint.PARK_RETRY_NANOS j connects again
                try (Socket again = x.accept()) {
                    CmMessage req = RawRdmPeer.readCm(again);
                    assertEquals(TcpWireDescriptor.CM_TYPE_REQUEST, req.type());
                    RawRdmPeer.writeCm(again, TcpWireDescriptor.CM_TYPE_ACCEPT, x.hello());
                    assertDeliveredInOrder(again, j, "m1", "m2");
                }
            }
        }
    }

    /**
     * j on 127.0.0.2 with x's port (x took its port on 127.0.0.1 first: any socket of this host
     * may hold a given port there): the two names differ in the address alone, j's is the higher.
     */
    private static RdmTestBed.Node higherThan(RdmTestBed bed, RawRdmPeer x) throws Exception {
        return bed.node("j", onAddress(bed.info, "127.0.0.2", Addresses.fromSockaddr(x.name).getPort()));
    }

    /** j sends each text to {@code dest}, with the text as the context; every send is accepted at once (queued). */
    private static void send(RdmTestBed.Node j, long dest, String... texts) {
        for (String t : texts) {
            assertEquals(0, j.ep.send(text(t), null, dest, t), "send " + t);
        }
    }

    /** The raw peer reads the texts on {@code s} in order, and j completes their sends in that order. */
    private static void assertDeliveredInOrder(Socket s, RdmTestBed.Node j, String... texts) throws Exception {
        for (String t : texts) {
            assertEquals(t, RawRdmPeer.readMessage(s));
        }
        for (String t : texts) {
            assertEquals(t, awaitCompletion(j.txCq).context());
        }
    }

    /**
     * j sends m1 to x; x refuses j's request as the crossed connection it drops (j closes that
     * socket); j parks its sends for x's connection, and m2 queues behind m1 there.
     *
     * @return the parked connection
     */
    private static TcpConnection parkedByACrossedReject(RdmTestBed.Node j, RawRdmPeer x, long xInJ) throws Exception {
        send(j, xInJ, "m1");
        try (Socket fromJ = x.accept()) {
            RawRdmPeer.readCm(fromJ);
            RawRdmPeer.writeCm(fromJ, TcpWireDescriptor.CM_TYPE_REJECT,
                    TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_REJECT_CROSSED, null));
            RawRdmPeer.assertEnds(fromJ);
        }
        TcpConnection parked = awaitParked(j);
        send(j, xInJ, "m2");
        return parked;
    }

    private static TcpConnection awaitParked(RdmTestBed.Node j) {
        long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
        while (true) {
            TcpConnection c = ((TcpRdmEndpoint) j.ep).awaitingPeer();
            if (c != null) {
                return c;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("the endpoint never parked its sends");
            }
            Thread.onSpinWait();
        }
    }

    private static Info onAddress(Info info, String host, int port) {
        return info.copy().srcAddr(Addresses.toSockaddr(new InetSocketAddress(host, port)));
    }

    private static long insert(RdmTestBed.Node n, byte[] name) {
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        assertEquals(1, n.av.insert(new byte[][] {name}, fi, 0, null));
        return fi[0];
    }
}
