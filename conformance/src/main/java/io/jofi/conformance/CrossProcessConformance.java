package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Endpoint;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The data path between two processes: side a is an RDM endpoint in this JVM (opened through
 * the fixture, in the suite's {@link #progress()}), side b a {@link RemotePeer} in a child JVM
 * (in {@link #remoteProgress()}), so that nothing can pass through shared Java objects. Core
 * checks of the in-process suites, both directions where it matters: message sizes (0, 1,
 * the inject size, the provider's own boundaries, 1 MiB), remote CQ data, tagged
 * {@code FI_PEEK}/{@code FI_CLAIM}/{@code FI_DISCARD}, truncation (R12), {@code readFrom} with
 * {@code FI_SOURCE} and {@code FI_SOURCE_ERR} (R10), {@code FI_DELIVERY_COMPLETE} (R11),
 * multi-receive, RMA write/read and atomics into the child (without its progress where the
 * provider says RMA is one-sided), counters. Provider-agnostic: a provider runs it with a
 * subclass naming itself and, where needed, the child's JVM arguments.
 */
public abstract class CrossProcessConformance extends EndpointTest {
    /** Caps of both sides. */
    protected static final long CAPS = Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_SOURCE
            | Fi.FI_RMA_EVENT;
    private static final int MIB = 1 << 20;

    private RemotePeer remote;
    private Endpoint ep;
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private AddressVector av;
    private long toRemote;
    private Info info;

    /** The child's data progress: by default the suite's, {@code AUTO} when that is unspecified. */
    protected Progress remoteProgress() {
        return progress() == Progress.UNSPEC ? Progress.AUTO : progress();
    }

    /** Extra JVM arguments of the child (e.g. the provider's settings as system properties). */
    protected List<String> remoteJvmArgs() {
        return List.of();
    }

    /** Message sizes that are boundaries of this provider (e.g. a bounce slot), besides the kit's. */
    protected int[] providerSizes() {
        return new int[0];
    }

    /**
     * Whether RMA and atomics into the child complete without the child's progress (shared
     * memory). When false the child drives progress on a thread while it is the target.
     */
    protected boolean oneSidedRma() {
        return false;
    }

    @AfterEach
    void stopRemote() {
        if (remote != null) {
            remote.close();
            remote = null;
        }
    }

    /** Opens side a with {@code extraCaps} and the child, each knowing the other. */
    private void open(long extraCaps) throws FabricException, IOException {
        info = fx.require(CAPS | extraCaps, 0, EpType.RDM);
        ep = fx.openEndpoint(info, "ep-a");
        txCq = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "txcq-a");
        rxCq = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "rxcq-a");
        av = fx.openAv(new AvAttr().type(info.domainAttr().avType()), "av-a");
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.bind(av, 0);
        if ((extraCaps & Fi.FI_MULTI_RECV) != 0) {
            ep.setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, 64);
        }
        ep.enable();
        remote = new RemotePeer(fx.provider(), remoteProgress(), CAPS, remoteJvmArgs(), await().timeoutMs());
        if (progress() == Progress.MANUAL) {
            // this side moves data only inside its calls: keep calling while the child works
            // (a rendezvous the child receives reads this side's memory)
            CqEntry[] none = new CqEntry[0];
            remote.whileWaiting(() -> {
                txCq.read(none, 0);
                rxCq.read(none, 0);
            });
        }
        toRemote = insert(av, remote.name());
        remote.peer(ep.getName());
    }

    private static long insert(AddressVector av, byte[] name) {
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        assertEquals(1, av.insert(new byte[][] {name}, fi, 0, null), "av.insert of the remote peer's name");
        return fi[0];
    }

    private CqEntry rx(String what) {
        return await().completion(rxCq, new CqEntry(), what);
    }

    private CqEntry tx(String what) {
        return await().completion(txCq, new CqEntry(), what);
    }

    private CqErrEntry rxError(String what) {
        return await().error(rxCq, new CqErrEntry(), what);
    }

    private static void assertRemoteOk(String[] c, String ctx, String what) {
        assertEquals("C", c[0], what + ": " + String.join(" ", c));
        assertEquals(ctx, c[1], what + ": context");
    }

    /** Messages of every boundary size, child → here and here → child, contents intact. */
    @Test
    void messageSizesBothWays() throws Exception {
        open(0);
        TreeSet<Integer> sizes = new TreeSet<>(List.of(0, 1, (int) Math.min(info.txAttr().injectSize(), MIB), MIB));
        for (int s : providerSizes()) {
            sizes.add(s);
        }
        for (int n : sizes) {
            int seed = n % 251;
            ByteBuffer in = zeroed(Math.max(n, 1));
            post(() -> ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "in" + n), "recv of " + n);
            remote.ok("send out" + n + " " + n + " " + seed);
            // the child's send completion first: waiting for it drives the child's progress,
            // which a rendezvous read from its memory needs in MANUAL progress
            assertRemoteOk(remote.completions("tx", 1).get(0), "out" + n, "the child's send of " + n);
            CqEntry r = rx("the child's message of " + n + " bytes");
            assertEquals("in" + n, r.context());
            assertEquals(n, r.len(), "length of the child's message");
            assertPattern(in, 0, n, seed, "the child's message of " + n + " bytes");

            remote.ok("recv back" + n + " " + Math.max(n, 1));
            ByteBuffer out = pattern(n, seed + 1);
            post(() -> ep.send(out, null, toRemote, "s" + n), "send of " + n);
            String[] c = remote.completions("rx", 1).get(0);
            assertRemoteOk(c, "back" + n, "the child's receive of " + n);
            assertEquals(n, Long.parseLong(c[2]), "length at the child");
            assertEquals("OK", remote.ask("check back" + n + " " + n + " " + (seed + 1)), "contents at the child, " + n + " bytes");
            assertEquals("s" + n, tx("the send of " + n).context());
        }
    }

    /** Remote CQ data from the child: FI_REMOTE_CQ_DATA and the value in the receive completion. */
    @Test
    void remoteCqDataArrives() throws Exception {
        open(0);
        post(() -> ep.recv(zeroed(64), null, Fi.FI_ADDR_UNSPEC, "r"), "recv");
        remote.ok("senddata d 16 3 c0ffee0000000001");
        CqEntry r = rx("the message with remote CQ data");
        assertTrue((r.flags() & Fi.FI_REMOTE_CQ_DATA) != 0, "FI_REMOTE_CQ_DATA in " + Long.toHexString(r.flags()));
        assertEquals(0xc0ffee0000000001L, r.data());
        assertEquals(16, r.len());
    }

    /** Tagged messages from the child: PEEK finds without consuming, PEEK|CLAIM then CLAIM, PEEK|DISCARD. */
    @Test
    void taggedPeekClaimDiscard() throws Exception {
        open(0);
        long tagA = 0xA1;
        long tagB = 0xB2;
        remote.ok("tsend ta 24 5 " + Long.toHexString(tagA));
        remote.ok("tsend tb 12 9 " + Long.toHexString(tagB));
        remote.completions("tx", 2);
        // peek until the first message is here (ENOMSG until then)
        TaggedMsg peek = new TaggedMsg();
        peek.buffer(zeroed(8), null).addr(Fi.FI_ADDR_UNSPEC).context("peek");
        peek.tag(tagA).ignore(0);
        CqEntry found = null;
        long deadline = System.currentTimeMillis() + await().timeoutMs();
        while (found == null) {
            assertTrue(System.currentTimeMillis() < deadline, "the child's tagged message never showed to FI_PEEK");
            post(() -> ep.trecvMsg(peek, Fi.FI_PEEK), "peek");
            CqEntry[] one = {new CqEntry()};
            int rc = await().anyRead(rxCq, one, "the peek's answer");
            if (rc == 1) {
                found = one[0];
            } else {
                CqErrEntry e = new CqErrEntry();
                assertEquals(1, rxCq.readErr(e, 0));
                assertEquals(Errno.ENOMSG, e.err(), "a peek without a match is ENOMSG: " + e);
            }
        }
        assertEquals(tagA, found.tag());
        assertEquals(24, found.len());
        // claim it
        Object ctx = new Object();
        ByteBuffer r = zeroed(32);
        TaggedMsg m = new TaggedMsg();
        m.buffer(r, null).addr(Fi.FI_ADDR_UNSPEC).context(ctx);
        m.tag(tagA).ignore(0);
        post(() -> ep.trecvMsg(m, Fi.FI_PEEK | Fi.FI_CLAIM), "peek and claim");
        assertEquals(ctx, rx("the peek with FI_CLAIM").context());
        post(() -> ep.trecvMsg(m, Fi.FI_CLAIM), "claim");
        CqEntry claimed = rx("the claim");
        assertEquals(24, claimed.len());
        assertPattern(r, 0, 24, 5, "claimed data");
        // discard the second one
        TaggedMsg d = new TaggedMsg();
        d.buffer(zeroed(8), null).addr(Fi.FI_ADDR_UNSPEC).context("discard");
        d.tag(tagB).ignore(0);
        CqEntry discarded = null;
        deadline = System.currentTimeMillis() + await().timeoutMs();
        while (discarded == null) {
            assertTrue(System.currentTimeMillis() < deadline, "the second tagged message never showed");
            post(() -> ep.trecvMsg(d, Fi.FI_PEEK | Fi.FI_DISCARD), "peek and discard");
            CqEntry[] one = {new CqEntry()};
            if (await().anyRead(rxCq, one, "the discarding peek") == 1) {
                discarded = one[0];
            } else {
                CqErrEntry e = new CqErrEntry();
                assertEquals(1, rxCq.readErr(e, 0));
                assertEquals(Errno.ENOMSG, e.err());
            }
        }
        post(() -> ep.trecv(zeroed(16), null, Fi.FI_ADDR_UNSPEC, tagB, 0, "late"), "trecv after the discard");
        await().settle();
        assertEquals(-Errno.EAGAIN, rxCq.read(new CqEntry[] {new CqEntry()}, 1), "the discarded message is gone");
        assertEquals(0, ep.cancel("late"));
        assertEquals(Errno.ECANCELED, rxError("the cancelled late receive").err());
    }

    /** R12: a message longer than the receive buffer: ETRUNC, len placed, olen dropped. */
    @Test
    void truncation() throws Exception {
        open(0);
        ByteBuffer in = zeroed(40);
        post(() -> ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "short"), "recv");
        remote.ok("send long 100 7");
        CqErrEntry e = rxError("the truncated receive");
        assertEquals(Errno.ETRUNC, e.err());
        assertEquals(40, e.len());
        assertEquals(60, e.olen());
        assertPattern(in, 0, 40, 7, "the placed part");
    }

    /** R10: readFrom names the child with FI_SOURCE; an endpoint with FI_SOURCE_ERR that does not know it gets EADDRNOTAVAIL with its address. */
    @Test
    void readFromWithSourceAndSourceErr() throws Exception {
        open(0);
        post(() -> ep.recv(zeroed(8), null, Fi.FI_ADDR_UNSPEC, "r"), "recv");
        remote.ok("send m 8 1");
        long[] src = {Fi.FI_ADDR_NOTAVAIL};
        await().completionFrom(rxCq, new CqEntry(), src, "the child's message");
        assertEquals(toRemote, src[0], "readFrom names the child's fi_addr");

        Info errInfo = fx.require(CAPS | Fi.FI_SOURCE_ERR, 0, EpType.RDM);
        Endpoint stranger = fx.openEndpoint(errInfo, "stranger");
        CompletionQueue sTx = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "txcq-s");
        CompletionQueue sRx = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "rxcq-s");
        AddressVector sAv = fx.openAv(new AvAttr().type(errInfo.domainAttr().avType()), "av-s");
        stranger.bind(sTx, Fi.FI_TRANSMIT);
        stranger.bind(sRx, Fi.FI_RECV);
        stranger.bind(sAv, 0);
        stranger.enable();
        remote.peer(stranger.getName());
        post(() -> stranger.recv(zeroed(8), null, Fi.FI_ADDR_UNSPEC, "unknown"), "recv");
        remote.ok("send u 8 2");
        CqErrEntry e = await().error(sRx, new CqErrEntry(), "the unknown sender's message");
        assertEquals(Errno.EADDRNOTAVAIL, e.err());
        assertTrue(e.errData() != null && e.errData().length > 0, "errData carries the sender's address");
        byte[] addr = java.util.Arrays.copyOf(e.errData(), e.errDataSize() > 0 ? e.errDataSize() : e.errData().length);
        long back = insert(sAv, addr);
        // the address from errData reaches the child
        remote.ok("recv viaerr 8");
        post(() -> stranger.send(pattern(8, 4), null, back, "reply"), "send to the address of errData");
        assertRemoteOk(remote.completions("rx", 1).get(0), "viaerr", "the child's receive through errData's address");
        assertEquals("reply", await().completion(sTx, new CqEntry(), "the reply").context());
    }

    /** R11: FI_DELIVERY_COMPLETE completes once the child holds the message (its progress may be needed). */
    @Test
    void deliveryComplete() throws Exception {
        open(0);
        remote.ok("recv dc 64");
        ByteBuffer out = pattern(64, 8);
        Msg m = new Msg().buffer(out, null).addr(toRemote).context("dc");
        post(() -> ep.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "sendMsg with FI_DELIVERY_COMPLETE");
        assertRemoteOk(remote.completions("rx", 1).get(0), "dc", "the child's receive");
        assertEquals("dc", tx("the delivery-complete send").context());
        assertEquals("OK", remote.ask("check dc 64 8"));
        // and the other way
        post(() -> ep.recv(zeroed(64), null, Fi.FI_ADDR_UNSPEC, "in"), "recv");
        remote.ok("send cdc 64 9 dc");
        // the child's completion comes once this side holds the message; waiting for it drives
        // the child's progress (MANUAL), this side's through whileWaiting
        assertRemoteOk(remote.completions("tx", 1).get(0), "cdc", "the child's delivery-complete send");
        assertEquals("in", rx("the child's delivery-complete message").context());
    }

    /** Multi-receive: the child's messages fill one buffer at increasing offsets, contents intact. */
    @Test
    void multiReceive() throws Exception {
        open(Fi.FI_MULTI_RECV);
        ByteBuffer big = zeroed(4096);
        Msg m = new Msg().buffer(big, null).addr(Fi.FI_ADDR_UNSPEC).context("multi");
        post(() -> ep.recvMsg(m, Fi.FI_MULTI_RECV), "recvMsg with FI_MULTI_RECV");
        for (int k = 0; k < 3; k++) {
            remote.ok("send m" + k + " 100 " + (50 * k));
        }
        remote.completions("tx", 3);
        List<Integer> offsets = new ArrayList<>();
        while (offsets.size() < 3) {
            CqEntry r = rx("a message into the multi-receive buffer");
            if (r.len() == 0 && (r.flags() & Fi.FI_MULTI_RECV) != 0) {
                continue; // a release-only completion
            }
            assertEquals("multi", r.context());
            assertEquals(100, r.len());
            int seed = big.get(r.bufOffset()) & 0xff;
            assertPattern(big, r.bufOffset(), 100, seed, "message at offset " + r.bufOffset());
            assertTrue(offsets.isEmpty() || r.bufOffset() > offsets.get(offsets.size() - 1), "offsets increase");
            offsets.add(r.bufOffset());
        }
    }

    /** RMA write and read into the child's region, atomics on it; then the child's remote-write counter. */
    @Test
    void rmaAndAtomicsIntoTheChild() throws Exception {
        open(0);
        String[] k = remote.ask("region 8192").split(" ");
        assertEquals("KEY", k[0], String.join(" ", k));
        long key = Long.parseUnsignedLong(k[1], 16);
        long base = Long.parseUnsignedLong(k[2], 16);
        remote.ok("fill 4096 512 33");
        if (!oneSidedRma()) {
            remote.ok("serve");
        }
        ByteBuffer src = pattern(1000, 21);
        RmaMsg w = new RmaMsg();
        w.buffer(src, null).addr(toRemote).context("w");
        w.rma(base + 100, 1000, key);
        post(() -> ep.writeMsg(w, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "write");
        CqEntry wc = tx("the RMA write");
        assertEquals(Fi.FI_RMA | Fi.FI_WRITE, wc.flags() & (Fi.FI_RMA | Fi.FI_WRITE));
        ByteBuffer dst = zeroed(512);
        post(() -> ep.read(dst, null, toRemote, base + 4096, key, "r"), "read");
        assertEquals("r", tx("the RMA read").context());
        assertPattern(dst, 0, 512, 33, "bytes read from the child");
        ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 3; i++) {
            post(() -> ep.fetchAtomic(5, result, null, toRemote, base + 64, key, Fi.FI_SUM, "a"), "fetch-add");
            tx("the fetching atomic");
            assertEquals(5L * i, result.getLong(0), "old value of fetch-add " + i);
        }
        post(() -> ep.compareAtomic(15, 99, result, null, toRemote, base + 64, key, "c"), "compare-swap");
        tx("the compare-swap");
        assertEquals(15, result.getLong(0));
        if (!oneSidedRma()) {
            remote.ok("unserve");
        }
        assertEquals("OK", remote.ask("verify 100 1000 21"), "bytes written into the child");
        assertEquals(99, remote.value("get 64"), "the atomics' result in the child's memory");
        assertTrue(remote.value("counter rw 1") >= 1, "the child counted the remote write (FI_RMA_EVENT)");
    }

    /** Counters: the child's FI_RECV counter counts the messages it received. */
    @Test
    void countersCountAcrossProcesses() throws Exception {
        open(0);
        for (int i = 0; i < 3; i++) {
            remote.ok("recv c" + i + " 16");
        }
        for (int i = 0; i < 3; i++) {
            int k = i;
            post(() -> ep.send(pattern(16, k), null, toRemote, "s" + k), "send");
        }
        remote.completions("rx", 3);
        for (int i = 0; i < 3; i++) {
            tx("send " + i);
        }
        assertEquals(3, remote.value("counter rx 3"));
    }
}
