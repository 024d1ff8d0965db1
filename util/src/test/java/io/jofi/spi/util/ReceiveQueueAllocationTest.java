package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Fi;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The receive side allocates nothing per message once its pools have grown (docs/API.md
 * conventions, 0 B/op): posting, a message arriving into a posted receive, an unexpected
 * message queued and taken, tagged matching through the tag index, multi-receive parts,
 * peek, cancel, truncation, and the completions. Measured with the JVM's per-thread
 * allocation counter after warm-up; it counts bytes, it does not time.
 */
class ReceiveQueueAllocationTest {
    private static final int ROUNDS = 20_000;
    /** The allocation counter itself may cost a few bytes; anything per message would be megabytes. */
    private static final long TOLERANCE_BYTES = 1024;

    @Test
    void theDataPathAllocatesNothingPerMessage() throws Exception {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);

        try (ReceiveFixture f = new ReceiveFixture(256, 64, 64, 1 << 20)) {
            f.rq.completion().reportSource(true, false);
            State s = new State();
            for (int i = 0; i < 5; i++) {
                run(f, s); // warm-up: the pools grow, the JIT compiles
            }
            int created = f.rq.created();
            long tid = Thread.currentThread().getId();
            long before = bean.getThreadAllocatedBytes(tid);
            run(f, s);
            long allocated = bean.getThreadAllocatedBytes(tid) - before;
            assertTrue(allocated <= TOLERANCE_BYTES, allocated + " bytes allocated by " + ROUNDS + " rounds ("
                    + (double) allocated / ROUNDS + " B/round)");
            assertEquals(created, f.rq.created(), "the pools stopped growing");
        }
    }

    /** Preallocated: buffers, payload holders, entries. */
    private static final class State {
        final ByteBuffer small = ByteBuffer.allocate(64);
        final ByteBuffer tiny = ByteBuffer.allocate(4);
        final ByteBuffer multi = ByteBuffer.allocate(64);
        final ByteBuffer payload = ByteBuffer.allocate(16);
        final ArrivingMessage header = new ArrivingMessage();
        final CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
        final long[] from = new long[4];
        final CqErrEntry err = new CqErrEntry();
        final Object ctx = new Object();
    }

    private static void run(ReceiveFixture f, State s) {
        ReceiveQueue rq = f.rq;
        UtilCompletionQueue cq = f.cq;
        for (int i = 0; i < ROUNDS; i++) {
            long tag = i & 1023;
            // 1. posted first, message arrives into it (read straight in)
            cq.reserve();
            rq.post(rq.newReceive().tagged(s.ctx, Fi.FI_ADDR_UNSPEC, tag, 0, Fi.FI_COMPLETION).buffer(s.small));
            s.header.set(true, tag, true, i, 3, null, 16);
            PostedReceive r = rq.match(s.header);
            r.scatterViews(16);
            rq.complete(r, s.header, r.place(0, s.payload, 0, 16));
            // 2. unexpected first, then taken by an exact-tag receive
            UnexpectedMessage u = rq.newUnexpected(16);
            u.set(true, tag, false, 0, 3, null, 16);
            u.payload(f.payload, s.payload, 0);
            rq.arrived(u);
            cq.reserve();
            rq.post(rq.newReceive().tagged(s.ctx, Fi.FI_ADDR_UNSPEC, tag, 0, Fi.FI_COMPLETION).buffer(s.small));
            // 3. truncated
            cq.reserve();
            rq.post(rq.newReceive().untagged(s.ctx, Fi.FI_ADDR_UNSPEC, Fi.FI_COMPLETION).buffer(s.tiny));
            s.header.set(false, 0, false, 0, 3, null, 16);
            r = rq.match(s.header);
            rq.complete(r, s.header, r.place(0, s.payload, 0, 16));
            // 4. a multi-receive buffer taking four messages
            cq.reserve();
            rq.post(rq.newReceive().untagged(s.ctx, Fi.FI_ADDR_UNSPEC, Fi.FI_COMPLETION).buffer(s.multi)
                    .multiReceive(16));
            for (int k = 0; k < 4; k++) {
                r = rq.match(s.header);
                rq.complete(r, s.header, r.place(0, s.payload, 0, 16));
            }
            // 5. peek (nothing there), and a cancel
            cq.reserve();
            rq.peek(rq.newReceive().tagged(s.ctx, Fi.FI_ADDR_UNSPEC, tag, 0, Fi.FI_COMPLETION), Fi.FI_PEEK);
            cq.reserve();
            rq.post(rq.newReceive().untagged(s, Fi.FI_ADDR_UNSPEC, Fi.FI_COMPLETION).buffer(s.small));
            rq.cancel(s);
            drain(cq, s);
        }
    }

    private static void drain(UtilCompletionQueue cq, State s) {
        while (true) {
            int n = cq.readFrom(s.entries, s.entries.length, s.from);
            if (n > 0) {
                continue;
            }
            if (cq.readErr(s.err, 0) != 1) {
                return;
            }
        }
    }
}
