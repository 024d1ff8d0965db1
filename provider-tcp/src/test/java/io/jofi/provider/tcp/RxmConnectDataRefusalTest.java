package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Addresses;
import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmConnectData;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Connect data the rxm wire does not allow is refused, counted and logged: a request naming
 * port 0 as the requester's listening port was accepted, and the peer's name it makes (address,
 * port 0) was later refused by the address vector, so the requester was never answered. A plain
 * tcp MSG endpoint plays the requester with rxm's connect data: port 0 is rejected
 * ({@code ECONNREFUSED} on its EQ) and counted as "requests refused"; the same data naming its
 * real port is accepted.
 */
@Timeout(60)
class RxmConnectDataRefusalTest {

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void connectDataNamingPortZeroIsRefused(Progress mode) throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(mode);
             TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            Endpoint zero = peer.newClient();
            zero.connect(a.ep.getName(), connectData(0));
            EqErrEntry refused = awaitError(a, peer);
            assertEquals(Errno.ECONNREFUSED, refused.err(), "port 0 is refused");
            assertEquals(1, refusedRequests(a), "and counted");
            zero.close();

            Endpoint real = peer.newClient();
            real.connect(a.ep.getName(), connectData(Addresses.fromSockaddr(peer.pep.getName()).getPort()));
            EqEntry e = new EqEntry();
            CqEntry[] none = new CqEntry[0];
            long deadline = System.nanoTime() + 10_000_000_000L;
            int rc;
            while ((rc = peer.clientEq.read(e, 0)) != 1) {
                assertEquals(-Errno.EAGAIN, rc, "the real port is accepted");
                a.txCq.read(none, 0);
                assertTrue(System.nanoTime() - deadline < 0, "no answer to the request naming a real port");
            }
            assertEquals(Fi.FI_CONNECTED, e.event());
            assertEquals(1, refusedRequests(a), "nothing more refused");
            real.close();
        }
    }

    private static byte[] connectData(int port) {
        RxmConnectData d = new RxmConnectData();
        d.port = port;
        d.connId = RxmConnectData.connId(ProcessHandle.current().pid(), 3);
        d.rxSize = 64;
        return d.encodeConnect();
    }

    private static EqErrEntry awaitError(RxmOverTcpTest.Side a, TcpTestBed peer) {
        EqEntry e = new EqEntry();
        CqEntry[] none = new CqEntry[0];
        long deadline = System.nanoTime() + 10_000_000_000L;
        int rc;
        while ((rc = peer.clientEq.read(e, 0)) != -Errno.EAVAIL) {
            assertTrue(rc == -Errno.EAGAIN, "an answer other than a refusal: event " + (rc == 1 ? e.event() : rc));
            a.txCq.read(none, 0);
            assertTrue(System.nanoTime() - deadline < 0, "the request was never answered");
        }
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, peer.clientEq.readErr(err, 0));
        return err;
    }

    private static long refusedRequests(RxmOverTcpTest.Side a) {
        return a.ep.counters().counters().stream().filter(c -> c.label().endsWith(": requests refused")).findFirst()
                .orElseThrow().get();
    }
}
