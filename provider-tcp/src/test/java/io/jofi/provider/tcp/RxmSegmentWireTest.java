package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.spi.util.rxm.RxmConnectData;
import io.jofi.spi.util.rxm.RxmPacketHeader;
import io.jofi.spi.util.rxm.RxmSettings;
import io.jofi.spi.util.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an rxm endpoint with a SAR limit puts on the wire, read by a plain tcp MSG endpoint that
 * accepts its connection as an rxm peer would: a message above the eager limit and at most the
 * SAR limit is rxm's segments (type 1) — each its own packet with the message's header, its
 * {@code seg_size}, its number, its kind (first, middle, last) in the control data and one
 * {@code msg_id} for all of them, the payload cut at the eager limit — as libfabric's rxm sends
 * them over verbs; a message of the eager limit is one eager packet; and the send completes once
 * its segments went. Before segments were sent, the same message was a rendezvous request.
 */
@Timeout(60)
class RxmSegmentWireTest {
    private static final int EAGER = RxmWireDescriptor.DEFAULT_EAGER_LIMIT;
    private static final int PACKET = RxmWireDescriptor.HEADER_LENGTH + EAGER;

    @Test
    void aMessageUpToTheSarLimitGoesInSegmentsOfTheEagerLimit() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, RxmSettings.defaults().withSarLimit(128 << 10));
             TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            long toPeer = a.insert(peer.pep.getName());
            int size = 2 * EAGER + 7_232; // three segments: 16384, 16384, 7232
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(size, 3), null, toPeer, "segmented"), "queued while connecting");
            Endpoint server = accept(a, peer);
            ByteBuffer[] packets = new ByteBuffer[4];
            for (int i = 0; i < packets.length; i++) {
                packets[i] = ByteBuffer.allocateDirect(PACKET).order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(0, server.recv(packets[i], null, Fi.FI_ADDR_UNSPEC, i));
            }
            RxmPacketHeader h = new RxmPacketHeader();
            long msgId = -1;
            int[] lengths = {EAGER, EAGER, 7_232};
            int[] kinds = {RxmWireDescriptor.SEGMENT_FIRST, RxmWireDescriptor.SEGMENT_MIDDLE, RxmWireDescriptor.SEGMENT_LAST};
            ByteBuffer expected = RxmOverTcpTest.pattern(size, 3);
            for (int i = 0; i < 3; i++) {
                CqEntry e = arrival(a, peer);
                ByteBuffer p = packets[(Integer) e.context()];
                assertEquals(RxmWireDescriptor.HEADER_LENGTH + lengths[i], e.len(), "packet " + i + "'s length");
                h.read(p, 0);
                assertEquals(RxmWireDescriptor.TYPE_SEGMENT, h.type, "packet " + i + ": a segment");
                assertEquals(i, h.segNo, "segment number");
                assertEquals(lengths[i], h.segSize, "seg_size");
                assertEquals(kinds[i], (int) (h.ctrlData & RxmWireDescriptor.SEGMENT_KIND_MASK), "segment kind");
                assertEquals(size, h.size, "every segment carries the whole message's size");
                assertEquals(RxmWireDescriptor.OP_MSG, h.op);
                if (i == 0) {
                    msgId = h.msgId;
                } else {
                    assertEquals(msgId, h.msgId, "one msg_id for the message's segments");
                }
                ByteBuffer payload = p.duplicate().position(RxmWireDescriptor.HEADER_LENGTH)
                        .limit(RxmWireDescriptor.HEADER_LENGTH + lengths[i]);
                ByteBuffer part = expected.duplicate().position(i * EAGER).limit(i * EAGER + lengths[i]);
                assertEquals(part, payload, "segment " + i + "'s payload");
            }
            assertEquals("segmented", RxmOverTcpTest.await(a.txCq, a, a).context(), "the send completed");

            // the eager limit itself: one eager packet
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(EAGER, 5), null, toPeer, "eager"));
            CqEntry e = arrival(a, peer);
            h.read(packets[(Integer) e.context()], 0);
            assertEquals(RxmWireDescriptor.TYPE_EAGER, h.type, "16 KiB: eager");
            assertEquals(RxmWireDescriptor.HEADER_LENGTH + EAGER, e.len());
            assertEquals("eager", RxmOverTcpTest.await(a.txCq, a, a).context());
            server.close();
        }
    }

    /** Accepts a's connection request on {@code peer}'s listener as an rxm peer: its accept data. */
    private static Endpoint accept(RxmOverTcpTest.Side a, TcpTestBed peer) throws Exception {
        EqEntry event = new EqEntry();
        CqEntry[] none = new CqEntry[0];
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (peer.pepEq.read(event, 0) != 1) {
            a.txCq.read(none, 0);
            assertTrue(System.nanoTime() - deadline < 0, "no connection request");
        }
        assertEquals(Fi.FI_CONNREQ, event.event());
        RxmConnectData request = new RxmConnectData().decodeConnect(event.payload(), event.payloadLength(), EAGER);
        assertNull(request.problem, "rxm's connect data");
        Endpoint server = peer.domain.endpoint(event.info(), "fake-rxm");
        server.bind(peer.serverEq, 0);
        server.bind(peer.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        server.enable();
        RxmConnectData answer = new RxmConnectData();
        answer.connId = RxmConnectData.connId(ProcessHandle.current().pid(), 7);
        answer.rxSize = 16;
        server.accept(answer.encodeAccept());
        return server;
    }

    /** The next packet the fake peer received, driving a's progress (MANUAL) meanwhile. */
    private static CqEntry arrival(RxmOverTcpTest.Side a, TcpTestBed peer) {
        CqEntry[] one = {new CqEntry()};
        CqEntry[] none = new CqEntry[0];
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            int rc = peer.serverCq.read(one, 1);
            if (rc == 1 && (one[0].flags() & Fi.FI_RECV) != 0) {
                return one[0];
            }
            assertTrue(rc == 1 || rc == -Errno.EAGAIN, "the fake peer's CQ: " + rc);
            a.txCq.read(none, 0);
            assertTrue(System.nanoTime() - deadline < 0, "no packet arrived");
        }
    }
}
