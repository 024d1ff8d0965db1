package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.AddressVector;
import io.jofi.Addresses;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.ProviderState;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Verbs RDM endpoints (the rxm layer over verbs MSG endpoints) on a real device (the soft-RoCE
 * and soft-iWARP VM; skipped with "verbs unavailable: …" elsewhere): crossed connects lose and
 * reorder nothing, a peer that dies fails only the operations pending towards it, and the raw
 * name an {@code FI_SOURCE_ERR} completion carries is what the AV takes (R10).
 */
@Timeout(120)
class VerbsRdmTest {
    private static final long WAIT_NANOS = 30_000_000_000L;
    private static final long CAPS = Fi.FI_MSG | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR;

    private VerbsProvider provider;
    private Fabric fabric;
    private Domain domain;
    private Info info;
    /**
     * The open nodes of the running test: every wait drives the progress of all of them (R1:
     * reading a CQ progresses its endpoints), as an application with {@code Progress.MANUAL}
     * drives every endpoint it has, so that each end's timers and completions run while a
     * test waits on the other.
     */
    private static final List<Node> nodes = new ArrayList<>();
    private static final CqEntry[] NONE = new CqEntry[0];

    /** One RDM endpoint with its AV and CQs. */
    private final class Node {
        final Endpoint ep;
        final AddressVector av;
        final CompletionQueue txCq;
        final CompletionQueue rxCq;
        final byte[] name;

        Node(String label) throws FabricException {
            txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), label + "-tx");
            rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), label + "-rx");
            av = domain.openAv(new AvAttr(), label + "-av");
            ep = domain.endpoint(info, label);
            ep.bind(av, 0);
            ep.bind(txCq, Fi.FI_TRANSMIT);
            ep.bind(rxCq, Fi.FI_RECV);
            ep.enable();
            name = ep.getName();
            nodes.add(this);
        }

        long insert(Node other) {
            return insert(other.name);
        }

        long insert(byte[] raw) {
            long[] fi = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, av.insert(new byte[][] {raw}, fi, 0, null), "av insert");
            return fi[0];
        }

        void close() throws FabricException {
            ep.close();
            av.close();
            txCq.close();
            rxCq.close();
        }
    }

    private void open(Progress mode) throws FabricException {
        open(mode, CAPS);
    }

    /** {@link #open(Progress)} with FI_AV_REMOVE_CLEANUP on: fi_av_remove ends the peer's connection. */
    private void openClosingOnRemove(Progress mode) throws FabricException {
        System.setProperty("jofi.rxm.avRemoveCleanup", "1"); // rxm's settings are read at getInfo
        try {
            open(mode);
        } finally {
            System.clearProperty("jofi.rxm.avRemoveCleanup");
        }
    }

    private void open(Progress mode, long caps) throws FabricException {
        provider = new VerbsProvider();
        assumeTrue(provider.state() == ProviderState.AVAILABLE, "verbs unavailable: " + provider.unavailableReason());
        Info hints = new Info().caps(caps);
        if ((caps & Fi.FI_RMA) != 0) {
            hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY); // what RMA needs
        }
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(mode);
        hints.fabricAttr().provName(VerbsProvider.NAME);
        // RDM over verbs is verbs;ofi_rxm: the layer over this provider in a registry of their own
        io.jofi.internal.FabricsRegistry registry = new io.jofi.internal.FabricsRegistry();
        registry.bindProvider(new io.jofi.provider.rxm.RxmProvider(), java.util.Map.of());
        registry.bindProvider(provider, java.util.Map.of());
        info = registry.getInfo(null, null, 0, hints).get(0); // RMA too on every device, iWARP's included
        assertEquals(EpType.RDM, info.epAttr().type());
        assertEquals("verbs;ofi_rxm", info.fabricAttr().provName());
        fabric = registry.fabric(info.fabricAttr(), null);
        domain = fabric.domain(info, null);
    }

    @BeforeEach
    void gate() {
        assumeTrue(new VerbsProvider().state() == ProviderState.AVAILABLE, "verbs unavailable");
    }

    @AfterEach
    void closeAll() throws Exception {
        for (Node n : nodes) {
            n.close();
        }
        nodes.clear();
        if (domain != null) {
            domain.close();
        }
        if (fabric != null) {
            fabric.close();
        }
    }

    private static void until(BooleanSupplier done, String what) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                fail("timed out waiting for " + what);
            }
            driveEveryNode();
            Thread.onSpinWait();
        }
    }

    /** One progress pass of every open node: a read of none from each CQ (its answer is not the point). */
    private static void driveEveryNode() {
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            n.txCq.read(NONE, 0);
            n.rxCq.read(NONE, 0);
        }
    }

    private static void post(BooleanSupplier accepted, String what) {
        until(accepted, what + " to be accepted");
    }

    private static int sendRc(Node from, ByteBuffer b, long to, Object ctx) {
        return from.ep.send(b, null, to, ctx);
    }

    /** Which message (seed - base, as {@link #message} wrote it; '?' when none fits) each buffer holds. */
    private static String seeds(ByteBuffer[] bufs, int base) {
        StringBuilder b = new StringBuilder("[");
        for (ByteBuffer x : bufs) {
            int found = -1;
            for (int s = 0; s < 256 && found < 0; s++) {
                if (x.get(0) == (byte) (s * 31) && x.get(1) == (byte) (s * 31 + 1)) {
                    found = s;
                }
            }
            b.append(b.length() > 1 ? " " : "").append(found < 0 ? "?" : String.valueOf(found - base));
        }
        return b.append(']').toString();
    }

    private static ByteBuffer message(int seed, int n) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (seed * 31 + i));
        }
        return b;
    }

    /** Reads one receive completion (with its source), failing on an error completion. */
    private static CqEntry receive(Node n, long[] src, String what) {
        CqEntry[] e = {new CqEntry()};
        CqErrEntry err = new CqErrEntry();
        long end = System.nanoTime() + WAIT_NANOS;
        while (true) {
            int rc = n.rxCq.readFrom(e, 1, src);
            if (rc == 1) {
                return e[0];
            }
            if (rc == -Errno.EAVAIL) {
                n.rxCq.readErr(err, 0);
                fail(what + ": error completion " + err);
            }
            if (System.nanoTime() - end > 0) {
                fail("timed out waiting for " + what);
            }
            driveEveryNode();
            Thread.onSpinWait();
        }
    }

    /**
     * Both ends send first at once: the crossed connects resolve as rxm resolves them, and every
     * message of both arrives, in order, with its sender's fi_addr.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void crossedConnectsKeepOneConnectionAndLoseNothing(Progress mode) throws FabricException {
        open(mode);
        Node a = new Node("a");
        Node b = new Node("b");
        long bAtA = a.insert(b);
        long aAtB = b.insert(a);
        int count = 8;
        ByteBuffer[] ra = new ByteBuffer[count];
        ByteBuffer[] rb = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            ByteBuffer x = ra[i] = ByteBuffer.allocateDirect(64);
            ByteBuffer y = rb[i] = ByteBuffer.allocateDirect(64);
            post(() -> a.ep.recv(x, null, Fi.FI_ADDR_UNSPEC, "ra") == 0, "a's receive");
            post(() -> b.ep.recv(y, null, Fi.FI_ADDR_UNSPEC, "rb") == 0, "b's receive");
        }
        // interleaved, before either connection can be up: both connect at once
        for (int i = 0; i < count; i++) {
            ByteBuffer toB = message(i, 40);
            ByteBuffer toA = message(100 + i, 40);
            post(() -> sendRc(a, toB, bAtA, "a") == 0, "a's send");
            post(() -> sendRc(b, toA, aAtB, "b") == 0, "b's send");
        }
        for (int i = 0; i < count; i++) {
            long[] src = {-1};
            CqEntry e = receive(b, src, "b's receive " + i);
            assertEquals(aAtB, src[0], "the sender's fi_addr (FI_SOURCE)");
            assertEquals(40, e.len());
            int k = i;
            assertEquals((byte) (i * 31), rb[i].get(0), () -> "b's message " + k + " in order; the messages (seeds)"
                    + " in b's receives, in posting order: " + seeds(rb, 0));
            src[0] = -1;
            e = receive(a, src, "a's receive " + i);
            assertEquals(bAtA, src[0], "the sender's fi_addr (FI_SOURCE)");
            assertEquals((byte) ((100 + i) * 31), ra[i].get(0), () -> "a's message " + k + " in order; the messages"
                    + " (seeds) in a's receives, in posting order: " + seeds(ra, 100));
        }
        CqEntry[] t = {new CqEntry()};
        int[] sent = {0, 0};
        until(() -> {
            sent[0] += Math.max(0, a.txCq.read(t, 1));
            sent[1] += Math.max(0, b.txCq.read(t, 1));
            return sent[0] == count && sent[1] == count;
        }, "every send to complete");
    }

    /**
     * A peer dies with sends pending towards it (FI_MATCH_COMPLETE sends it has no receive for:
     * they wait for one): they complete with ECONNRESET; the endpoint goes on with another peer.
     */
    @Test
    void peerDeathFailsOnlyItsPendingOperations() throws FabricException {
        open(Progress.AUTO);
        Node a = new Node("a");
        Node dying = new Node("dying");
        Node c = new Node("c");
        long dyingAtA = a.insert(dying);
        long cAtA = a.insert(c);
        dying.insert(a);
        c.insert(a);
        int pending = 4;
        for (int i = 0; i < pending; i++) {
            Msg m = new Msg().buffer(message(i, 32), null).addr(dyingAtA).context("to-dying");
            post(() -> a.ep.sendMsg(m, Fi.FI_MATCH_COMPLETE) == 0, "send to the dying peer");
        }
        // the connection comes up (a receive at the peer proves it), the rest wait for receives
        ByteBuffer one = ByteBuffer.allocateDirect(64);
        post(() -> dying.ep.recv(one, null, Fi.FI_ADDR_UNSPEC, "one") == 0, "the dying peer's one receive");
        receive(dying, new long[1], "the dying peer's first message");
        nodes.remove(dying);
        dying.close();
        CqErrEntry err = new CqErrEntry();
        CqEntry[] ok = {new CqEntry()};
        int[] outcome = {0, 0};
        until(() -> {
            int rc = a.txCq.read(ok, 1);
            if (rc == 1) {
                outcome[0]++;
            } else if (rc == -Errno.EAVAIL && a.txCq.readErr(err, 0) == 1) {
                assertEquals(Errno.ECONNRESET, err.err(), "a send pending towards a dead peer: " + err);
                assertEquals("to-dying", err.context());
                outcome[1]++;
            }
            return outcome[0] + outcome[1] == pending;
        }, "every send to the dead peer to complete");
        assertEquals(1, outcome[0], "the one the peer received succeeded");
        assertEquals(pending - 1, outcome[1], "the others failed");
        ByteBuffer rc = ByteBuffer.allocateDirect(64);
        post(() -> c.ep.recv(rc, null, Fi.FI_ADDR_UNSPEC, "rc") == 0, "c's receive");
        ByteBuffer m = message(7, 24);
        post(() -> sendRc(a, m, cAtA, "to-c") == 0, "send to the live peer");
        receive(c, new long[1], "the live peer's message");
        assertEquals((byte) (7 * 31), rc.get(0));
    }

    /**
     * R10: with FI_SOURCE_ERR an unknown sender's message is an EADDRNOTAVAIL error whose
     * errData is the sender's name; inserted into the AV, its next message reports that fi_addr.
     */
    @Test
    void sourceErrNameIsWhatTheAvTakes() throws FabricException {
        open(Progress.AUTO);
        Node a = new Node("a");
        Node b = new Node("b");
        long bAtA = a.insert(b);
        ByteBuffer r1 = ByteBuffer.allocateDirect(64);
        post(() -> b.ep.recv(r1, null, Fi.FI_ADDR_UNSPEC, "r1") == 0, "receive");
        ByteBuffer m1 = message(1, 10);
        post(() -> sendRc(a, m1, bAtA, "s1") == 0, "send");
        CqErrEntry err = new CqErrEntry();
        CqEntry[] e = {new CqEntry()};
        until(() -> b.rxCq.read(e, 1) == -Errno.EAVAIL && b.rxCq.readErr(err, 0) == 1, "the EADDRNOTAVAIL completion");
        assertEquals(Errno.EADDRNOTAVAIL, err.err(), "an unknown sender under FI_SOURCE_ERR: " + err);
        assertEquals(10, err.len(), "the data was received");
        byte[] raw = Arrays.copyOf(err.errData(), err.errDataSize());
        assertArrayEquals(a.name, raw, "errData is the sender's getName()");
        long aAtB = b.insert(raw);
        assertTrue(aAtB != Fi.FI_ADDR_NOTAVAIL);
        ByteBuffer r2 = ByteBuffer.allocateDirect(64);
        post(() -> b.ep.recv(r2, null, Fi.FI_ADDR_UNSPEC, "r2") == 0, "receive");
        ByteBuffer m2 = message(2, 10);
        post(() -> sendRc(a, m2, bAtA, "s2") == 0, "send");
        long[] src = {-1};
        receive(b, src, "the second message");
        assertEquals(aAtB, src[0], "after the insert the sender has that fi_addr (R10)");
    }

    /** Reads the next transmit completion of {@code n}: its error entry, failing on a success. */
    private static CqErrEntry sendError(Node n, String what) {
        CqEntry[] e = {new CqEntry()};
        CqErrEntry err = new CqErrEntry();
        until(() -> {
            int rc = n.txCq.read(e, 1);
            if (rc == 1) {
                fail(what + ": the send succeeded");
            }
            return rc == -Errno.EAVAIL && n.txCq.readErr(err, 0) == 1;
        }, what + "'s error completion");
        return err;
    }

    /**
     * Nothing posted is lost silently: a send to a name nobody listens on (a closed
     * endpoint's) completes with ECONNREFUSED (rdma_cm's REJECTED), again on the next send
     * (which connects again); a send to a loopback name (the device cannot be reached through
     * lo) completes with EHOSTUNREACH. The endpoint works on.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void sendsThatCannotConnectEndWithAnErrorCompletion(Progress mode) throws FabricException {
        open(mode);
        Node a = new Node("a");
        Node gone = new Node("gone");
        Node b = new Node("b");
        byte[] goneName = gone.name;
        nodes.remove(gone);
        gone.close();
        long goneAtA = a.insert(goneName);
        long loopAtA = a.insert(Addresses.toSockaddr(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                (a.name[2] & 0xFF) << 8 | (a.name[3] & 0xFF))));
        long bAtA = a.insert(b);
        b.insert(a);
        // iWARP connects over TCP: rdma_cm reports the reset as UNREACHABLE, which verbs (as
        // libfabric's verbs provider) reports as ETIMEDOUT; InfiniBand and RoCE get a REJECT
        boolean iwarp = DeviceScan.scan().ports().stream()
                .anyMatch(port -> port.iwarp() && port.device().equals(info.domainAttr().name()));
        for (int round = 0; round < 2; round++) {
            ByteBuffer m = message(round, 16);
            post(() -> sendRc(a, m, goneAtA, "to-gone") == 0, "send to nobody");
            CqErrEntry err = sendError(a, "a send to a name nobody listens on");
            assertEquals(iwarp ? Errno.ETIMEDOUT : Errno.ECONNREFUSED, err.err(), "no listener (round " + round + "): " + err);
            assertEquals("to-gone", err.context());
        }
        ByteBuffer m = message(3, 16);
        post(() -> sendRc(a, m, loopAtA, "to-loopback") == 0, "send to 127.0.0.1");
        CqErrEntry err = sendError(a, "a send to a loopback name");
        assertEquals(Errno.EHOSTUNREACH, err.err(), "a loopback name: " + err);
        assertEquals("to-loopback", err.context());
        ByteBuffer r = ByteBuffer.allocateDirect(64);
        post(() -> b.ep.recv(r, null, Fi.FI_ADDR_UNSPEC, "r") == 0, "b's receive");
        ByteBuffer ok = message(5, 24);
        post(() -> sendRc(a, ok, bAtA, "to-b") == 0, "send to a live peer");
        receive(b, new long[1], "the live peer's message");
        assertEquals((byte) (5 * 31), r.get(0));
    }

    /**
     * The peer connects again before this end's application has handled the end of the old
     * connection: its connection-management thread (MANUAL) saw the old connection shut down,
     * left the end to the application's next pass, and then sees the new request — a new
     * connection, accepted once the end is handled, not a crossed one refused as "already"
     * (which left the sender's message waiting for ever: the test above timed out now and then).
     */
    @Test
    void aReconnectArrivingBeforeTheOldEndIsHandledIsAccepted() throws FabricException {
        openClosingOnRemove(Progress.MANUAL);
        Node a = new Node("a");
        Node b = new Node("b");
        long bAtA = a.insert(b);
        b.insert(a);
        ByteBuffer first = ByteBuffer.allocateDirect(64);
        post(() -> b.ep.recv(first, null, Fi.FI_ADDR_UNSPEC, "first") == 0, "b's first receive");
        ByteBuffer hello = message(1, 16);
        post(() -> sendRc(a, hello, bAtA, "hello") == 0, "the first send");
        receive(b, new long[1], "the first message");
        CqEntry[] ok = {new CqEntry()};
        until(() -> a.txCq.read(ok, 1) == 1, "the first send's completion");
        assertEquals(0, a.av.remove(new long[] {bAtA}, 0), "av remove");
        long again = a.insert(b);
        ByteBuffer m = message(9, 20);
        assertEquals(0, sendRc(a, m, again, "again"), "a send queued while connecting");
        // only a moves: b's connection-management thread sees the old connection end, then a's request
        long quiet = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() - quiet < 0) {
            a.txCq.read(NONE, 0);
            a.rxCq.read(NONE, 0);
            Thread.onSpinWait();
        }
        ByteBuffer r = ByteBuffer.allocateDirect(64);
        post(() -> b.ep.recv(r, null, Fi.FI_ADDR_UNSPEC, "r") == 0, "b's receive");
        assertEquals(20, receive(b, new long[1], "the message over a new connection").len());
        assertEquals((byte) (9 * 31), r.get(0));
        until(() -> a.txCq.read(ok, 1) == 1, "the send's completion");
        assertEquals("again", ok[0].context());
    }

    /**
     * fi_av_remove of a peer ends the connection to it, as on tcp: the sends pending towards it
     * (FI_MATCH_COMPLETE sends waiting for a receive it never posts) complete with ECANCELED;
     * inserted again, the peer is reached over a new connection.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void removingAPeerFromTheAvEndsItsConnection(Progress mode) throws FabricException {
        openClosingOnRemove(mode);
        Node a = new Node("a");
        Node b = new Node("b");
        long bAtA = a.insert(b);
        b.insert(a);
        ByteBuffer one = ByteBuffer.allocateDirect(64);
        post(() -> b.ep.recv(one, null, Fi.FI_ADDR_UNSPEC, "one") == 0, "b's one receive");
        int pending = 3;
        for (int i = 0; i < pending + 1; i++) {
            Msg m = new Msg().buffer(message(i, 32), null).addr(bAtA).context("to-b");
            post(() -> a.ep.sendMsg(m, Fi.FI_MATCH_COMPLETE) == 0, "send to b");
        }
        receive(b, new long[1], "b's first message (the connection is up)");
        CqEntry[] ok = {new CqEntry()};
        until(() -> a.txCq.read(ok, 1) == 1, "the first send's completion");
        assertEquals(0, a.av.remove(new long[] {bAtA}, 0), "av remove");
        for (int i = 0; i < pending; i++) {
            CqErrEntry err = sendError(a, "pending send " + i + " to the removed peer");
            assertEquals(Errno.ECANCELED, err.err(), "a send pending towards a removed peer: " + err);
            assertEquals("to-b", err.context());
        }
        long again = a.insert(b);
        ByteBuffer m = message(9, 20);
        post(() -> sendRc(a, m, again, "again") == 0, "send after the insert");
        // b may not have seen the old connection end yet: a receive it posts until then can take
        // one of the removed peer's match-complete messages, which cannot be read any more and
        // fails with a connection error; the next receive takes the message over the new one
        ByteBuffer r = ByteBuffer.allocateDirect(64);
        CqEntry[] got = {new CqEntry()};
        CqErrEntry stale = new CqErrEntry();
        boolean[] posted = {false};
        until(() -> {
            if (!posted[0]) {
                posted[0] = b.ep.recv(r, null, Fi.FI_ADDR_UNSPEC, "r") == 0;
                return false;
            }
            int rc = b.rxCq.read(got, 1);
            if (rc == -Errno.EAVAIL && b.rxCq.readErr(stale, 0) == 1) {
                assertTrue(stale.err() == Errno.ENOTCONN || stale.err() == Errno.ECONNRESET
                        || stale.err() == Errno.ECANCELED, "only a message of the removed connection fails: " + stale);
                posted[0] = false;
            }
            return rc == 1;
        }, "the message over a new connection");
        assertEquals(20, got[0].len());
        assertEquals((byte) (9 * 31), r.get(0));
    }

    /**
     * rxm's credits count a write with remote CQ data: on RoCE and InfiniBand such a write
     * consumes one of the receives the target's rxm layer posts. b makes no progress (MANUAL,
     * not driven) while a writes with data: a's posts answer {@code -EAGAIN} once its credits
     * are spent, after fewer writes than b has receive buffers; then, with b driven, every write
     * completes and b's CQ has each one's data, in order. Before, a took no credit for them (the
     * MSG info the rxm layer got from the RDM info said nothing of {@code FI_RX_CQ_DATA}): it
     * posted on, the writes beyond b's receives waited in the device's RNR retries, and b —
     * counting them — found them beyond the credits it had granted and ended the connection
     * ({@code VerbsRdmRmaConformanceTest.unsolicitedCompletionsOverrunAFullCq} failed so once).
     * Not on iWARP, which has no immediate data.
     */
    @Test
    void aWriteWithDataTakesACredit() throws FabricException {
        open(Progress.MANUAL, CAPS | Fi.FI_RMA | Fi.FI_WRITE | Fi.FI_REMOTE_WRITE);
        assumeTrue(info.domainAttr().cqDataSize() > 0, "no immediate data on this device (iWARP)");
        // rxm over verbs posts half the queue depth (the RDM info's tx size) as receive buffers
        int buffers = Math.max(io.jofi.provider.rxm.RxmSettings.defaults().receiveBuffers(),
                (int) info.txAttr().size() / 2);
        Node a = new Node("a");
        Node b = new Node("b");
        long bAtA = a.insert(b);
        b.insert(a);
        ByteBuffer target = ByteBuffer.allocateDirect(8);
        MemoryRegion mr = domain.register(target, Fi.FI_REMOTE_WRITE, 0, 0, 0, "target");
        try {
            ByteBuffer hello = message(1, 8);
            post(() -> sendRc(a, hello, bAtA, "hello") == 0, "a's hello");
            ByteBuffer in = ByteBuffer.allocateDirect(8);
            assertEquals(0, b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "in"));
            receive(b, new long[1], "a's hello"); // connected, b's first grant sent
            until(() -> a.txCq.read(new CqEntry[] {new CqEntry()}, 1) == 1, "the hello's completion");
            ByteBuffer src = message(2, 8);
            int accepted = 0;
            for (long quiet = System.nanoTime(); System.nanoTime() - quiet < 2_000_000_000L && accepted <= 2 * buffers; ) {
                int rc = a.ep.writeData(src, null, 100 + accepted, bAtA, mr.address(), mr.key(), "w" + accepted);
                if (rc == 0) {
                    accepted++;
                    quiet = System.nanoTime();
                } else {
                    assertEquals(-Errno.EAGAIN, rc, Errno.strerror(-rc));
                    a.txCq.read(NONE, 0); // only a progresses
                }
            }
            assertTrue(accepted >= 1 && accepted < buffers, accepted + " writes with data accepted while b, with "
                    + buffers + " receive buffers, granted nothing new");
            CqEntry[] one = {new CqEntry()};
            for (int i = 0; i < accepted; i++) {
                int k = i;
                until(() -> b.rxCq.read(one, 1) == 1, "b's completion of write " + k);
                assertEquals(100 + i, one[0].data(), "write " + i + "'s data, in order");
            }
            int total = accepted;
            int[] done = {0};
            until(() -> {
                done[0] += Math.max(0, a.txCq.read(one, 1));
                return done[0] == total;
            }, "a's completions of its writes");
        } finally {
            mr.close();
        }
    }

    /**
     * An RMA access error (a write with a wrong key) is an error completion of that write and
     * leaves the RC queue pair in error, so the connection ends; a later write to the same
     * fi_addr connects again and lands (nothing after the error is flushed for ever). Both
     * progress modes.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void anRmaAccessErrorEndsTheConnectionAndTheNextWriteConnectsAgain(Progress mode) throws FabricException {
        open(mode, CAPS | Fi.FI_RMA | Fi.FI_WRITE | Fi.FI_REMOTE_WRITE);
        Node a = new Node("a");
        Node b = new Node("b");
        long bAtA = a.insert(b);
        b.insert(a);
        ByteBuffer target = ByteBuffer.allocateDirect(64);
        MemoryRegion mr = domain.register(target, Fi.FI_REMOTE_WRITE, 0, 0, 0, "target");
        try {
            ByteBuffer bad = message(1, 16);
            post(() -> a.ep.write(bad, null, bAtA, mr.address(), mr.key() ^ 0x5a5a5a, "bad") == 0, "a write with a wrong key");
            CqErrEntry err = sendError(a, "the write with a wrong key");
            assertEquals("bad", err.context());
            assertTrue(err.err() > 0, "an error code: " + err);
            // a write posted before the end of the broken connection is noticed is flushed with
            // an error; the next one goes over a new connection
            ByteBuffer good = message(2, 16);
            CqEntry[] ok = {new CqEntry()};
            CqErrEntry flushed = new CqErrEntry();
            boolean[] pending = {false};
            until(() -> {
                if (!pending[0]) {
                    pending[0] = a.ep.write(good, null, bAtA, mr.address() + 8, mr.key(), "good") == 0;
                    return false;
                }
                int rc = a.txCq.read(ok, 1);
                if (rc == -Errno.EAVAIL && a.txCq.readErr(flushed, 0) == 1) {
                    assertEquals("good", flushed.context(), "only the next writes fail: " + flushed);
                    pending[0] = false; // write again
                }
                return rc == 1;
            }, "a write's completion over a new connection");
            assertEquals("good", ok[0].context());
            for (int i = 0; i < 16; i++) {
                assertEquals(good.get(i), target.get(8 + i), "byte " + i + " of the write over the new connection");
            }
            assertEquals(0, target.get(0), "the refused write left nothing");
        } finally {
            mr.close();
        }
    }
}
