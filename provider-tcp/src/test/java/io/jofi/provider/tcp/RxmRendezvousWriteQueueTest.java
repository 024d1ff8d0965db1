package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmPacketHeader;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rendezvous by write, the sending side, with a MSG queue that fills: eight 1 MiB sends whose
 * receiver ({@link FakeRxmPeer}, MANUAL progress, not reading meanwhile) offers four buffers
 * each, so 32 writes of 256 KiB meet a MSG queue of 16 and a socket that stops taking bytes.
 * Every byte must be written before the write-done that completes the receive goes out. Before,
 * a write the full queue refused was logged and skipped, and the write-done still went: the
 * receiver took messages of which parts were never written.
 */
@Timeout(60)
class RxmRendezvousWriteQueueTest {
    private static final int SENDS = 8;
    private static final int SIZE = 1 << 20;
    private static final int PARTS = 4;

    @Test
    void everyWriteIsPostedBeforeTheWriteDone() throws Exception {
        RxmSettings d = RxmSettings.defaults();
        RxmSettings settings = new RxmSettings(d.eagerLimit(), 8, d.transmitOps(), d.receiveQueueSize(),
                d.maxUnexpectedBytes(), d.maxUnexpectedMessages(), d.msgCqSize(), true, d.sarLimit(), false);
        ByteBuffer region = ByteBuffer.allocateDirect(SENDS * SIZE);
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, settings, 16);
             TcpTestBed peer = new TcpTestBed(Progress.MANUAL);
             MemoryRegion target = peer.domain.register(region,
                     Fi.FI_REMOTE_WRITE, 0, 0x71, 0, null)) {
            long toPeer = a.insert(peer.pep.getName());
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(8, 1), null, toPeer, "hello"));
            FakeRxmPeer p = FakeRxmPeer.accept(a, peer, RxmWireDescriptor.FLOW_CTRL_OFF);
            assertEquals(RxmWireDescriptor.TYPE_EAGER, p.next().type, "a's hello");
            for (int i = 0; i < SENDS; i++) {
                assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(SIZE, 10 + i), null, toPeer, "s" + i));
            }
            List<Long> requests = new ArrayList<>();
            while (requests.size() < SENDS) {
                RxmPacketHeader h = p.next();
                assertEquals(RxmWireDescriptor.TYPE_RNDV_REQUEST, h.type, "a rendezvous request");
                requests.add(h.msgId);
            }
            // each request gets an offer of four 256 KiB pieces of its MiB of the target
            for (int i = 0; i < SENDS; i++) {
                RxmPacketHeader h = new RxmPacketHeader();
                h.type = RxmWireDescriptor.TYPE_RNDV_WRITE_DATA;
                h.connId = p.indexAtRxm();
                h.msgId = requests.get(i);
                ByteBuffer offer = ByteBuffer.allocate(RxmWireDescriptor.RNDV_LENGTH).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                for (int j = 0; j < PARTS; j++) {
                    RxmPacketHeader.writeRendezvousIov(offer, 0, j, target.address() + (long) i * SIZE + (long) j * SIZE / PARTS,
                            SIZE / PARTS, target.key());
                }
                RxmPacketHeader.writeRendezvousCount(offer, 0, PARTS);
                assertEquals(0, p.sendHeader(h, offer));
            }
            // a writes while the peer reads nothing; then both progress until every write-done came
            CqEntry[] none = new CqEntry[0];
            for (long end = System.nanoTime() + 200_000_000L; System.nanoTime() - end < 0; ) {
                a.txCq.read(none, 0);
            }
            int done = 0;
            while (done < SENDS) {
                RxmPacketHeader h = p.next();
                assertEquals(RxmWireDescriptor.TYPE_RNDV_WRITE_DONE, h.type, "a write-done");
                int i = requests.indexOf(h.msgId);
                assertTrue(i >= 0, "a write-done for a request: " + h.msgId);
                ByteBuffer mine = region.slice(i * SIZE, SIZE);
                assertEquals(RxmOverTcpTest.pattern(SIZE, 10 + i), mine, "send " + i + " written whole before its write-done");
                done++;
            }
            p.server.close();
        }
    }
}
