package io.jofi.provider.tcp.interop;

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
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;

/**
 * The JOFI side of an interop test: one MSG endpoint of JOFI's tcp provider, used only
 * through the public io.jofi API ({@link Fabrics#standalone()}, provider "tcp",
 * {@link EpType#MSG}), with the same actions and the same checks as the C peer's script
 * (jofi_peer.c), so that each test reads as two matching scripts.
 *
 * <p>Every wait is bounded by {@link NativePeer#TIMEOUT}. Waits poll the EQ and both CQs (the
 * reads drive manual progress); what arrives for another wait is kept for it, as in the C peer.
 */
final class JofiMsgPeer implements AutoCloseable {

    private static final long TIMEOUT_NANOS = NativePeer.TIMEOUT.toNanos();

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
    private Info listenInfo;
    private ByteBuffer exposed;

    JofiMsgPeer(Progress progress) {
        this.progress = progress;
    }

    private static Info hints(Progress progress) {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ
                | Fi.FI_REMOTE_WRITE);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName("tcp");
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

    private void ensureDomain(Info info) throws FabricException {
        if (domain == null) {
            domain = track(fabric.domain(info, "jofi-domain"));
            txCq = track(domain.openCq(new CqAttr().size(128).format(CqFormat.DATA), "jofi-txcq"));
            rxCq = track(domain.openCq(new CqAttr().size(128).format(CqFormat.DATA), "jofi-rxcq"));
        }
    }

    private void openEndpoint(Info info) throws FabricException {
        ensureDomain(info);
        ep = track(domain.endpoint(info, "jofi-ep"));
        ep.bind(eq, 0);
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.enable();
    }

    // ------------------------------------------------------------------ connection management

    /** Opens a passive endpoint on 127.0.0.1 with a free port, listens, returns the port. */
    int listen() throws FabricException {
        List<Info> infos = Fabrics.standalone().getInfo(NativePeer.HOST, "0", Fi.FI_SOURCE, hints(progress));
        Info info = infos.get(0);
        listenInfo = info;
        openFabricAndEq(info);
        pep = track(fabric.passiveEndpoint(info, "jofi-pep"));
        pep.bind(eq, 0);
        pep.listen();
        InetSocketAddress bound = Addresses.fromSockaddr(pep.getName());
        assertTrue(bound.getPort() > 0, "the passive endpoint's name has its port");
        return bound.getPort();
    }

    /** Waits for FI_CONNREQ and checks its connection data (R14: exactly the bytes sent). */
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

    /** Connects to 127.0.0.1:{@code port} with {@code data}. */
    void connect(int port, byte[] data) throws FabricException {
        List<Info> infos = Fabrics.standalone().getInfo(NativePeer.HOST, Integer.toString(port), 0, hints(progress));
        Info info = infos.get(0);
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

    /** Sends {@code size} pattern bytes (with remote CQ data / delivery complete) and waits for the completion. */
    void send(int size, Long cqData, boolean deliveryComplete) {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(size, 1));
        buf.put(NativePeer.pattern(size)).flip();
        Object context = "send-" + size;
        long flags = Fi.FI_COMPLETION | (cqData != null ? Fi.FI_REMOTE_CQ_DATA : 0)
                | (deliveryComplete ? Fi.FI_DELIVERY_COMPLETE : 0);
        msg.buffer(buf, null).addr(Fi.FI_ADDR_UNSPEC).context(context).data(cqData == null ? 0 : cqData);
        post(() -> ep.sendMsg(msg, flags), "sendMsg " + size);
        CqErrEntry done = awaitCompletion(txDone, "send of " + size + " bytes");
        assertSame(context, done.context(), "the send completion's context");
        assertTrue((done.flags() & Fi.FI_SEND) != 0, "the send completion has FI_SEND");
    }

    /** Injects {@code size} pattern bytes. */
    void inject(int size) {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(size, 1));
        buf.put(NativePeer.pattern(size)).flip();
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
        int bad = NativePeer.firstPatternMismatch(got, 0, size);
        assertEquals(-1, bad, "first received byte that differs from the pattern");
    }

    // ------------------------------------------------------------------ RMA (fi_rma(3))

    /**
     * Registers {@code size} bytes holding the {@code size}-byte pattern for remote read and
     * write (after {@link #listen}, before the C peer starts: it needs the address and key).
     */
    MemoryRegion expose(int size) throws FabricException {
        assertNotNull(listenInfo, "expose after listen");
        ensureDomain(listenInfo);
        exposed = ByteBuffer.allocateDirect(size);
        exposed.put(NativePeer.pattern(size)).flip();
        return track(domain.register(exposed, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0, 0, "jofi-region"));
    }

    /** Checks that the exposed region starts with the {@code size}-byte pattern (written by the peer). */
    void expectRegion(int size) {
        byte[] got = new byte[size];
        exposed.duplicate().position(0).limit(size).slice().get(got);
        assertEquals(-1, NativePeer.firstPatternMismatch(got, 0, size), "first byte of the region that differs from the pattern");
    }

    /** fi_write (fi_writedata with {@code cqData}) of the {@code size}-byte pattern; waits for FI_RMA|FI_WRITE. */
    void write(int size, long addr, long key, Long cqData) {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(size, 1));
        buf.put(NativePeer.pattern(size)).flip();
        Object context = "write-" + size;
        if (cqData == null) {
            post(() -> ep.write(buf, null, Fi.FI_ADDR_UNSPEC, addr, key, context), "write " + size);
        } else {
            post(() -> ep.writeData(buf, null, cqData, Fi.FI_ADDR_UNSPEC, addr, key, context), "writeData " + size);
        }
        CqErrEntry done = awaitCompletion(txDone, "write of " + size + " bytes");
        assertSame(context, done.context(), "the write completion's context");
        assertEquals(Fi.FI_RMA | Fi.FI_WRITE, done.flags() & (Fi.FI_RMA | Fi.FI_WRITE), "write completion flags");
    }

    /** fi_read of {@code size} bytes; checks the {@code size}-byte pattern. */
    void read(int size, long addr, long key) {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(size, 1));
        buf.limit(size);
        Object context = "read-" + size;
        post(() -> ep.read(buf, null, Fi.FI_ADDR_UNSPEC, addr, key, context), "read " + size);
        CqErrEntry done = awaitCompletion(txDone, "read of " + size + " bytes");
        assertSame(context, done.context(), "the read completion's context");
        assertEquals(Fi.FI_RMA | Fi.FI_READ, done.flags() & (Fi.FI_RMA | Fi.FI_READ), "read completion flags");
        byte[] got = new byte[size];
        buf.duplicate().position(0).limit(size).slice().get(got);
        assertEquals(-1, NativePeer.firstPatternMismatch(got, 0, size), "first byte read that differs from the pattern");
    }

    /** Waits for the target-side completion of the peer's fi_writedata. */
    void expectWriteData(long cqData) {
        CqErrEntry done = awaitCompletion(rxDone, "the peer's writedata");
        assertEquals(Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA, done.flags(), "writedata target flags");
        assertEquals(cqData, done.data(), "remote CQ data");
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
                fail(what + ": no completion within " + NativePeer.TIMEOUT
                        + (eqEvents.isEmpty() ? "" : "; EQ has " + describe(eqEvents.peek())));
            }
            Thread.yield();
        }
        CqErrEntry done = queue.poll();
        if (done.err() != 0) {
            fail(what + " completed with error " + done.err() + " (" + Errno.strerror(done.err()) + ")");
        }
        return done;
    }

    private Object nextEvent(String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (eqEvents.isEmpty()) {
            poll();
            if (System.nanoTime() > deadline) {
                fail(what + ": no EQ event within " + NativePeer.TIMEOUT);
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

    // ------------------------------------------------------------------ data helpers

    /** Connection data as the C peer spells it: a literal string, or "@N" for N pattern bytes. */
    static byte[] data(String spec) {
        if (spec.startsWith("@")) {
            return NativePeer.pattern(Integer.parseInt(spec.substring(1)));
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
