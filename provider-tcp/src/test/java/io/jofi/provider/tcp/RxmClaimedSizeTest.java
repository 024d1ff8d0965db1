package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer's claimed message size is not an allocation: with rxm's credits every packet is taken
 * (none may be left in its buffer), so a segmented message that finds no receive is copied as
 * its segments come, in a copy that grows with them — not one of the size its first segment
 * claims. A plain tcp MSG endpoint plays the rxm peer ({@link FakeRxmPeer}) and offers credits.
 * Before, one first segment claiming 512 MiB made the receiver allocate 512 MiB (2 GiB could be
 * claimed). A real segmented message that arrives unexpected is still put together whole.
 * (The rendezvous side: {@code RxmOverTcpTest.creditsKeepALargeUnexpectedRendezvousAsItsDescriptor}.)
 */
@Timeout(60)
class RxmClaimedSizeTest {
    private static final int EAGER = RxmWireDescriptor.DEFAULT_EAGER_LIMIT;

    @Test
    void aFirstSegmentClaimingHalfAGibibyteAllocatesWhatCame() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL,
                RxmSettings.defaults().withCreditFlowControl(true));
             TcpTestBed peer = new TcpTestBed(Progress.AUTO)) {
            long toPeer = a.insert(peer.pep.getName());
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(8, 1), null, toPeer, "hello"), "queued while connecting");
            FakeRxmPeer p = FakeRxmPeer.accept(a, peer, RxmWireDescriptor.FLOW_CTRL_ON);
            assertEquals(RxmWireDescriptor.TYPE_CREDIT, p.next().type, "a's grant");
            p.sendCredits(8);

            long before = allocatedByAllThreads();
            p.sendSegment(100, 512L << 20, 0, RxmWireDescriptor.SEGMENT_FIRST, RxmOverTcpTest.pattern(EAGER, 5));
            awaitUnexpected(a, 1);
            long allocated = allocatedByAllThreads() - before;
            assertTrue(allocated < (16L << 20), allocated + " bytes allocated for one 16 KiB segment of a message"
                    + " claiming 512 MiB");

            // a real one: three segments, unexpected, then received whole
            int size = 2 * EAGER + 7_232;
            ByteBuffer whole = RxmOverTcpTest.pattern(size, 9);
            int[] kinds = {RxmWireDescriptor.SEGMENT_FIRST, RxmWireDescriptor.SEGMENT_MIDDLE,
                RxmWireDescriptor.SEGMENT_LAST};
            for (int i = 0; i < 3; i++) {
                ByteBuffer part = whole.duplicate().position(i * EAGER).limit(Math.min(size, (i + 1) * EAGER));
                p.sendSegment(200, size, i, kinds[i], part);
            }
            awaitUnexpected(a, 2);
            ByteBuffer in = ByteBuffer.allocateDirect(size);
            ByteBuffer claimed = ByteBuffer.allocateDirect(64);
            assertEquals(0, a.ep.recv(claimed, null, Fi.FI_ADDR_UNSPEC, "first"), "takes the claimed one");
            assertEquals(0, a.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "second"));
            CqEntry[] one = {new CqEntry()};
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (a.rxCq.read(one, 1) != 1 || !"second".equals(one[0].context())) {
                assertTrue(System.nanoTime() - deadline < 0, "the segmented message was not received");
            }
            assertEquals(size, one[0].len(), "its length");
            assertEquals(whole, in, "its bytes, in order");
            p.server.close();
        }
    }

    private static void awaitUnexpected(RxmOverTcpTest.Side a, long n) {
        CqEntry[] none = new CqEntry[0];
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (unexpectedMessages(a) < n) {
            a.txCq.read(none, 0);
            assertTrue(System.nanoTime() - deadline < 0, "the segment was not taken");
        }
    }

    private static long unexpectedMessages(RxmOverTcpTest.Side a) {
        return a.ep.receiveCounters().counters().stream()
                .filter(c -> c.label().endsWith(": unexpected messages queued")).findFirst().orElseThrow().get();
    }

    /** Bytes allocated so far by every live thread (the progress may run on the connection watcher too). */
    private static long allocatedByAllThreads() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return Arrays.stream(mx.getThreadAllocatedBytes(mx.getAllThreadIds())).filter(b -> b > 0).sum();
    }
}
