package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmSettings;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rendezvous whose sender goes at once: a plain tcp MSG endpoint playing the rxm sender
 * ({@link FakeRxmPeer}) sends a rendezvous request that a posted receive takes, and closes its
 * connection straight after. The pass that takes the request finds the connection gone when
 * it posts the RMA read (or the offer, by write); the receive fails with the connection's end,
 * {@code ECONNRESET}, as it does when the end is read first. Before, by read it failed with the
 * read post's {@code ENOTCONN}: an errno for each way the end was found.
 */
@Timeout(60)
class RxmRendezvousSenderGoneTest {
    private static final int SIZE = 100_000;

    @ParameterizedTest(name = "rendezvous by write: {0}")
    @ValueSource(booleans = {false, true})
    void theReceiveFailsWithTheEndsErrno(boolean byWrite) throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL,
                RxmSettings.defaults().withRendezvousByWrite(byWrite));
             TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            FakeRxmPeer p = FakeRxmPeer.connected(a, peer);
            assertEquals(0, a.ep.recv(ByteBuffer.allocateDirect(SIZE), null, Fi.FI_ADDR_UNSPEC, "large"));
            p.sendRendezvous(40, SIZE, SIZE);
            p.server.close();
            CqErrEntry err = RxmOverTcpTest.awaitError(a.rxCq, a, a);
            assertEquals("large", err.context());
            assertEquals(Errno.ECONNRESET, err.err(), Errno.strerror(err.err()));
        }
    }
}
