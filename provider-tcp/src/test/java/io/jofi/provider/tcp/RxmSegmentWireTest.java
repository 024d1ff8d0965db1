package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqEntry;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmPacketHeader;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
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

    @Test
    void aMessageUpToTheSarLimitGoesInSegmentsOfTheEagerLimit() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, RxmSettings.defaults().withSarLimit(128 << 10));
             TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            long toPeer = a.insert(peer.pep.getName());
            int size = 2 * EAGER + 7_232; // three segments: 16384, 16384, 7232
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(size, 3), null, toPeer, "segmented"), "queued while connecting");
            FakeRxmPeer fake = FakeRxmPeer.accept(a, peer, RxmWireDescriptor.FLOW_CTRL_OFF);
            RxmPacketHeader h = fake.header;
            long msgId = -1;
            int[] lengths = {EAGER, EAGER, 7_232};
            int[] kinds = {RxmWireDescriptor.SEGMENT_FIRST, RxmWireDescriptor.SEGMENT_MIDDLE, RxmWireDescriptor.SEGMENT_LAST};
            ByteBuffer expected = RxmOverTcpTest.pattern(size, 3);
            for (int i = 0; i < 3; i++) {
                CqEntry e = fake.arrival();
                ByteBuffer p = fake.packets[(Integer) e.context()];
                assertEquals(RxmWireDescriptor.HEADER_LENGTH + lengths[i], e.len(), "packet " + i + "'s length");
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
            CqEntry e = fake.arrival();
            assertEquals(RxmWireDescriptor.TYPE_EAGER, h.type, "16 KiB: eager");
            assertEquals(RxmWireDescriptor.HEADER_LENGTH + EAGER, e.len());
            assertEquals("eager", RxmOverTcpTest.await(a.txCq, a, a).context());
            fake.server.close();
        }
    }
}
