package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.WaitObj;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The data path allocates nothing (docs/API.md conventions): writes, batched reads, readFrom and
 * readErr, measured with the JVM's per-thread allocation counter after warm-up. Not a timing
 * test: it counts bytes.
 */
class UtilCompletionQueueAllocationTest {

    private static final int OPS = 100_000;
    /** The allocation counter itself may cost a few bytes; anything per operation would be megabytes. */
    private static final long TOLERANCE_BYTES = 1024;

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"NONE", "UNSPEC", "FD"})
    void writesAndReadsAllocateNothing(WaitObj waitObj) throws Exception {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);

        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(256).format(CqFormat.TAGGED)
                .waitObj(waitObj), null);
        try {
            State s = new State();
            for (int i = 0; i < 5; i++) {
                run(cq, s); // warm-up: let the JIT compile the paths
            }
            long tid = Thread.currentThread().getId();
            long before = bean.getThreadAllocatedBytes(tid);
            run(cq, s);
            long after = bean.getThreadAllocatedBytes(tid);
            long allocated = after - before;
            assertTrue(allocated <= TOLERANCE_BYTES, allocated + " bytes allocated by " + OPS
                    + " write+read operations (" + (double) allocated / OPS + " B/op)");
        } finally {
            cq.close();
        }
    }

    /** Preallocated state: contexts, entries, buffers. */
    private static final class State {
        final Object[] contexts = new Object[64];
        final CqEntry[] entries = new CqEntry[64];
        final long[] src = new long[64];
        final CqErrEntry err = new CqErrEntry();
        final ByteBuffer buf = ByteBuffer.allocateDirect(64);
        final byte[] errData = new byte[8];
        long checksum;

        State() {
            for (int i = 0; i < 64; i++) {
                contexts[i] = new Object();
                entries[i] = new CqEntry();
            }
        }
    }

    /** OPS completions: mixed batch sizes, readFrom, deferred batches, an error now and then. */
    private static void run(UtilCompletionQueue cq, State s) {
        int done = 0;
        int k = 0;
        while (done < OPS) {
            int batch = 1 + (k++ % 64);
            for (int i = 0; i < batch; i++) {
                if (cq.reserve() != 0) {
                    throw new AssertionError("no room");
                }
                if (i == 7) {
                    cq.completeError(s.contexts[i], Fi.FI_RECV, 0, s.buf, 0, 0, 0, 1, Errno.ETRUNC, 0, s.errData,
                            s.errData.length, Fi.FI_ADDR_NOTAVAIL);
                } else if ((k & 1) == 0) {
                    cq.complete(s.contexts[i], Fi.FI_RECV, i, s.buf, i, i, i, i);
                } else {
                    cq.completeDeferred(s.contexts[i], Fi.FI_RECV, i, s.buf, i, i, i, i);
                }
            }
            cq.wakeReaders();
            int left = batch;
            while (left > 0) {
                int n = (k & 2) == 0 ? cq.read(s.entries, 64) : cq.readFrom(s.entries, 64, s.src);
                if (n > 0) {
                    left -= n;
                    s.checksum += s.entries[n - 1].len();
                } else {
                    assertEquals(-Errno.EAVAIL, n);
                    assertEquals(1, cq.readErr(s.err, 0));
                    left--;
                }
            }
            done += batch;
        }
    }
}
