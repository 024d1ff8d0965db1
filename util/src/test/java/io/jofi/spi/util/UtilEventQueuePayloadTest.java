package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.FabricException;
import io.jofi.Fi;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** Payload ownership of the util EQ: valid until the next read; no allocation while sizes repeat. */
class UtilEventQueuePayloadTest {

    @Test
    void aPayloadHandedOutStaysIntactUntilTheNextReadWhateverIsPostedMeanwhile() throws FabricException {
        UtilEventQueue eq = new UtilEventQueue(new EqAttr().size(4).flags(Fi.FI_WRITE), null);
        try {
            EqEntry w = new EqEntry().event(1);
            EqEntry r = new EqEntry();
            assertEquals(1, eq.write(w.payload(new byte[] {1, 2, 3}), 0));
            assertEquals(1, eq.read(r, 0));
            byte[] first = r.payload();
            // Fill every slot, including the one the first event came from, with other bytes.
            for (int i = 0; i < 4; i++) {
                assertEquals(1, eq.write(w.payload(new byte[] {9, 9, 9}), 0));
            }
            assertArrayEquals(new byte[] {1, 2, 3}, first, "overwritten before the next read");
            assertEquals(1, eq.read(r, 0));
            assertArrayEquals(new byte[] {9, 9, 9}, r.payload());
            assertEquals(3, r.payloadLength());
        } finally {
            eq.close();
        }
    }

    @Test
    void writesAndReadsOfSameSizedPayloadsAllocateNothing() throws FabricException {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(bean.isThreadAllocatedMemorySupported(), "JVM without per-thread allocation counters");
        bean.setThreadAllocatedMemoryEnabled(true);
        UtilEventQueue eq = new UtilEventQueue(new EqAttr().size(64).flags(Fi.FI_WRITE), null);
        try {
            EqEntry w = new EqEntry().event(Fi.FI_NOTIFY).data(7).payload(new byte[16]);
            EqEntry r = new EqEntry();
            for (int round = 0; round < 5; round++) {
                cycle(eq, w, r); // warm-up: every slot gets its store, the JIT compiles the paths
            }
            long tid = Thread.currentThread().getId();
            long before = bean.getThreadAllocatedBytes(tid);
            cycle(eq, w, r);
            long allocated = bean.getThreadAllocatedBytes(tid) - before;
            assertTrue(allocated <= 1024, allocated + " bytes allocated by 100000 write+read pairs");
        } finally {
            eq.close();
        }
    }

    private static void cycle(UtilEventQueue eq, EqEntry w, EqEntry r) {
        for (int i = 0; i < 100_000; i++) {
            if (eq.write(w, 0) != 1 || eq.read(r, 0) != 1 || r.payloadLength() != 16) {
                throw new AssertionError("write/read failed at " + i);
            }
        }
    }
}
