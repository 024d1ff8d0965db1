package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Progress;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One rxm pass drives tcp once (benchmarks/results/tcp-mixed-pair.md, "each rxm pass drives tcp twice"): the
 * pass reads the MSG EQ, then the MSG CQ, and both reads drove the tcp domain's progress (MANUAL: a read drives
 * the engines attached to its queue, fi_eq(3), fi_cq(3)) — two tcp passes, each a system call over the sockets,
 * per rxm pass. The EQ read now leaves the engines the CQ read drives to it
 * ({@code UtilEventQueue.readBefore}). Counted with a ticker on a's tcp loop, which runs once every
 * {@link NioLoop#TICK_EVERY} non-blocking passes: an idle rxm endpoint's reads of its CQ (each one rxm pass)
 * make as many tcp passes, not twice as many (before: 2.0 tcp passes per rxm pass).
 */
@Timeout(60)
class RxmPassCostTest {
    private static final int RXM_PASSES = NioLoop.TICK_EVERY * 400;

    @Test
    void anIdleRxmPassDrivesTcpOnce() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL);
             RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(Progress.MANUAL)) {
            RxmOverTcpTest.connected(a, b); // a connection to read: the tcp pass has a socket
            AtomicInteger ticks = new AtomicInteger();
            ((TcpDomain) a.domain).loop().addTicker(ticks::incrementAndGet);
            CqEntry[] one = {new CqEntry()};
            for (int i = 0; i < RXM_PASSES; i++) {
                assertEquals(-Errno.EAGAIN, a.rxCq.read(one, 1)); // one rxm pass (its engine), nothing to read
            }
            double tcpPerRxm = ticks.get() * (double) NioLoop.TICK_EVERY / RXM_PASSES;
            assertTrue(tcpPerRxm >= 0.9 && tcpPerRxm <= 1.2, "tcp passes per rxm pass: " + tcpPerRxm);
        }
    }
}
