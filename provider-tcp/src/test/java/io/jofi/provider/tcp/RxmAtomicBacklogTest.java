package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer's atomic requests that wait for our answer transmits: a request that finds every
 * transmit busy (our answers to that peer do not complete because it reads none of them) is
 * copied and answered later. A plain tcp MSG endpoint plays the rxm peer ({@link FakeRxmPeer}):
 * it sends reads of 2000 words each (a 16 000-byte answer for a 160-byte request) and never
 * posts its receive buffers again, so its MSG connection stops reading and ours stops sending.
 * <ul>
 *   <li>the copies are bounded: beyond the limit (the settings' {@code maxUnexpectedBytes}, per
 *       connection) the peer's connection is ended with {@code ECONNABORTED} and what waited on
 *       it fails; before, the queue grew with every request for as long as the peer sent;</li>
 *   <li>a connection that ends while answers wait for MSG room leaves none of them behind: the
 *       connection's transmits were given back while the answer queue still linked them, and
 *       the next pass took a given-back transmit's connection ({@code null}) and threw.</li>
 * </ul>
 * Either way the endpoint goes on serving its other peers.
 */
@Timeout(60)
class RxmAtomicBacklogTest {
    private static final long LIMIT = 256 << 10;
    private static final int WORDS = 2000;

    /** {@code transmits} in the RDM transmit queue, {@code limit} bytes of requests waiting per connection. */
    private static RxmSettings settings(int transmits, long limit) {
        RxmSettings d = RxmSettings.defaults();
        return new RxmSettings(d.eagerLimit(), d.receiveBuffers(), transmits, d.receiveQueueSize(), limit,
                d.maxUnexpectedMessages(), d.msgCqSize(), false, d.sarLimit(), false);
    }

    @Test
    void aPeerThatReadsNoAnswersLosesItsConnectionNotOurHeap() throws Exception {
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, settings(256, LIMIT));
             TcpTestBed peer = new TcpTestBed(Progress.AUTO);
             MemoryRegion words = a.domain.register(ByteBuffer.allocateDirect(8 * WORDS).order(ByteOrder.nativeOrder()),
                     Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0x51, 0, null)) {
            FakeRxmPeer p = connect(a, peer);
            // a rendezvous send the peer never reads: it waits on the connection until it ends
            assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(1 << 20, 2), null, fakeAddr, "waits"));

            int sent = flood(a, p, peer, words, () -> lost(a) > 0, 20_000);
            assertTrue(lost(a) > 0, () -> "the connection was not ended after " + sent + " requests");
            long highWater = counter(a, "atomic request bytes waiting on a connection (high-water)");
            assertTrue(highWater > LIMIT && highWater <= LIMIT + 160, "bytes waiting at most: " + highWater);

            CqErrEntry err = RxmOverTcpTest.awaitError(a.txCq, a, a);
            assertEquals("waits", err.context());
            assertEquals(Errno.ECONNABORTED, err.err(), Errno.strerror(err.err()));
            stillServes(a);
            p.server.close(); // (its MSG connection, which stopped reading, sees our close after the answers)
        }
    }

    @Test
    void aConnectionEndingWhileAnswersWaitLeavesNoneBehind() throws Exception {
        // more transmits than the MSG endpoint's queue (1024): answers wait for MSG room too
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, settings(2048, 64L << 20));
             TcpTestBed peer = new TcpTestBed(Progress.AUTO);
             MemoryRegion words = a.domain.register(ByteBuffer.allocateDirect(8 * WORDS).order(ByteOrder.nativeOrder()),
                     Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0x52, 0, null)) {
            FakeRxmPeer p = connect(a, peer);
            flood(a, p, peer, words, () -> false, 6_000); // some 4 000 fill the peer's buffers, ours and the transmits
            assertTrue(counter(a, "atomic requests waited for a transmit") > 0, "no request waited for a transmit");
            p.server.close(); // the peer goes: its connection ends with answers and requests waiting
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (lost(a) == 0) {
                a.txCq.read(new CqEntry[0], 0);
                assertTrue(System.nanoTime() - deadline < 0, "the peer's end was not seen");
            }
            stillServes(a);
        }
    }

    private static long fakeAddr;

    /** a connects to the fake peer with a message the peer reads. */
    private static FakeRxmPeer connect(RxmOverTcpTest.Side a, TcpTestBed peer) throws Exception {
        fakeAddr = a.insert(peer.pep.getName());
        assertEquals(0, a.ep.send(RxmOverTcpTest.pattern(8, 1), null, fakeAddr, "hello"));
        FakeRxmPeer p = FakeRxmPeer.accept(a, peer, RxmWireDescriptor.FLOW_CTRL_OFF);
        assertEquals(RxmWireDescriptor.TYPE_EAGER, p.next().type, "a's hello");
        assertEquals("hello", RxmOverTcpTest.await(a.txCq, a, a).context());
        return p;
    }

    /**
     * The peer sends atomic reads of {@link #WORDS} words and reads nothing more (its send
     * completions only) until {@code done} or {@code most} were sent; returns how many.
     */
    private static int flood(RxmOverTcpTest.Side a, FakeRxmPeer p, TcpTestBed peer, MemoryRegion words,
                             java.util.function.BooleanSupplier done, int most) throws Exception {
        CqEntry[] some = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
        CqEntry[] none = new CqEntry[0];
        int sent = 0;
        while (sent < most && !done.getAsBoolean()) {
            p.sendAtomicRead(words.address(), words.key(), WORDS);
            sent++;
            while (peer.serverCq.read(some, some.length) > 0) {
                // the peer's send completions (and answers, which it does not post buffers for again)
            }
            a.txCq.read(none, 0);
        }
        return sent;
    }

    /** a still moves messages with another peer. */
    private static void stillServes(RxmOverTcpTest.Side a) throws Exception {
        try (RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(Progress.MANUAL)) {
            RxmOverTcpTest.connected(a, b);
        }
    }

    private static long lost(RxmOverTcpTest.Side a) {
        return counter(a, "connections lost");
    }

    private static long counter(RxmOverTcpTest.Side a, String label) {
        return a.ep.counters().counters().stream().filter(c -> c.label().endsWith(": " + label)).findFirst()
                .orElseThrow(() -> new AssertionError("no counter " + label)).get();
    }
}
