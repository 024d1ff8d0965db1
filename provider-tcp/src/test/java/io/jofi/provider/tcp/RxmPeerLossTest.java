package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An {@link io.jofi.spi.util.rxm.RxmEndpoint} over tcp loses peers as tcp RDM endpoints do:
 * {@code fi_av_remove} of a peer closes its connection (our operations on it ECANCELED, the
 * peer's ECONNRESET) and the next send connects anew; a departure of the provider (R15) ends
 * every pending operation with ECANCELED and later posts answer ENODEV.
 */
class RxmPeerLossTest {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void avRemoveClosesThatConnectionAndTheNextSendReconnects(Progress mode) throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(mode); RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(mode)) {
            long bInA = a.insert(b.ep.getName());
            long aInB = b.insert(a.ep.getName());
            ByteBuffer rb = ByteBuffer.allocate(64);
            assertEquals(0, b.ep.recv(rb, null, Fi.FI_ADDR_UNSPEC, "rb1"));
            RxmOverTcpTest.retry(a, b, () -> a.ep.send(RxmOverTcpTest.pattern(8, 1), null, bInA, "hello"));
            RxmOverTcpTest.await(b.rxCq, a, b);
            RxmOverTcpTest.await(a.txCq, a, b);
            // pending on both sides: match-complete sends nobody has a receive for
            Msg toB = new Msg().buffer(RxmOverTcpTest.pattern(8, 2), null).addr(bInA).context("pa");
            assertEquals(0, a.ep.sendMsg(toB, Fi.FI_MATCH_COMPLETE));
            Msg toA = new Msg().buffer(RxmOverTcpTest.pattern(8, 3), null).addr(aInB).context("pb");
            assertEquals(0, b.ep.sendMsg(toA, Fi.FI_MATCH_COMPLETE));
            RxmOverTcpTest.pump(a, b, 50);

            assertEquals(0, b.av.remove(new long[] {aInB}, 0), "av remove");
            CqErrEntry eb = awaitError(b.txCq, a, b);
            assertEquals("pb", eb.context());
            assertEquals(Errno.ECANCELED, eb.err(), "b ended it: ECANCELED");
            CqErrEntry ea = awaitError(a.txCq, a, b);
            assertEquals("pa", ea.context());
            assertEquals(Errno.ECONNRESET, ea.err(), "the peer ended it: ECONNRESET");

            // a sends again: a new connection; b does not know a any more (FI_SOURCE: NOTAVAIL)
            ByteBuffer rb2 = ByteBuffer.allocate(64);
            assertEquals(0, b.ep.recv(rb2, null, Fi.FI_ADDR_UNSPEC, "rb2"));
            RxmOverTcpTest.retry(a, b, () -> a.ep.send(RxmOverTcpTest.pattern(8, 4), null, bInA, "again"));
            RxmOverTcpTest.await(a.txCq, a, b);
            long[] from = {0};
            CqEntry got = RxmOverTcpTest.awaitFrom(b.rxCq, from, a, b);
            assertEquals("rb2", got.context());
            assertEquals(Fi.FI_ADDR_NOTAVAIL, from[0], "a sender not in the AV (R10)");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void departureCancelsEveryPendingOperation(Progress mode) throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(mode); RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(mode)) {
            long bInA = a.insert(b.ep.getName());
            b.insert(a.ep.getName());
            assertEquals(0, a.ep.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "pending-recv"));
            Msg m = new Msg().buffer(RxmOverTcpTest.pattern(8, 5), null).addr(bInA).context("pending-send");
            assertEquals(0, a.ep.sendMsg(m, Fi.FI_MATCH_COMPLETE));
            RxmOverTcpTest.pump(a, b, 50);
            a.ep.depart(); // what the MSG provider's departure does to the RDM endpoints it opened

            Set<Object> contexts = new HashSet<>();
            contexts.add(awaitError(a.rxCq, a, b).context());
            CqErrEntry e = awaitError(a.txCq, a, b);
            assertEquals(Errno.ECANCELED, e.err(), e.toString());
            contexts.add(e.context());
            assertEquals(Set.of("pending-recv", "pending-send"), contexts);
            assertEquals(-Errno.ENODEV, a.ep.send(NOTHING, null, bInA, "late"));
        }
    }

    private static CqErrEntry awaitError(CompletionQueue cq, RxmOverTcpTest.Side a, RxmOverTcpTest.Side b) {
        CqEntry[] buf = {new CqEntry()};
        CqEntry[] other = {new CqEntry()};
        long deadline = System.currentTimeMillis() + RxmOverTcpTest.TIMEOUT_MS;
        while (true) {
            int rc = cq.read(buf, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                assertEquals(1, cq.readErr(err, 0));
                return err;
            }
            if (rc == 1) {
                fail("a completion where an error was expected: " + buf[0].context());
            }
            if (a.ep.isOpen()) {
                a.rxCq.read(other, 0);
            }
            if (b.ep.isOpen()) {
                b.rxCq.read(other, 0);
            }
            if (System.currentTimeMillis() > deadline) {
                fail("no error completion within " + RxmOverTcpTest.TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }
}
