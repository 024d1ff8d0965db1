package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A peer's malformed rxm packets are dropped and change nothing: a plain tcp MSG endpoint plays
 * the rxm peer ({@link FakeRxmPeer}) and sends one bad packet, the rxm endpoint progresses, and
 * the same peer's next good message is received by the next receive, whole and alone — no
 * exception out of the progress pass, no receive taken by the bad packet. Before, a rendezvous
 * request naming a buffer of negative length threw {@code IllegalArgumentException} out of the
 * application's CQ read (the read's offset went negative), and one whose buffers held less than
 * its size was read past them.
 */
@Timeout(60)
class RxmMalformedPacketTest {

    @ParameterizedTest
    @ValueSource(strings = {"rendezvous-negative-length", "rendezvous-short-buffers", "eager-longer-than-packet",
        "unknown-type", "segment-of-unknown-message", "shorter-than-a-header", "control-version-9", "operation-version-9",
        "unknown-conn-id"})
    void aMalformedPacketIsDroppedAndTheNextMessageArrives(String kind) throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, RxmSettings.defaults());
             TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            long toPeer = a.insert(peer.pep.getName());
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(8, 1), null, toPeer, "hello"), "queued while connecting");
            FakeRxmPeer p = FakeRxmPeer.accept(a, peer, RxmWireDescriptor.FLOW_CTRL_OFF);
            switch (kind) {
                case "rendezvous-negative-length" -> p.sendRendezvous(500, 100, -100, 200);
                case "rendezvous-short-buffers" -> p.sendRendezvous(501, 100_000, 10, 20);
                case "eager-longer-than-packet" -> p.sendPacket(RxmWireDescriptor.TYPE_EAGER, 4096, 16);
                case "unknown-type" -> p.sendPacket(99, 8, 8);
                case "segment-of-unknown-message" -> p.sendSegment(502, 40_000, 1, RxmWireDescriptor.SEGMENT_MIDDLE,
                        ByteBuffer.allocate(64));
                case "control-version-9" -> assertEquals(0, p.sendPatched(eager16(p, h -> { }), ByteBuffer.allocate(16),
                        RxmWireDescriptor.CTRL_VERSION_OFFSET, 9));
                case "operation-version-9" -> assertEquals(0, p.sendPatched(eager16(p, h -> { }), ByteBuffer.allocate(16),
                        RxmWireDescriptor.OP_VERSION_OFFSET, 9));
                case "unknown-conn-id" -> assertEquals(0, p.sendHeader(eager16(p, h -> h.connId = p.indexAtRxm() + 1),
                        ByteBuffer.allocate(16)));
                default -> p.sendShortPacket(RxmWireDescriptor.HEADER_LENGTH - 1);
            }
            progressFor(a, 200);
            ByteBuffer in = ByteBuffer.allocateDirect(4096);
            assertEquals(0, a.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "good"));
            p.sendEager();
            CqEntry got = awaitReceive(a);
            assertEquals("good", got.context(), "the next receive took the good message");
            assertEquals(8, got.len(), "the good message's 8 bytes, not the bad packet");
            CqEntry[] more = {new CqEntry()};
            assertEquals(-Errno.EAGAIN, a.rxCq.read(more, 1), "nothing else completed");
            if (REFUSED_BY_THE_HEADER.contains(kind)) {
                assertEquals(1, refusedPackets(a), "the refusal is counted");
            }
            p.server.close();
        }
    }

    /** Kinds the header alone refuses (counted as "packets refused"); the others fail deeper, in their protocol. */
    private static final java.util.Set<String> REFUSED_BY_THE_HEADER = java.util.Set.of("eager-longer-than-packet",
            "unknown-type", "shorter-than-a-header", "control-version-9", "operation-version-9", "unknown-conn-id");

    /** An eager message header of 16 bytes from {@code p}, changed by {@code bad}. */
    private static io.jofi.provider.rxm.RxmPacketHeader eager16(FakeRxmPeer p,
                                                               java.util.function.Consumer<io.jofi.provider.rxm.RxmPacketHeader> bad) {
        io.jofi.provider.rxm.RxmPacketHeader h = new io.jofi.provider.rxm.RxmPacketHeader();
        h.type = RxmWireDescriptor.TYPE_EAGER;
        h.op = RxmWireDescriptor.OP_MSG;
        h.connId = p.indexAtRxm();
        h.size = 16;
        bad.accept(h);
        return h;
    }

    private static long refusedPackets(RxmOverTcpTest.Side a) {
        return a.ep.counters().counters().stream().filter(c -> c.label().endsWith(": packets refused")).findFirst()
                .orElseThrow(() -> new AssertionError("no counter \"packets refused\"")).get();
    }

    private static void progressFor(RxmOverTcpTest.Side a, long ms) {
        CqEntry[] none = new CqEntry[0];
        for (long end = System.nanoTime() + ms * 1_000_000L; System.nanoTime() - end < 0; ) {
            a.txCq.read(none, 0);
            a.rxCq.read(none, 0);
        }
    }

    private static CqEntry awaitReceive(RxmOverTcpTest.Side a) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        int rc;
        while ((rc = a.rxCq.read(one, 1)) != 1) {
            assertEquals(-Errno.EAGAIN, rc, "a's receive CQ");
            assertTrue(System.nanoTime() - deadline < 0, "the good message did not arrive");
        }
        return one[0];
    }
}
