package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.stats.CounterGroup;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link CompletionBatch}: a provider thread's staged completions stay invisible until the
 * flush, then appear in order with every field, counted once each ("completions written"
 * moves by the batch, one claim), with their counter increments after them; a full batch or
 * another CQ flushes by itself; a closed CQ drops them; {@link ReceiveCompletion#stageIn}
 * keeps the CQ's order around an error entry; nothing is allocated.
 */
class CompletionBatchTest {

    private static UtilCompletionQueue cq(int size) throws Exception {
        return new UtilCompletionQueue(new CqAttr().size(size).format(CqFormat.TAGGED), null);
    }

    private static long written(UtilCompletionQueue cq) {
        CounterGroup g = cq.counters();
        return UtilCountersTest.value(g, "completions written");
    }

    @Test
    void stagedCompletionsAppearAtTheFlushInOrderWithTheirFields() throws Exception {
        UtilCompletionQueue cq = cq(16);
        try {
            CompletionBatch batch = new CompletionBatch(8);
            ByteBuffer buf = ByteBuffer.allocate(4);
            for (int i = 0; i < 5; i++) {
                assertEquals(0, cq.reserve());
                batch.complete(cq, "c" + i, Fi.FI_RECV | Fi.FI_TAGGED, 10 + i, buf, i, 100 + i, 1000 + i, Fi.FI_ADDR_NOTAVAIL);
            }
            CqEntry[] entries = new CqEntry[8];
            for (int i = 0; i < entries.length; i++) {
                entries[i] = new CqEntry();
            }
            assertEquals(-Errno.EAGAIN, cq.read(entries, 8), "nothing visible before the flush");
            assertEquals(0, written(cq), "nothing counted before the flush");
            batch.flush();
            assertTrue(batch.isEmpty());
            assertEquals(5, written(cq), "each completion counted once");
            assertEquals(5, cq.read(entries, 8));
            for (int i = 0; i < 5; i++) {
                assertEquals("c" + i, entries[i].context(), "in the order staged");
                assertEquals(10 + i, entries[i].len());
                assertEquals(100 + i, entries[i].data());
                assertEquals(1000 + i, entries[i].tag());
                assertEquals(Fi.FI_RECV | Fi.FI_TAGGED, entries[i].flags());
            }
            batch.flush(); // empty: nothing happens
            assertEquals(5, written(cq));
        } finally {
            cq.close();
        }
    }

    @Test
    void aFullBatchOrAnotherQueueFlushesByItself() throws Exception {
        UtilCompletionQueue a = cq(16);
        UtilCompletionQueue b = cq(16);
        try {
            CompletionBatch batch = new CompletionBatch(2);
            CqEntry[] e = {new CqEntry(), new CqEntry(), new CqEntry()};
            for (int i = 0; i < 3; i++) {
                assertEquals(0, a.reserve());
                batch.complete(a, i, Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            }
            assertEquals(2, a.read(e, 3), "the third found the batch full: the first two were published");
            assertEquals(0, b.reserve());
            batch.complete(b, "b", Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            assertEquals(1, a.read(e, 3), "a completion for another CQ published a's");
            assertEquals(2, e[0].context());
            assertEquals(-Errno.EAGAIN, b.read(e, 3), "b's still staged");
            batch.flush();
            assertEquals(1, b.read(e, 3));
            assertEquals("b", e[0].context());
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void countsFollowTheirCompletions() throws Exception {
        UtilCompletionQueue cq = cq(16);
        UtilCounter counter = new UtilCounter(new io.jofi.CounterAttr(), null);
        try {
            CompletionBatch batch = new CompletionBatch(8);
            for (int i = 0; i < 3; i++) {
                assertEquals(0, cq.reserve());
                batch.complete(cq, i, Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
                batch.count(counter);
            }
            assertEquals(0, counter.read(), "a counter never runs ahead of the entries it counts");
            batch.flush();
            assertEquals(3, counter.read());
            CqEntry[] e = {new CqEntry(), new CqEntry(), new CqEntry()};
            assertEquals(3, cq.read(e, 3));
        } finally {
            counter.close();
            cq.close();
        }
    }

    @Test
    void aClosedQueueDropsTheBatch() throws Exception {
        UtilCompletionQueue cq = cq(16);
        CompletionBatch batch = new CompletionBatch(8);
        assertEquals(0, cq.reserve());
        batch.complete(cq, "x", Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        cq.close();
        batch.flush(); // R9: dropped, no exception
        assertTrue(batch.isEmpty());
    }

    /** A success staged before a truncated message stays ahead of its error entry (R2 order). */
    @Test
    void receiveCompletionKeepsTheOrderAroundAnErrorEntry() throws Exception {
        ReceiveFixture f = new ReceiveFixture();
        try {
            CompletionBatch batch = new CompletionBatch(8);
            f.rq.completion().stageIn(batch);
            f.post(f.recv(ByteBuffer.allocate(8), "whole"));
            f.post(f.recv(ByteBuffer.allocate(2), "cut"));
            f.arrive(new byte[] {1, 2, 3, 4});
            assertTrue(!batch.isEmpty(), "the success is staged");
            f.arrive(new byte[] {5, 6, 7, 8});
            assertTrue(batch.isEmpty(), "the error entry published the staged success first");
            CqEntry[] one = {new CqEntry()};
            assertEquals(1, f.cq.read(one, 1));
            assertEquals("whole", one[0].context());
            assertEquals(-Errno.EAVAIL, f.cq.read(one, 1));
            CqErrEntry err = new CqErrEntry();
            assertEquals(1, f.cq.readErr(err, 0));
            assertEquals("cut", err.context());
            assertEquals(Errno.ETRUNC, err.err());
            f.rq.completion().stageIn(null);
        } finally {
            f.close();
        }
    }

    @Test
    void stageInNullPublishes() throws Exception {
        ReceiveFixture f = new ReceiveFixture();
        try {
            CompletionBatch batch = new CompletionBatch(8);
            f.rq.completion().stageIn(batch);
            f.post(f.recv(ByteBuffer.allocate(8), "m"));
            f.arrive(new byte[] {1, 2});
            CqEntry[] one = {new CqEntry()};
            assertEquals(-Errno.EAGAIN, f.cq.read(one, 1), "staged");
            assertEquals(0, f.counter.read(), "its count staged with it");
            f.rq.completion().stageIn(null);
            assertEquals(1, f.cq.read(one, 1));
            assertSame("m", one[0].context());
            assertEquals(1, f.counter.read());
        } finally {
            f.close();
        }
    }

    @Test
    void batchedWritesAllocateNothing() throws Exception {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);
        UtilCompletionQueue cq = cq(64);
        try {
            CompletionBatch batch = new CompletionBatch(32);
            CqEntry[] entries = new CqEntry[32];
            for (int i = 0; i < entries.length; i++) {
                entries[i] = new CqEntry();
            }
            Object ctx = new Object();
            for (int round = 0; round < 3; round++) {
                long tid = Thread.currentThread().getId();
                long before = bean.getThreadAllocatedBytes(tid);
                for (int n = 0; n < 20_000; n++) {
                    for (int i = 0; i < 32; i++) {
                        cq.reserve();
                        batch.complete(cq, ctx, Fi.FI_RECV, i, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
                    }
                    batch.flush();
                    assertEquals(32, cq.read(entries, 32));
                }
                long allocated = bean.getThreadAllocatedBytes(tid) - before;
                if (round == 2) { // rounds 0 and 1 warm the JIT up
                    assertTrue(allocated <= 1024, allocated + " bytes allocated by 640000 batched completions");
                }
            }
        } finally {
            cq.close();
        }
    }
}
