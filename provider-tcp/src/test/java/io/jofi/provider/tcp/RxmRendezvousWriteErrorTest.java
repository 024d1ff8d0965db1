package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmPacketHeader;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rendezvous by write, the sending side, when the receiver's offer is refused: a peer offers
 * four pieces under a key its domain does not know, so its MSG endpoint tears the connection
 * down at the first write and every write fails. The send must fail once, and the
 * application's next send (to another, healthy peer, taking the transmit the failed one gave
 * back) must complete. Here the connection's end reaches rxm before the writes' errors and
 * drains them while the transmit is still taken, so this passed before
 * {@code RxmRendezvousWriter.failed} kept the transmit until its last write came back too: it
 * pins the behaviour, the window that fix closes (an error completion read before the end) is
 * not reached by the tcp provider.
 */
@Timeout(60)
class RxmRendezvousWriteErrorTest {
    private static final int SIZE = 1 << 20;
    private static final int PIECES = 4;

    @Test
    void aRefusedWriteFailsItsSendOnlyAndOnce() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL,
                     RxmSettings.defaults().withRendezvousByWrite(true));
             TcpTestBed healthyBed = new TcpTestBed(Progress.AUTO);
             TcpTestBed refusingBed = new TcpTestBed(Progress.MANUAL)) {
            FakeRxmPeer healthy = connected(a, healthyBed, "hello healthy");
            FakeRxmPeer refusing = connected(a, refusingBed, "hello refusing");
            long toRefusing = a.insert(refusingBed.pep.getName());
            long toHealthy = a.insert(healthyBed.pep.getName());

            assertEquals(0, a.ep.send(ByteBuffer.allocateDirect(SIZE), null, toRefusing, "big"));
            RxmPacketHeader request = refusing.next();
            assertEquals(RxmWireDescriptor.TYPE_RNDV_REQUEST, request.type, "a's rendezvous request");
            assertEquals(0, refusing.sendHeader(offer(refusing, request.msgId), offerOfUnknownKey()));

            CqErrEntry err = awaitError(a, refusingBed);
            assertEquals("big", err.context());
            assertEquals(Errno.ECONNRESET, err.err(), Errno.strerror(err.err()));
            // at once, before the passes that read the other writes' errors
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(64, 3), null, toHealthy, "after"));
            CqEntry done = RxmOverTcpTest.await(a.txCq, a, a);
            assertEquals("after", done.context(), "the send to the healthy peer");
            assertEquals(RxmWireDescriptor.TYPE_EAGER, healthy.next().type, "it arrived");
            CqEntry[] one = {new CqEntry()};
            for (int i = 0; i < 50; i++) {
                assertEquals(-Errno.EAGAIN, a.txCq.read(one, 1), "nothing more: \"big\" failed once");
                Thread.sleep(2);
            }
            healthy.server.close();
            refusing.server.close();
        }
    }

    /**
     * The next error entry of a's transmit CQ, the refusing peer driven too (MANUAL progress,
     * so that it reads the writes only after a posted all of them).
     */
    private static CqErrEntry awaitError(RxmOverTcpTest.Side a, TcpTestBed refusingBed) {
        CqEntry[] one = {new CqEntry()};
        CqEntry[] none = new CqEntry[0];
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            int rc = a.txCq.read(one, 1);
            assertEquals(-Errno.EAVAIL == rc ? rc : -Errno.EAGAIN, rc, "no completion before the error");
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                assertEquals(1, a.txCq.readErr(err, 0));
                return err;
            }
            refusingBed.serverCq.read(none, 0);
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no error entry");
            }
            Thread.onSpinWait();
        }
    }

    /** A fake peer connected to {@code a} by a first eager message, received and completed. */
    private static FakeRxmPeer connected(RxmOverTcpTest.Side a, TcpTestBed bed, String hello) throws Exception {
        long to = a.insert(bed.pep.getName());
        assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(8, 1), null, to, hello));
        FakeRxmPeer p = FakeRxmPeer.accept(a, bed, RxmWireDescriptor.FLOW_CTRL_OFF);
        assertEquals(RxmWireDescriptor.TYPE_EAGER, p.next().type, hello);
        assertEquals(hello, RxmOverTcpTest.await(a.txCq, a, a).context());
        return p;
    }

    private static RxmPacketHeader offer(FakeRxmPeer p, long msgId) {
        RxmPacketHeader h = new RxmPacketHeader();
        h.type = RxmWireDescriptor.TYPE_RNDV_WRITE_DATA;
        h.op = RxmWireDescriptor.OP_MSG;
        h.connId = p.indexAtRxm();
        h.msgId = msgId;
        return h;
    }

    /** {@link #PIECES} pieces covering the message, under a key the peer never registered. */
    private static ByteBuffer offerOfUnknownKey() {
        ByteBuffer d = ByteBuffer.allocate(RxmWireDescriptor.RNDV_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < PIECES; i++) {
            RxmPacketHeader.writeRendezvousIov(d, 0, i, 0x10_0000L * (i + 1), SIZE / PIECES, 0x77);
        }
        RxmPacketHeader.writeRendezvousCount(d, 0, PIECES);
        return d;
    }
}
