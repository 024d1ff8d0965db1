package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rendezvous read in flight when its sender goes: b sends a large message (a rendezvous request), a's
 * receive takes it and posts the RMA read from b's memory, and b closes before it answered (b is never
 * driven again). The receive fails with the connection's end ({@code ECONNRESET}), never waits for ever: a
 * change that held every end until the MSG provider's flush of the receive buffers (a candidate fix of
 * FABTESTS.md gap 17, not taken) made the packet handler drop the read's error completion, and the receive got
 * no error within 20 s.
 */
@Timeout(60)
class RxmRendezvousReadEndTest {
    private static final int SIZE = 100_000;

    @Test
    void aReadInFlightFailsWithTheEndsErrno() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL)) {
            RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(Progress.MANUAL);
            try {
                long aInB = RxmOverTcpTest.connected(b, a); // b's hello: the connection is up
                assertEquals(0, a.ep.recv(ByteBuffer.allocateDirect(SIZE), null, Fi.FI_ADDR_UNSPEC, "large"));
                RxmOverTcpTest.Side sender = b;
                RxmOverTcpTest.retry(sender, sender, () -> sender.ep.send(RxmOverTcpTest.pattern(SIZE, 3), null, aInB,
                        "large-tx"));
                CqEntry[] none = {new CqEntry()};
                for (int i = 0; i < 200; i++) {
                    b.txCq.read(none, 0); // b's request goes out
                }
                for (int i = 0; i < 2000; i++) {
                    a.txCq.read(none, 0); // a takes it and posts the read (b, not driven, never answers)
                }
            } finally {
                b.close();
            }
            CqErrEntry err = RxmOverTcpTest.awaitError(a.rxCq, a, a);
            assertEquals("large", err.context());
            assertEquals(Errno.ECONNRESET, err.err(), Errno.strerror(err.err()));
        }
    }
}
