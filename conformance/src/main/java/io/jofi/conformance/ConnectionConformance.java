package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Connection management on MSG endpoints (fi_eq(3) "Connection Notification", fi_cm, R14):
 * FI_CONNREQ with the connecting side's data and handle, FI_CONNECTED on both sides with the
 * acceptor's data exactly, reject as ECONNREFUSED with the reject data, FI_SHUTDOWN exactly
 * once after a peer's shutdown or close, and pending operations failing on a lost connection.
 * Always MSG, whatever the kit's endpoint type.
 */
public abstract class ConnectionConformance extends EndpointTest {
    /** docs/API.md: connection data up to 256 bytes on every provider. */
    static final int CM_DATA = 256;

    private Info info;
    private EventQueue pepEq;
    private PassiveEndpoint pep;
    private Endpoint active;
    private EventQueue activeEq;
    private CompletionQueue activeCq;

    /** Opens the active endpoint (enabled, not connected) and a listening passive endpoint. */
    private void listenAndPrepare() throws FabricException {
        info = fx.require(Fi.FI_MSG, 0, EpType.MSG);
        active = fx.openEndpoint(info, "active");
        activeEq = fx.openEq(new EqAttr(), "eq-active");
        activeCq = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "cq-active");
        active.bind(activeEq, 0);
        active.bind(activeCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        active.enable();
        pepEq = fx.openEq(new EqAttr(), "eq-pep");
        pep = fx.openPassiveEndpoint(info, "pep");
        pep.bind(pepEq, 0);
        pep.listen();
    }

    private static byte[] data(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    private EqEntry connectRequest(byte[] param) throws FabricException {
        active.connect(pep.getName(), param);
        EqEntry req = new EqEntry();
        await().event(pepEq, req, Fi.FI_CONNREQ, "FI_CONNREQ");
        return req;
    }

    private static final class Accepted {
        Endpoint ep;
        EventQueue eq;
        CompletionQueue cq;
    }

    private Accepted accept(EqEntry req, byte[] param) throws FabricException {
        Accepted s = new Accepted();
        s.ep = fx.openEndpoint(req.info(), "passive-side");
        s.eq = fx.openEq(new EqAttr(), "eq-passive-side");
        s.cq = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "cq-passive-side");
        s.ep.bind(s.eq, 0);
        s.ep.bind(s.cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        s.ep.enable();
        s.ep.accept(param);
        return s;
    }

    /** The connection data the endpoints carry: FI_OPT_CM_DATA_SIZE (fi_endpoint(3)), at most {@link #CM_DATA}. */
    private int cmDataSize() throws FabricException {
        long n = active.getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_CM_DATA_SIZE);
        assertTrue(n > 0, "FI_OPT_CM_DATA_SIZE of an MSG endpoint: " + n);
        return (int) Math.min(CM_DATA, n);
    }

    /**
     * FI_OPT_CM_DATA_SIZE is at least 256 bytes (docs/API.md) on a provider that promises the
     * minimums; otherwise skipped with the size it advertises.
     */
    @Test
    void connectionDataSizeIsAtLeast256() throws FabricException {
        listenAndPrepare();
        long n = active.getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_CM_DATA_SIZE);
        if (offersApiMinimums()) {
            assertTrue(n >= CM_DATA, "FI_OPT_CM_DATA_SIZE: " + n);
        } else {
            assertTrue(n > 0, "FI_OPT_CM_DATA_SIZE: " + n);
            Assumptions.assumeTrue(n >= CM_DATA, "provider " + fx.provider() + " carries " + n
                    + " bytes of connection data (FI_OPT_CM_DATA_SIZE), below docs/API.md's " + CM_DATA);
        }
    }

    /**
     * R14 and fi_eq(3): FI_CONNREQ's fid is the passive endpoint, its info carries the
     * ConnReq handle and the connecting side's data (as much as FI_OPT_CM_DATA_SIZE allows, up
     * to 256 bytes); after accept both sides get FI_CONNECTED
     * with their own endpoint as fid, the active side with exactly the acceptor's data, the
     * listening side with none.
     */
    @Test
    void acceptConnectsBothSidesWithTheirData() throws FabricException {
        listenAndPrepare();
        byte[] connectData = data(cmDataSize(), 1);
        EqEntry req = connectRequest(connectData);
        assertSame(pep, req.fid(), "FI_CONNREQ's fid is the passive endpoint");
        assertNotNull(req.info(), "FI_CONNREQ carries the connecting endpoint's info");
        assertNotNull(req.info().handle(), "info().handle() is the ConnReq (R14)");
        assertTrue(req.payloadLength() >= connectData.length, "FI_CONNREQ carries the connect data");
        assertArrayEquals(connectData, Arrays.copyOf(req.payload(), connectData.length), "FI_CONNREQ data (R14)");

        byte[] acceptData = data(13, 100);
        Accepted s = accept(req, acceptData);
        EqEntry ev = new EqEntry();
        await().event(s.eq, ev, Fi.FI_CONNECTED, "FI_CONNECTED on the listening side");
        assertSame(s.ep, ev.fid(), "the listening side's FI_CONNECTED fid is its endpoint");
        assertEquals(0, ev.payloadLength(), "fi_eq(3): no user data with FI_CONNECTED on the listening side");
        await().event(activeEq, ev, Fi.FI_CONNECTED, "FI_CONNECTED on the connecting side");
        assertSame(active, ev.fid(), "the connecting side's FI_CONNECTED fid is its endpoint");
        assertEquals(acceptData.length, ev.payloadLength(), "payloadLength is exactly what accept passed, never padded (R14)");
        assertArrayEquals(acceptData, Arrays.copyOf(ev.payload(), ev.payloadLength()), "the acceptor's data (R14)");
        assertNotNull(active.getPeer(), "getPeer of a connected endpoint");
    }

    /** R14: reject gives the connecting side an error event, ECONNREFUSED, with the reject data in errData. */
    @Test
    void rejectRefusesWithTheRejectData() throws FabricException {
        listenAndPrepare();
        EqEntry req = connectRequest(null);
        byte[] rejectData = data(9, 40);
        pep.reject(req.info().handle(), rejectData);
        EqErrEntry err = await().errorEvent(activeEq, new EqErrEntry(), "the connecting side's rejection error");
        assertEquals(Errno.ECONNREFUSED, err.err(), "err of a rejected connect (R14): " + err);
        assertSame(active, err.fid(), "the error's fid is the connecting endpoint");
        assertNotNull(err.errData(), "errData carries the reject data (R14)");
        assertTrue(err.errDataSize() >= rejectData.length, "errDataSize covers the reject data");
        assertArrayEquals(rejectData, Arrays.copyOf(err.errData(), rejectData.length), "the reject data (R14)");
    }

    private Accepted connected() throws FabricException {
        listenAndPrepare();
        Accepted s = accept(connectRequest(null), null);
        EqEntry ev = new EqEntry();
        await().event(s.eq, ev, Fi.FI_CONNECTED, "FI_CONNECTED on the listening side");
        await().event(activeEq, ev, Fi.FI_CONNECTED, "FI_CONNECTED on the connecting side");
        return s;
    }

    private void assertNoMoreEvents(EventQueue eq, String what) {
        await().settle();
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0), what);
    }

    /** R14: a peer's shutdown gives FI_SHUTDOWN exactly once on the other side (and once on its own). */
    @Test
    void shutdownIsReportedExactlyOnce() throws FabricException {
        Accepted s = connected();
        active.shutdown(0);
        EqEntry ev = new EqEntry();
        await().event(s.eq, ev, Fi.FI_SHUTDOWN, "FI_SHUTDOWN on the peer of the endpoint that shut down");
        assertSame(s.ep, ev.fid(), "FI_SHUTDOWN's fid is the endpoint whose connection ended");
        await().event(activeEq, ev, Fi.FI_SHUTDOWN, "FI_SHUTDOWN on the endpoint that shut down");
        assertSame(active, ev.fid());
        active.shutdown(0);
        assertNoMoreEvents(s.eq, "FI_SHUTDOWN exactly once per connection (R14)");
        assertNoMoreEvents(activeEq, "FI_SHUTDOWN exactly once per connection (R14)");
    }

    /** R14: a peer's close gives FI_SHUTDOWN once, and the receives still pending fail with ECONNRESET or ECANCELED. */
    @Test
    void peerCloseFailsPendingReceives() throws FabricException {
        Accepted s = connected();
        Object pending = new Object();
        post(() -> s.ep.recv(zeroed(16), null, ANY, pending), "recv that never gets a message");
        fx.close(active);
        EqEntry ev = new EqEntry();
        await().event(s.eq, ev, Fi.FI_SHUTDOWN, "FI_SHUTDOWN after the peer closed its endpoint");
        CqErrEntry e = await().error(s.cq, new CqErrEntry(), "the pending receive to fail");
        assertTrue(e.err() == Errno.ECONNRESET || e.err() == Errno.ECANCELED,
                "a pending receive on a lost connection fails with ECONNRESET or ECANCELED (R14): " + e);
        assertSame(pending, e.context(), "the failed receive's context");
        assertNoMoreEvents(s.eq, "FI_SHUTDOWN exactly once per connection (R14)");
    }
}
