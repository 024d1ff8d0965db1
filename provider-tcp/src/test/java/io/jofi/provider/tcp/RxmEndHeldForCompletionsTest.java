package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmTestAccess;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The end of a connection that a progress pass reads is held, as one the connection-management
 * thread reads is, while operations on it await their MSG completions: a pass reads the MSG EQ
 * before the MSG CQ, so when the MSG provider's own thread has put both the peer's
 * acknowledgement (into the CQ) and its close (into the EQ), ending at once failed the
 * acknowledged send with ECONNRESET. That is fabtests' finalize against a peer that exits as soon
 * as it has our message (VerbsRxmInteropTest's fin failed so in CI:
 * {@code cClientAgainstJofiServer[msg]}). Here the order is made certain: a's lock is held while
 * the peer acknowledges and closes, so a's own threads wait, and the test's thread runs the pass
 * that reads the end. Before the fix: ECONNRESET every time.
 */
@Timeout(60)
class RxmEndHeldForCompletionsTest {

    @Test
    void anAcknowledgedSendWhoseEndThePassReadsFirstSucceeds() throws Exception {
        RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.AUTO);
        RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(Progress.AUTO);
        try {
            long bInA = RxmOverTcpTest.connected(a, b);
            assertEquals(0, b.ep.recv(ByteBuffer.allocate(64), null, Fi.FI_ADDR_UNSPEC, "fin-rx"));

            synchronized (RxmTestAccess.lockOf(a.ep)) {
                Msg fin = new Msg().buffer(RxmOverTcpTest.pattern(4, 2), null).addr(bInA).context("fin");
                assertEquals(0, a.ep.sendMsg(fin, Fi.FI_TRANSMIT_COMPLETE));
                // b takes the message (acknowledging it, as FI_TRANSMIT_COMPLETE asks) and closes
                CqEntry[] e = {new CqEntry()};
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (b.rxCq.read(e, 1) != 1) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("b never received the fin");
                    }
                }
                b.close();
                b = null;
                Thread.sleep(100); // tcp's progress thread puts the ack into a's MSG CQ and the close into its EQ
                RxmTestAccess.progressPass(a.ep);
            }
            assertEquals("fin", RxmOverTcpTest.await(a.txCq, a, a).context(),
                    "the acknowledged send completes with success, not with the end");
        } finally {
            if (b != null) {
                b.close();
            }
            a.close();
        }
    }

    /**
     * The held end's other outcome: an operation the peer never took fails, with ECONNRESET (as
     * when the pass ended the connection at once), while its end is held — promptly, never as a
     * success. Here tcp fails it itself with ECONNRESET; where a MSG provider flushes it instead
     * (verbs: ECANCELED) the held end comes at once and gives its own errno
     * ({@code RxmConnectionManager.endHeldNow}).
     */
    @Test
    void anUnacknowledgedSendWhoseEndIsHeldFailsWithTheEndsErrno() throws Exception {
        RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.AUTO);
        RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(Progress.MANUAL); // b reads nothing unless driven
        try {
            long bInA = RxmOverTcpTest.connected(a, b);
            synchronized (RxmTestAccess.lockOf(a.ep)) {
                Msg lost = new Msg().buffer(RxmOverTcpTest.pattern(4, 2), null).addr(bInA).context("lost");
                assertEquals(0, a.ep.sendMsg(lost, Fi.FI_TRANSMIT_COMPLETE));
                b.close(); // never driven after the hello: it closes with the send unread and unacknowledged
                b = null;
                Thread.sleep(100); // tcp's progress thread: the close into a's EQ, the send's failure into its CQ
                RxmTestAccess.progressPass(a.ep);
            }
            long started = System.nanoTime();
            io.jofi.CqErrEntry err = awaitError(a);
            assertEquals("lost", err.context());
            assertEquals(Errno.ECONNRESET, err.err(), "the end's errno: " + err);
            assertTrue(System.nanoTime() - started < 5_000_000_000L, "no wait beyond the hold");
        } finally {
            if (b != null) {
                b.close();
            }
            a.close();
        }
    }

    private static io.jofi.CqErrEntry awaitError(RxmOverTcpTest.Side a) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() - deadline < 0) {
            int rc = a.txCq.read(one, 1);
            if (rc == -Errno.EAVAIL) {
                io.jofi.CqErrEntry err = new io.jofi.CqErrEntry();
                assertEquals(1, a.txCq.readErr(err, 0));
                return err;
            }
            assertTrue(rc != 1, "a success for a send nobody received: " + one[0].context());
        }
        throw new AssertionError("no error completion within 20 s");
    }
}
