package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.CqAttr;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link UtilEndpoint}'s checks and dispatch allocate nothing (docs/API.md: the data path is
 * 0 B/op): every convenience call, refused and accepted, measured with the JVM's per-thread
 * allocation counter after warm-up. Counts bytes, not time.
 */
class UtilEndpointAllocationTest {
    private static final int ROUNDS = 20_000;
    /** The counter itself may cost a few bytes; anything per call would be megabytes. */
    private static final long TOLERANCE_BYTES = 1024;

    @Test
    void everyCallAllocatesNothing() throws Exception {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);

        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "alloc", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                return 0;
            }

            @Override
            public void wakeup() {
            }
        });
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr(), "cq");
        RecordingEndpoint ep = new RecordingEndpoint(engine, new UtilEndpoint.Limits(UtilEndpointTest.ALL_CAPS, 0, 0,
                UtilEndpointTest.INJECT, UtilEndpointTest.MAX, UtilEndpointTest.IOVS, UtilEndpointTest.RMA_IOVS));
        try {
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.recording = false;
            State s = new State();
            for (int i = 0; i < 5; i++) {
                run(ep, s);
            }
            long tid = Thread.currentThread().getId();
            long before = bean.getThreadAllocatedBytes(tid);
            long calls = ep.funnelCalls;
            run(ep, s);
            long allocated = bean.getThreadAllocatedBytes(tid) - before;
            assertEquals(23L * ROUNDS, ep.funnelCalls - calls, "every valid call reached its funnel");
            assertTrue(allocated <= TOLERANCE_BYTES, allocated + " bytes allocated by " + ROUNDS + " rounds of calls");
            // with statistics on (the default): the counters were in the file and counted every post
            assertTrue(io.jofi.spi.util.stats.StatsFile.process().isLive(), "statistics are on in this test");
            long rounds = 6L * ROUNDS;
            assertEquals(5 * rounds, counter(ep, "sends posted"));
            assertEquals(4 * rounds, counter(ep, "tagged sends posted"));
            assertEquals(2 * rounds, counter(ep, "receives posted"));
            assertEquals(2 * rounds, counter(ep, "tagged receives posted"));
            assertEquals(2 * rounds, counter(ep, "RMA reads posted"));
            assertEquals(4 * rounds, counter(ep, "RMA writes posted"));
            assertEquals(3 * rounds, counter(ep, "atomics posted"));
        } finally {
            ep.close();
            cq.close();
            engine.close();
        }
    }

    /** The value of the endpoint's counter named {@code name}. */
    static long counter(UtilEndpoint ep, String name) {
        return ep.counters().counters().stream().filter(c -> c.label().endsWith(": " + name)).findFirst()
                .orElseThrow(() -> new AssertionError("no counter " + name)).get();
    }

        /** Preallocated buffers and messages. */
    private static final class State {
        final ByteBuffer b = ByteBuffer.allocateDirect(64);
        final ByteBuffer ro = ByteBuffer.allocateDirect(64).asReadOnlyBuffer();
        final ByteBuffer result = ByteBuffer.allocateDirect(8);
        final Msg msg = new Msg().buffer(b, null);
        final TaggedMsg tmsg = new TaggedMsg().buffer(b, null);
        final RmaMsg rmsg = new RmaMsg().buffer(b, null).rma(0, 64, 1);
        long sum;
    }

    private static void run(RecordingEndpoint ep, State s) {
        for (int i = 0; i < ROUNDS; i++) {
            ByteBuffer b = s.b;
            s.sum += ep.send(b, null, 0, s) + ep.sendData(b, null, 1, 0, s) + ep.inject(b, 0) + ep.injectData(b, 1, 0)
                    + ep.sendMsg(s.msg, 0) + ep.tsend(b, null, 0, 1, s) + ep.tsendData(b, null, 1, 0, 1, s)
                    + ep.tinject(b, 0, 1) + ep.tsendMsg(s.tmsg, 0);
            s.sum += ep.recv(b, null, 0, s) + ep.recvMsg(s.msg, 0) + ep.trecv(b, null, 0, 1, 0, s)
                    + ep.trecvMsg(s.tmsg, 0) + ep.trecvMsg(s.tmsg, Fi.FI_PEEK);
            s.sum += ep.read(b, null, 0, 0, 1, s) + ep.readMsg(s.rmsg, 0) + ep.write(b, null, 0, 0, 1, s)
                    + ep.writeData(b, null, 1, 0, 0, 1, s) + ep.injectWrite(b, 0, 0, 1) + ep.writeMsg(s.rmsg, 0);
            s.sum += ep.atomic(1, 0, 0, 1, Fi.FI_SUM, s) + ep.fetchAtomic(1, s.result, null, 0, 0, 1, Fi.FI_SUM, s)
                    + ep.compareAtomic(1, 2, s.result, null, 0, 0, 1, s);
            // refused: nothing allocated on the way to the errno either
            s.sum += ep.recv(s.ro, null, 0, s) + ep.sendMsg(s.msg, 1L << 62) + ep.sendMsg(null, 0);
        }
    }
}
