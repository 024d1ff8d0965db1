package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmEndpoint;
import io.jofi.spi.util.stats.StatsCounter;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The unexpected-message limit (provider-tcp/README.md "Failure model"): once the unexpected-message limit (256) was reached, the message that
 * found no room waited for a receive; when that message was 0 bytes long and the last one
 * sent, a receive posted for it in AUTO progress never got it (nothing more arrived for the
 * selector to report). 257 zero-byte messages, then 257 receives: every one completes.
 */
@Timeout(60)
class TcpUnexpectedLimitTest {
    private static final int LIMIT = TcpSettings.DEFAULT_UNEXPECTED_MESSAGES;

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void theLastZeroByteMessageBeyondTheLimitIsDelivered(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            ByteBuffer empty = ByteBuffer.allocate(0);
            Msg msg = new Msg().buffer(empty, null);
            for (int i = 0; i <= LIMIT; i++) {
                assertEquals(0, bed.client.sendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            }
            // buffered unexpected = delivered (R11): the first 256 are acked, the 257th waits
            for (int i = 0; i < LIMIT; i++) {
                awaitCompletion(bed.clientCq);
            }
            ByteBuffer rx = ByteBuffer.allocate(8);
            for (int i = 0; i <= LIMIT; i++) {
                assertEquals(0, bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, i));
            }
            for (int i = 0; i <= LIMIT; i++) {
                CqEntry c = awaitCompletion(bed.serverCq);
                assertEquals(i, c.context(), "in order");
                assertEquals(0, c.len());
            }
            awaitCompletion(bed.clientCq); // the 257th is acked once buffered or placed
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void rdmTheLastZeroByteMessageBeyondTheLimitIsDelivered(Progress mode) throws Exception {
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            long toB = a.insert(b);
            ByteBuffer empty = ByteBuffer.allocate(0);
            Msg msg = new Msg().buffer(empty, null).addr(toB);
            for (int i = 0; i <= LIMIT; i++) {
                assertEquals(0, a.ep.sendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            }
            for (int i = 0; i < LIMIT; i++) {
                awaitCompletion(a.txCq);
            }
            ByteBuffer rx = ByteBuffer.allocate(8);
            for (int i = 0; i <= LIMIT; i++) {
                assertEquals(0, b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, i));
            }
            for (int i = 0; i <= LIMIT; i++) {
                assertEquals(i, awaitCompletion(b.rxCq).context(), "in order");
            }
            awaitCompletion(a.txCq);
        }
    }

    /**
     * Messages beyond the unexpected limits wait where they are (the rxm layer stops posting its
     * MSG buffers, the connection below stops reading, TCP pushes back) instead of piling up in
     * the receiver's memory; posted receives then take every one, in order. Before, the rxm
     * layer held all 1024 of this flood unexpected: its limits were not applied.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void rdmMessagesBeyondTheUnexpectedLimitWaitInTheNetwork(Progress mode) throws Exception {
        int flood = 4 * LIMIT;
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            long toB = a.insert(b);
            CqEntry[] none = new CqEntry[0];
            ByteBuffer out = ByteBuffer.allocateDirect(64);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            for (int i = 0; i < flood; i++) {
                out.putInt(0, i);
                int rc;
                while ((rc = a.ep.inject(out, toB)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                    a.txCq.read(none, 0);
                    b.rxCq.read(none, 0);
                }
                assertEquals(0, rc, "inject " + i);
            }
            // let every layer below take what it will (b drives its progress in MANUAL mode)
            long settle = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (System.nanoTime() < settle) {
                a.txCq.read(none, 0);
                b.rxCq.read(none, 0);
            }
            long held = counter(b, "unexpected messages high-water mark");
            assertTrue(held <= LIMIT, held + " messages held unexpected: more than the limit " + LIMIT);
            assertTrue(held >= LIMIT / 2, "the flood reached the receiver (" + held + " unexpected)");
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            CqEntry[] e = {new CqEntry()};
            for (int i = 0; i < flood; i++) {
                assertEquals(0, b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, null));
                CqEntry c = awaitCompletion(b.rxCq);
                assertEquals(64, c.len());
                assertEquals(i, in.getInt(0), "message " + i + " in order");
            }
            assertTrue(counter(b, "unexpected messages high-water mark") <= LIMIT);
        }
    }

    private static long counter(RdmTestBed.Node node, String name) {
        for (StatsCounter c : ((RxmEndpoint) node.ep).receiveCounters().counters()) {
            if (c.label().endsWith(": " + name)) {
                return c.get();
            }
        }
        throw new AssertionError("no counter '" + name + "'");
    }
}
