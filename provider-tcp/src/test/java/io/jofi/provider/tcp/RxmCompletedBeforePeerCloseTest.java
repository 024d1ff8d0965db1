package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * fabtests' finalize over rxm, where the peer closes its endpoint as soon as it has received:
 * a's {@code FI_TRANSMIT_COMPLETE} send is acknowledged and, right behind the ack, the
 * connection ends. The send completed, so it completes with success — never with the
 * connection's end ({@code ECONNRESET}). In MANUAL progress two threads take part on a's side:
 * the application's, which reads the MSG CQ (the ack's completion) and then handles what it
 * read, and the rxm connection-management thread, which handles the MSG EQ's
 * {@code FI_SHUTDOWN}; the end must not fail an operation whose completion the application's
 * thread has already read. The race is narrow, so the exchange runs many times (before the fix
 * it failed within a few hundred rounds: "./jofi bw -e rdm" JOFI to JOFI failed its finalize
 * with ECONNRESET about once in 35 runs).
 */
@Timeout(180)
class RxmCompletedBeforePeerCloseTest {
    private static final int ROUNDS = 300;

    /**
     * The rounds do not wait for the previous peer's close to return (a MANUAL rxm endpoint's close
     * waits up to 100 ms for its connection-management thread): up to {@link #CLOSING} peers close
     * meanwhile, each on a thread of its own; every peer's outcome is checked.
     */
    private static final int CLOSING = 8;

    @Test
    void aTransmitCompleteSendAckedRightBeforeThePeerClosesSucceeds() throws Exception {
        ExecutorService peer = Executors.newCachedThreadPool();
        Deque<Future<?>> peers = new ArrayDeque<>();
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL)) {
            for (int round = 0; round < ROUNDS; round++) {
                peers.add(oneRound(round, a, peer));
                while (!peers.isEmpty() && (peers.size() > CLOSING || peers.peekFirst().isDone())) {
                    peers.removeFirst().get(30, TimeUnit.SECONDS);
                }
            }
            while (!peers.isEmpty()) {
                peers.removeFirst().get(30, TimeUnit.SECONDS);
            }
        } finally {
            peer.shutdownNow();
        }
    }

    /** A new peer b per round: a's connection to it is acked and ended at once; b's side, closing. */
    private static Future<?> oneRound(int round, RxmOverTcpTest.Side a, ExecutorService peer) throws Exception {
        {
            RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(Progress.MANUAL);
            long bInA = a.insert(b.ep.getName());
            ByteBuffer rb = ByteBuffer.allocate(64);
            assertEquals(0, b.ep.recv(rb, null, Fi.FI_ADDR_UNSPEC, "rb"));
            // b: waits for the message in its own thread, then closes at once (as a finished
            // fabtests peer frees its resources)
            Future<?> bSide = peer.submit(() -> {
                try {
                    CqEntry[] e = {new CqEntry()};
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (b.rxCq.read(e, 1) != 1) {
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("round " + round + ": b received nothing");
                        }
                    }
                } finally {
                    b.close();
                }
                return null;
            });
            Msg m = new Msg().buffer(RxmOverTcpTest.pattern(4, round), null).addr(bInA).context("finalize");
            int rc;
            while ((rc = a.ep.sendMsg(m, Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION)) == -Errno.EAGAIN) {
                a.txCq.read(new CqEntry[] {new CqEntry()}, 0);
            }
            assertEquals(0, rc, "sendMsg");
            CqEntry[] e = {new CqEntry()};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                int n = a.txCq.read(e, 1);
                if (n == 1) {
                    assertEquals("finalize", e[0].context());
                    break;
                }
                if (n == -Errno.EAVAIL) {
                    CqErrEntry err = new CqErrEntry();
                    a.txCq.readErr(err, 0);
                    fail("round " + round + ": the acknowledged send completed with " + Errno.strerror(err.err()));
                }
                if (System.nanoTime() > deadline) {
                    fail("round " + round + ": no send completion");
                }
            }
            return bSide;
        }
    }
}
