package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RDM endpoints allocate nothing per operation in steady state either: the fi_addr → peer
 * lookup is a cached array slot, the FI_SOURCE fi_addr is cached per AV version, and the
 * per-peer connection is the MSG data path (TcpAllocationTest). Round trips with manual
 * progress on one thread, measured with {@code ThreadMXBean.getThreadAllocatedBytes}.
 */
@Timeout(60)
class TcpRdmAllocationTest {
    private static final int WARMUP = 3000;
    private static final int ROUNDS = 3000;
    /** Posts per round: recv, send, recv, inject, recv, sendMsg, trecv, tsend. */
    private static final int OPS_PER_ROUND = 8;
    private final CqEntry[] entries = {new CqEntry()};
    private final long[] src = {0};

    @ParameterizedTest
    @ValueSource(ints = {8, 4096})
    void rdmRoundTripsAllocateNothing(int size) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);
        try (RdmTestBed bed = new RdmTestBed(Progress.MANUAL, Fi.FI_MSG | Fi.FI_TAGGED)) {
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            long bInA = a.insert(b);
            long aInB = b.insert(a);
            ByteBuffer tx = ByteBuffer.allocateDirect(size);
            ByteBuffer rx = ByteBuffer.allocateDirect(size);
            ByteBuffer small = ByteBuffer.allocateDirect(8);
            Msg dc = new Msg().buffer(tx, null).addr(bInA).context("dc");
            Object ctx = "ctx";
            run(a, b, bInA, aInB, tx, rx, small, dc, ctx, WARMUP);
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            run(a, b, bInA, aInB, tx, rx, small, dc, ctx, ROUNDS);
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            // A few KiB may come from the JDK's lazily grown internals (selector, JIT-time
            // paths) now and then; an object per operation would be at least 16 B for each of
            // the OPS_PER_ROUND * ROUNDS operations, so less than 1 B per operation means none.
            long ops = (long) OPS_PER_ROUND * ROUNDS;
            assertTrue(allocated < ops, allocated + " bytes allocated over " + ROUNDS
                    + " RDM round trips (" + ops + " operations: send, inject, delivery-complete sendMsg, tagged,"
                    + " recv, trecv, readFrom)");
        }
    }

    private void run(RdmTestBed.Node a, RdmTestBed.Node b, long bInA, long aInB, ByteBuffer tx, ByteBuffer rx,
                     ByteBuffer small, Msg dc, Object ctx, int n) {
        for (int i = 0; i < n; i++) {
            check(b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
            check(a.ep.send(tx, null, bInA, ctx));
            awaitFrom(b.rxCq, aInB);
            await(a.txCq);
            check(a.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
            check(b.ep.inject(small, aInB));
            awaitFrom(a.rxCq, bInA);
            check(b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
            check(a.ep.sendMsg(dc, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            awaitFrom(b.rxCq, aInB);
            await(a.txCq);
            check(a.ep.trecv(rx, null, Fi.FI_ADDR_UNSPEC, 7, 0, ctx));
            check(b.ep.tsend(tx, null, aInB, 7, ctx));
            awaitFrom(a.rxCq, bInA);
            await(b.txCq);
        }
    }

    private static void check(int rc) {
        if (rc != 0) {
            fail("post returned " + rc);
        }
    }

    private void awaitFrom(CompletionQueue cq, long from) {
        long spins = 0;
        while (true) {
            int rc = cq.readFrom(entries, 1, src);
            if (rc == 1) {
                if (src[0] != from) {
                    assertEquals(from, src[0], "readFrom");
                }
                return;
            }
            if (rc != -11 || ++spins > 50_000_000L) {
                fail("cq readFrom returned " + rc);
            }
        }
    }

    private void await(CompletionQueue cq) {
        long spins = 0;
        while (true) {
            int rc = cq.read(entries, 1);
            if (rc == 1) {
                return;
            }
            if (rc != -11 || ++spins > 50_000_000L) {
                fail("cq read returned " + rc);
            }
        }
    }
}
