package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rendezvous by write, the receiving side, when the sender never writes: the receiver has
 * registered its buffer and offered it ({@code rndv_wr_data}) and waits for the write-done. A
 * plain tcp MSG endpoint plays the rxm sender ({@link FakeRxmPeer}).
 * <ul>
 *   <li>the sender goes: the receive fails with the connection's end (before, it stayed posted
 *       for ever — lost — and the offered registration stayed);</li>
 *   <li>the endpoint closes with the offer outstanding: its registration goes with it (before,
 *       it kept the MSG domain from closing: {@code EBUSY}).</li>
 * </ul>
 */
@Timeout(60)
class RxmWriteOfferEndTest {
    private static final int SIZE = 100_000;

    @Test
    void aReceiveOfferedToASenderThatGoesFails() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, byWrite());
             TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            FakeRxmPeer p = offered(a, peer);
            p.server.close();
            CqErrEntry err = RxmOverTcpTest.awaitError(a.rxCq, a, a);
            assertEquals("offered", err.context());
            assertEquals(Errno.ECONNRESET, err.err(), Errno.strerror(err.err()));
        }
    }

    @Test
    void closingWithAnOfferOutstandingReleasesItsRegistration() throws Exception {
        try (TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, byWrite());
            FakeRxmPeer p = offered(a, peer);
            a.close(); // the domain too: EBUSY before
            p.server.close();
        }
    }

    private static RxmSettings byWrite() {
        return RxmSettings.defaults().withRendezvousByWrite(true);
    }

    /** The fake peer sends a rendezvous request that a's posted receive takes; a offers its buffer. */
    private static FakeRxmPeer offered(RxmOverTcpTest.Side a, TcpTestBed peer) throws Exception {
        FakeRxmPeer p = FakeRxmPeer.connected(a, peer);
        assertEquals(0, a.ep.recv(ByteBuffer.allocateDirect(SIZE), null, Fi.FI_ADDR_UNSPEC, "offered"));
        p.sendRendezvous(40, SIZE, SIZE);
        assertEquals(RxmWireDescriptor.TYPE_RNDV_WRITE_DATA, p.next().type, "a's offer");
        CqEntry[] one = {new CqEntry()};
        assertEquals(-Errno.EAGAIN, a.rxCq.read(one, 1), "the receive waits for the write");
        return p;
    }
}
