package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jofi.Addresses;
import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** tcp RDM endpoints when peers fail, are unknown, or are many (R10, R14-like per-peer failures). */
@Timeout(60)
class TcpRdmFailureTest {

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static String text(ByteBuffer b, long len) {
        byte[] x = new byte[(int) len];
        b.get(0, x);
        return new String(x, java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void enableWithoutAnAddressVectorIsEnoav() throws Exception {
        try (RdmTestBed bed = new RdmTestBed(Progress.AUTO, Fi.FI_MSG)) {
            Endpoint ep = bed.domain.endpoint(bed.info, "lonely");
            FabricException e = assertThrows(FabricException.class, ep::enable);
            assertEquals(Errno.ENOAV, e.errno(), e.getMessage());
            ep.close();
        }
    }

    /** getName of an endpoint bound to the wildcard address is a concrete address peers can use. */
    @Test
    void aWildcardSourceGivesAConcreteName() throws Exception {
        try (RdmTestBed bed = new RdmTestBed(Progress.AUTO, Fi.FI_MSG)) {
            RdmTestBed.Node w = bed.node("w", bed.info.copy().srcAddr(Addresses.toSockaddr(new InetSocketAddress("0.0.0.0", 0))));
            InetSocketAddress n = Addresses.fromSockaddr(w.name);
            org.junit.jupiter.api.Assertions.assertFalse(n.getAddress().isAnyLocalAddress(), "getName is never a wildcard: " + n);
            assertNotEquals(0, n.getPort());
            RdmTestBed.Node a = bed.node("a");
            assertEquals(0, w.ep.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "r"));
            assertEquals(0, a.ep.send(text("hi"), null, a.insert(w), "s"));
            assertEquals("r", awaitCompletion(w.rxCq).context(), "a peer reaches it at that name");
        }
    }

    /**
     * R15: the provider departs — every pending operation of an RDM endpoint ends with
     * ECANCELED (a send waiting for its match ack, a receive), the listener closes, no thread
     * is left, and further calls answer ENODEV.
     */
    @Test
    void departureCancelsPendingRdmOperationsAndClosesTheListener() throws Exception {
        RdmTestBed bed = new RdmTestBed(Progress.AUTO, Fi.FI_MSG);
        RdmTestBed.Node a = bed.node("a");
        RdmTestBed.Node b = bed.node("b");
        long bInA = a.insert(b);
        assertEquals(0, a.ep.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "pending-recv"));
        Msg m = new Msg().buffer(text("waits"), null).addr(bInA).context("pending-send");
        assertEquals(0, a.ep.sendMsg(m, Fi.FI_MATCH_COMPLETE));
        long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
        while (TcpRdmTest.connections(b) != 1 && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait();
        }
        bed.stopTcp();
        java.util.Set<Object> contexts = new java.util.HashSet<>();
        for (int i = 0; i < 2; i++) {
            CompletionQueue cq = i == 0 ? a.rxCq : a.txCq;
            CqErrEntry e = awaitError(cq);
            assertEquals(Errno.ECANCELED, e.err(), e.toString());
            contexts.add(e.context());
        }
        assertEquals(java.util.Set.of("pending-recv", "pending-send"), contexts);
        assertEquals(-Errno.ENODEV, a.ep.send(text("late"), null, bInA, "late"));
        InetSocketAddress listen = Addresses.fromSockaddr(b.name);
        assertThrows(java.net.ConnectException.class, () -> new java.net.Socket(listen.getAddress(), listen.getPort()).close(),
                "the listener is closed");
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("jofi-tcp-")) {
                t.join(TcpTestBed.TIMEOUT_MS);
                org.junit.jupiter.api.Assertions.assertFalse(t.isAlive(), t.getName() + " outlived the provider");
            }
        }
    }

    /** A peer that is not listening: every queued operation fails with ECONNREFUSED; the next send tries again. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aRefusedConnectFailsTheQueuedSendsAndTheNextSendRetries(Progress mode) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node a = bed.node("a");
            long[] fi = {0};
            a.av.insert(new byte[][] {Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", port))}, fi, 0, null);
            assertEquals(0, a.ep.send(text("one"), null, fi[0], "one"));
            assertEquals(0, a.ep.send(text("two"), null, fi[0], "two"));
            for (String ctx : new String[] {"one", "two"}) {
                CqErrEntry e = awaitError(a.txCq);
                assertEquals(Errno.ECONNREFUSED, e.err(), "a connect that fails fails every queued op: " + e);
                assertEquals(ctx, e.context());
            }
            assertEquals(0, a.ep.send(text("three"), null, fi[0], "three"));
            CqErrEntry e = awaitError(a.txCq);
            assertEquals(Errno.ECONNREFUSED, e.err());
            assertEquals("three", e.context());
            assertEquals(0, TcpRdmTest.connections(a));
        }
    }

    /**
     * With rxm's {@code avRemoveCleanup} ({@code FI_AV_REMOVE_CLEANUP=1}; by default the connection
     * stays, {@code RxmPeerLossTest}), b takes a out of its AV: that connection closes — b's pending send to a fails with
     * ECANCELED, a's pending send to b with ECONNRESET — while c goes on; a's next send
     * reconnects; b (FI_SOURCE, a not in its AV) sees FI_ADDR_NOTAVAIL, and after inserting a
     * again its new fi_addr.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aDeadConnectionFailsOnlyItsOperationsAndTheNextSendReconnects(Progress mode) throws Exception {
        try (RdmTestBed bed = RdmTestBed.overTcpDomain(mode, Fi.FI_MSG | Fi.FI_SOURCE,
                io.jofi.provider.rxm.RxmSettings.defaults().withAvRemoveCleanup(true))) {
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            RdmTestBed.Node c = bed.node("c");
            long bInA = a.insert(b);
            long aInB = b.insert(a);
            long cInB = b.insert(c);
            long bInC = c.insert(b);
            ByteBuffer rb = ByteBuffer.allocate(64);
            assertEquals(0, b.ep.recv(rb, null, Fi.FI_ADDR_UNSPEC, "rb1"));
            assertEquals(0, a.ep.send(text("hello"), null, bInA, "hello"));
            awaitCompletion(b.rxCq);
            awaitCompletion(a.txCq);
            // pending on both sides: match-complete sends nobody has a receive for (no ack yet)
            Msg toB = new Msg().buffer(text("pending-a"), null).addr(bInA).context("pa");
            assertEquals(0, a.ep.sendMsg(toB, Fi.FI_MATCH_COMPLETE));
            Msg toA = new Msg().buffer(text("pending-b"), null).addr(aInB).context("pb");
            assertEquals(0, b.ep.sendMsg(toA, Fi.FI_MATCH_COMPLETE));
            TcpTestBed.assertNothing(a.txCq, 50);

            assertEquals(0, b.av.remove(new long[] {aInB}, 0), "av remove");
            CqErrEntry eb = awaitError(b.txCq);
            assertEquals("pb", eb.context());
            assertEquals(Errno.ECANCELED, eb.err(), "b ended it: ECANCELED");
            CqErrEntry ea = awaitError(a.txCq);
            assertEquals("pa", ea.context());
            assertEquals(Errno.ECONNRESET, ea.err(), "the peer ended it: ECONNRESET");

            // c is not disturbed
            ByteBuffer rc = ByteBuffer.allocate(64);
            assertEquals(0, c.ep.send(text("from-c"), null, bInC, "c1"));
            awaitCompletion(c.txCq);

            // a sends again: a new connection; b does not know a any more (FI_SOURCE: NOTAVAIL)
            assertEquals(0, a.ep.send(text("again"), null, bInA, "again"));
            awaitCompletion(a.txCq);
            assertEquals(0, b.ep.recv(rc, null, Fi.FI_ADDR_UNSPEC, "rb2"));
            boolean sawAgain = false;
            boolean sawC = false;
            CqEntry[] e = {new CqEntry()};
            long[] src = {0};
            // b receives (in some order) "from-c", "again", and maybe a's "pending-a" if it
            // arrived before the connection closed
            ByteBuffer[] bufs = {ByteBuffer.allocate(64), ByteBuffer.allocate(64)};
            assertEquals(0, b.ep.recv(bufs[0], null, Fi.FI_ADDR_UNSPEC, bufs[0]));
            assertEquals(0, b.ep.recv(bufs[1], null, Fi.FI_ADDR_UNSPEC, bufs[1]));
            long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
            while (!(sawAgain && sawC)) {
                TcpRdmTest.readFrom(b, e, src);
                ByteBuffer got = e[0].context() == "rb2" ? rc : (ByteBuffer) e[0].context();
                String s = text(got, e[0].len());
                if (s.equals("again")) {
                    assertEquals(Fi.FI_ADDR_NOTAVAIL, src[0], "a sender not in the AV (R10)");
                    sawAgain = true;
                } else if (s.equals("from-c")) {
                    assertEquals(cInB, src[0]);
                    sawC = true;
                } else {
                    assertEquals("pending-a", s);
                    ByteBuffer spare = ByteBuffer.allocate(64);
                    assertEquals(0, b.ep.recv(spare, null, Fi.FI_ADDR_UNSPEC, spare));
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("b did not receive both messages");
                }
            }
            long aAgain = b.insert(a);
            ByteBuffer r3 = ByteBuffer.allocate(64);
            assertEquals(0, b.ep.recv(r3, null, Fi.FI_ADDR_UNSPEC, "rb3"));
            assertEquals(0, a.ep.send(text("third"), null, bInA, "third"));
            // "third" takes b's oldest receive still posted: rb3, or one of the two above that
            // "pending-a" did not take (rxm drops an unmatched match-complete rendezvous of a
            // lost connection: its sender had ECONNRESET for it, so nobody waits for it)
            ByteBuffer third;
            do {
                TcpRdmTest.readFrom(b, e, src);
                third = e[0].context() == "rb3" ? r3 : e[0].context() == "rb2" ? rc
                        : e[0].context() instanceof ByteBuffer bb ? bb : null;
            } while (third == null || !text(third, e[0].len()).equals("third"));
            assertEquals(aAgain, src[0], "after the insert, a's messages report its new fi_addr (R10)");
            // b answers over the connection a made
            assertEquals(0, b.ep.send(text("back"), null, aAgain, "back"));
            awaitCompletion(b.txCq);
            assertEquals(2, TcpRdmTest.connections(b), "one connection to a, one to c");
        }
    }

    /** R10: FI_SOURCE_ERR turns a message of a sender not in the AV into EADDRNOTAVAIL with its name, ready for av.insert. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void sourceErrReportsAnUnknownSenderAndTheInsertedAddressWorks(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR)) {
            assertEquals(Fi.FI_SOURCE_ERR, bed.info.caps() & Fi.FI_SOURCE_ERR);
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            long bInA = a.insert(b);
            ByteBuffer rb = ByteBuffer.allocate(16);
            assertEquals(0, b.ep.recv(rb, null, Fi.FI_ADDR_UNSPEC, "r1"));
            assertEquals(0, a.ep.sendData(text("who"), null, 77, bInA, "s1"));
            CqErrEntry e = awaitError(b.rxCq);
            assertEquals(Errno.EADDRNOTAVAIL, e.err(), e.toString());
            assertEquals("r1", e.context());
            assertEquals(3, e.len(), "the data was received");
            assertEquals("who", text(rb, 3));
            assertEquals(77, e.data(), "remote CQ data kept");
            byte[] raw = Arrays.copyOf(e.errData(), e.errDataSize());
            assertArrayEquals(a.name, raw, "errData is the sender's name");
            long[] fi = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, b.av.insert(new byte[][] {raw}, fi, 0, null));
            assertEquals(0, b.ep.recv(rb, null, Fi.FI_ADDR_UNSPEC, "r2"));
            assertEquals(0, a.ep.send(text("me"), null, bInA, "s2"));
            CqEntry[] ce = {new CqEntry()};
            long[] src = {0};
            TcpRdmTest.readFrom(b, ce, src);
            assertEquals(fi[0], src[0], "the inserted address reports its fi_addr");
        }
    }

    /** Without FI_SOURCE_ERR an unknown sender is FI_ADDR_NOTAVAIL (R10); the endpoint did not ask for it. */
    @Test
    void withoutSourceErrAnUnknownSenderIsNotAvailable() throws Exception {
        try (RdmTestBed bed = new RdmTestBed(Progress.AUTO, Fi.FI_MSG | Fi.FI_SOURCE)) {
            assertEquals(0, bed.info.caps() & Fi.FI_SOURCE_ERR, "FI_SOURCE_ERR is not given unasked");
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            long bInA = a.insert(b);
            assertEquals(0, b.ep.recv(ByteBuffer.allocate(16), null, Fi.FI_ADDR_UNSPEC, "r"));
            assertEquals(0, a.ep.send(text("x"), null, bInA, "s"));
            CqEntry[] ce = {new CqEntry()};
            long[] src = {0};
            TcpRdmTest.readFrom(b, ce, src);
            assertEquals(Fi.FI_ADDR_NOTAVAIL, src[0]);
        }
    }

    /** Three senders, one receiver: readFrom names each; each sender's messages arrive in order. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void fanInReportsEachSender(Progress mode) throws Exception {
        int each = 10;
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node d = bed.node("d");
            RdmTestBed.Node[] senders = {bed.node("s0"), bed.node("s1"), bed.node("s2")};
            long[] inD = new long[3];
            for (int i = 0; i < 3; i++) {
                inD[i] = d.insert(senders[i]);
            }
            ByteBuffer[] bufs = new ByteBuffer[3 * each];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = ByteBuffer.allocate(8);
                assertEquals(0, d.ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, bufs[i]));
            }
            for (int i = 0; i < 3; i++) {
                long dest = senders[i].insert(d);
                for (int k = 0; k < each; k++) {
                    assertEquals(0, senders[i].ep.send(ByteBuffer.allocate(8).putInt(0, i).putInt(4, k), null, dest, k));
                }
            }
            int[] next = new int[3];
            CqEntry[] e = {new CqEntry()};
            long[] src = {0};
            for (int n = 0; n < 3 * each; n++) {
                TcpRdmTest.readFrom(d, e, src);
                ByteBuffer got = (ByteBuffer) e[0].context();
                int who = got.getInt(0);
                assertEquals(inD[who], src[0], "readFrom names the sender");
                assertEquals(next[who]++, got.getInt(4), "in order per sender");
            }
            for (RdmTestBed.Node s : senders) {
                for (int k = 0; k < each; k++) {
                    awaitCompletion(s.txCq);
                }
            }
            assertEquals(3, TcpRdmTest.connections(d));
        }
    }

    /** FI_DIRECTED_RECV: a receive naming a source takes only that peer's messages. */
    @Test
    void directedReceivesMatchOnlyTheirPeer() throws Exception {
        try (RdmTestBed bed = new RdmTestBed(Progress.AUTO, Fi.FI_MSG | Fi.FI_DIRECTED_RECV)) {
            RdmTestBed.Node d = bed.node("d");
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node c = bed.node("c");
            d.insert(a);
            long cInD = d.insert(c);
            assertEquals(0, d.ep.recv(ByteBuffer.allocate(8), null, cInD, "from-c-only"));
            assertEquals(0, d.ep.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "any"));
            assertEquals(0, a.ep.send(text("a"), null, a.insert(d), "sa"));
            assertEquals("any", awaitCompletion(d.rxCq).context(), "a's message skips the receive directed at c");
            assertEquals(0, c.ep.send(text("c"), null, c.insert(d), "sc"));
            assertEquals("from-c-only", awaitCompletion(d.rxCq).context());
        }
    }
}
