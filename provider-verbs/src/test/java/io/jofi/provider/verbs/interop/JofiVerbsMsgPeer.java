package io.jofi.provider.verbs.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.jofi.Addresses;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
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
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;

/**
 * The JOFI side of a verbs interop test: one MSG endpoint of JOFI's verbs provider, used only
 * through the public io.jofi API ({@link Fabrics#standalone()}, provider "verbs",
 * {@link EpType#MSG}), with the same actions and checks as the C peer's script, so that a test
 * reads as two matching scripts. Every wait is bounded by {@link VerbsNativePeer#TIMEOUT};
 * waits poll the EQ and both CQs (the reads drive manual progress) and keep what arrives for
 * another wait.
 */
final class JofiVerbsMsgPeer implements AutoCloseable {

    private static final long TIMEOUT_NANOS = VerbsNativePeer.TIMEOUT.toNanos();

    private final Progress progress;
    private final List<Fid> opened = new ArrayList<>();
    private final ArrayDeque<Object> eqEvents = new ArrayDeque<>();   // EqEntry or EqErrEntry
    private final ArrayDeque<CqErrEntry> txDone = new ArrayDeque<>();
    private final ArrayDeque<CqErrEntry> rxDone = new ArrayDeque<>();
    private final CqEntry[] one = {new CqEntry()};
    private final Msg msg = new Msg();

    private Fabric fabric;
    private Domain domain;
    private EventQueue eq;
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private PassiveEndpoint pep;
    private Endpoint ep;
    private Info pendingRequest;

    JofiVerbsMsgPeer(Progress progress) {
        this.progress = progress;
    }

    private static Info hints(Progress progress) {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName("verbs");
        hints.domainAttr().dataProgress(progress);
        return hints;
    }

    private <T extends Fid> T track(T fid) {
        opened.add(fid);
        return fid;
    }

    private void openFabricAndEq(Info info) throws FabricException {
        fabric = track(Fabrics.standalone().fabric(info.fabricAttr(), null));
        eq = track(fabric.openEq(new EqAttr().size(64), "jofi-eq"));
    }

    private void openEndpoint(Info info) throws FabricException {
        if (domain == null) {
            domain = track(fabric.domain(info, "jofi-domain"));
            txCq = track(domain.openCq(new CqAttr().size(128).format(CqFormat.DATA), "jofi-txcq"));
            rxCq = track(domain.openCq(new CqAttr().size(128).format(CqFormat.DATA), "jofi-rxcq"));
        }
        ep = track(domain.endpoint(info, "jofi-ep"));
        ep.bind(eq, 0);
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.enable();
    }

    // ------------------------------------------------------------------ connection management

    /** Opens a passive endpoint on {@link VerbsNativePeer#HOST} with a free port, listens, returns the port. */
    int listen() throws FabricException {
        Info info = Fabrics.standalone().getInfo(VerbsNativePeer.HOST, "0", Fi.FI_SOURCE, hints(progress)).get(0);
        openFabricAndEq(info);
        pep = track(fabric.passiveEndpoint(info, "jofi-pep"));
        pep.bind(eq, 0);
        pep.listen();
        InetSocketAddress bound = Addresses.fromSockaddr(pep.getName());
        assertTrue(bound.getPort() > 0, "the passive endpoint's name has its port");
        return bound.getPort();
    }

    /** Waits for FI_CONNREQ and checks its connection data (R14: exactly the bytes the peer passed). */
    void expectConnReq(byte[] data) {
        EqEntry ev = expectEvent(Fi.FI_CONNREQ, "FI_CONNREQ");
        assertSame(pep, ev.fid(), "FI_CONNREQ's fid is the passive endpoint");
        assertNotNull(ev.info(), "FI_CONNREQ carries an Info");
        assertNotNull(ev.info().handle(), "FI_CONNREQ's Info carries the ConnReq");
        assertPayload(data, ev, "FI_CONNREQ");
        pendingRequest = ev.info();
    }

    /** Accepts the pending request with {@code data} and waits for FI_CONNECTED. */
    void accept(byte[] data) throws FabricException {
        assertNotNull(pendingRequest, "accept needs a preceding FI_CONNREQ");
        openEndpoint(pendingRequest);
        pendingRequest = null;
        ep.accept(data);
        EqEntry ev = expectEvent(Fi.FI_CONNECTED, "FI_CONNECTED after accept");
        assertSame(ep, ev.fid(), "FI_CONNECTED's fid is the accepting endpoint");
    }

    /** Rejects the pending request with {@code data}. */
    void reject(byte[] data) throws FabricException {
        assertNotNull(pendingRequest, "reject needs a preceding FI_CONNREQ");
        pep.reject(pendingRequest.handle(), data);
        pendingRequest = null;
    }

    /** Connects to {@link VerbsNativePeer#HOST}:{@code port} with {@code data}. */
    void connect(int port, byte[] data) throws FabricException {
        Info info = Fabrics.standalone().getInfo(VerbsNativePeer.HOST, Integer.toString(port), 0, hints(progress)).get(0);
        assertNotNull(info.destAddr(), "getInfo with a node and service fills destAddr");
        openFabricAndEq(info);
        openEndpoint(info);
        ep.connect(info.destAddr(), data);
    }

    /** Waits for FI_CONNECTED and checks the acceptor's connection data. */
    void expectConnected(byte[] data) {
        EqEntry ev = expectEvent(Fi.FI_CONNECTED, "FI_CONNECTED");
        assertSame(ep, ev.fid(), "FI_CONNECTED's fid is the connecting endpoint");
        assertPayload(data, ev, "FI_CONNECTED");
    }

    /** Waits for the EQ error ECONNREFUSED whose errData is the reject data (R14). */
    void expectRefused(byte[] data) {
        Object ev = nextEvent("ECONNREFUSED");
        if (!(ev instanceof EqErrEntry err)) {
            fail("expected the error ECONNREFUSED, got event " + ((EqEntry) ev).event());
            return;
        }
        assertEquals(Errno.ECONNREFUSED, err.err(), "the reject's EQ error is ECONNREFUSED");
        byte[] got = Arrays.copyOf(err.errData() == null ? new byte[0] : err.errData(), err.errDataSize());
        assertArrayEquals(data, got, "the reject data in errData: " + text(got));
    }

    void shutdown() throws FabricException {
        ep.shutdown(0);
    }

    /** Waits for FI_SHUTDOWN on the endpoint. */
    void expectShutdown() {
        EqEntry ev = expectEvent(Fi.FI_SHUTDOWN, "FI_SHUTDOWN");
        assertSame(ep, ev.fid(), "FI_SHUTDOWN's fid is the endpoint");
    }

    /** Polls for {@code millis}; any further EQ event fails (R14: FI_SHUTDOWN exactly once). */
    void expectNoMoreEvents(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            poll();
            if (!eqEvents.isEmpty()) {
                fail("unexpected EQ event after the last expected one: " + describe(eqEvents.peek()));
            }
            Thread.yield();
        }
    }

    private EqEntry expectEvent(int event, String what) {
        Object ev = nextEvent(what);
        if (ev instanceof EqErrEntry err) {
            fail(what + ": got EQ error " + err.err() + " (" + Errno.strerror(err.err()) + ")");
        }
        EqEntry entry = (EqEntry) ev;
        assertEquals(event, entry.event(), what + ": event code");
        return entry;
    }

    private static void assertPayload(byte[] want, EqEntry ev, String what) {
        byte[] got = ev.payload() == null ? new byte[0] : Arrays.copyOf(ev.payload(), ev.payloadLength());
        assertArrayEquals(want, got, what + " connection data " + text(got) + ", expected " + text(want));
    }

    // ------------------------------------------------------------------ data transfer

    /** Sends {@code size} pattern bytes from a direct buffer (with remote CQ data) and waits for the completion. */
    void send(int size, Long cqData) {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(size, 1));
        buf.put(VerbsNativePeer.pattern(size)).flip();
        Object context = "send-" + size;
        long flags = Fi.FI_COMPLETION | (cqData != null ? Fi.FI_REMOTE_CQ_DATA : 0);
        msg.buffer(buf, null).addr(Fi.FI_ADDR_UNSPEC).context(context).data(cqData == null ? 0 : cqData);
        post(() -> ep.sendMsg(msg, flags), "sendMsg " + size);
        CqErrEntry done = awaitCompletion(txDone, "send of " + size + " bytes");
        assertSame(context, done.context(), "the send completion's context");
        assertTrue((done.flags() & Fi.FI_SEND) != 0, "the send completion has FI_SEND");
    }

    /** Injects {@code size} pattern bytes. */
    void inject(int size) {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(size, 1));
        buf.put(VerbsNativePeer.pattern(size)).flip();
        post(() -> ep.inject(buf, Fi.FI_ADDR_UNSPEC), "inject " + size);
    }

    /** Posts a receive of {@code capacity} bytes and checks the {@code size}-byte pattern message (and CQ data). */
    void recv(int size, int capacity, Long cqData) {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(capacity, 1));
        buf.limit(capacity);
        Object context = "recv-" + size;
        post(() -> ep.recv(buf, null, Fi.FI_ADDR_UNSPEC, context), "recv " + size);
        CqErrEntry done = awaitCompletion(rxDone, "receive of " + size + " bytes");
        assertSame(context, done.context(), "the receive completion's context");
        assertEquals(Fi.FI_RECV | Fi.FI_MSG, done.flags() & (Fi.FI_RECV | Fi.FI_MSG), "receive completion flags");
        assertEquals(size, done.len(), "received length");
        if (cqData != null) {
            assertTrue((done.flags() & Fi.FI_REMOTE_CQ_DATA) != 0, "FI_REMOTE_CQ_DATA is set");
            assertEquals((long) cqData, done.data(), "remote CQ data");
        } else {
            assertEquals(0, done.flags() & Fi.FI_REMOTE_CQ_DATA, "no FI_REMOTE_CQ_DATA");
        }
        byte[] got = new byte[size];
        buf.duplicate().position(0).limit(size).slice().get(got);
        assertEquals(-1, VerbsNativePeer.firstPatternMismatch(got, size), "first received byte that differs from the pattern");
    }

    private interface Post {
        int run();
    }

    private void post(Post op, String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int rc;
        while ((rc = op.run()) == -Errno.EAGAIN) {
            poll();
            if (System.nanoTime() > deadline) {
                fail(what + " kept returning -EAGAIN");
            }
            Thread.yield();
        }
        assertEquals(0, rc, what + " returned " + rc + " (" + Errno.strerror(-rc) + ")");
    }

    private CqErrEntry awaitCompletion(ArrayDeque<CqErrEntry> queue, String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (queue.isEmpty()) {
            poll();
            if (System.nanoTime() > deadline) {
                fail(what + ": no completion within " + VerbsNativePeer.TIMEOUT
                        + (eqEvents.isEmpty() ? "" : "; EQ has " + describe(eqEvents.peek())));
            }
            Thread.yield();
        }
        CqErrEntry done = queue.poll();
        if (done.err() != 0) {
            fail(what + " completed with error " + done.err() + " (" + Errno.strerror(done.err()) + "), provErrno "
                    + done.provErrno());
        }
        return done;
    }

    private Object nextEvent(String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (eqEvents.isEmpty()) {
            poll();
            if (System.nanoTime() > deadline) {
                fail(what + ": no EQ event within " + VerbsNativePeer.TIMEOUT);
            }
            Thread.yield();
        }
        return eqEvents.poll();
    }

    /** One pass over the EQ and both CQs; everything read is queued for its waiter. */
    private void poll() {
        EqEntry ev = new EqEntry();
        int rc = eq.read(ev, 0);
        if (rc == 1) {
            eqEvents.add(ev);
        } else if (rc == -Errno.EAVAIL) {
            EqErrEntry err = new EqErrEntry();
            assertEquals(1, eq.readErr(err, 0), "EQ readErr after -EAVAIL");
            eqEvents.add(err);
        } else if (rc != -Errno.EAGAIN) {
            fail("EQ read returned " + rc);
        }
        if (txCq != null) {
            pollCq(txCq, txDone);
            pollCq(rxCq, rxDone);
        }
    }

    private void pollCq(CompletionQueue cq, ArrayDeque<CqErrEntry> into) {
        int rc = cq.read(one, 1);
        if (rc == 1) {
            CqEntry e = one[0];
            CqErrEntry copy = new CqErrEntry();
            copy.set(e.context(), e.flags(), e.len(), e.buf(), e.bufOffset(), e.data(), e.tag());
            into.add(copy);
        } else if (rc == -Errno.EAVAIL) {
            CqErrEntry err = new CqErrEntry();
            assertEquals(1, cq.readErr(err, 0), "CQ readErr after -EAVAIL");
            into.add(err);
        } else if (rc != -Errno.EAGAIN) {
            fail("CQ read returned " + rc);
        }
    }

    private static String describe(Object ev) {
        if (ev instanceof EqErrEntry err) {
            return "error " + err.err() + " (" + Errno.strerror(err.err()) + ")";
        }
        return "event " + ((EqEntry) ev).event();
    }

    /** Connection data as the C peer spells it: a literal string, or "@N" for N pattern bytes. */
    static byte[] data(String spec) {
        if (spec.startsWith("@")) {
            return VerbsNativePeer.pattern(Integer.parseInt(spec.substring(1)));
        }
        return spec.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(byte[] bytes) {
        return "\"" + new String(bytes, StandardCharsets.ISO_8859_1) + "\" (" + bytes.length + " bytes)";
    }

    /** Closes everything this peer opened, newest first. */
    @Override
    public void close() {
        List<String> failures = new ArrayList<>();
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (FabricException e) {
                failures.add(opened.get(i).fidClass() + ": " + e);
            }
        }
        opened.clear();
        if (!failures.isEmpty()) {
            fail("closing the JOFI side: " + failures);
        }
    }
}
