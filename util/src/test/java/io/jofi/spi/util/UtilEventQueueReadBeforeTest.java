package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqAttr;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.WaitObj;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code UtilEventQueue.readBefore(cq, ...)}: a layered provider's pass reads its MSG EQ, then its MSG
 * CQ; an engine the CQ's read drives is not driven by the EQ read before it (one drive per pass, not
 * two), one only the EQ has is; what it posts is read as by {@code read}. Apart from
 * {@code UtilEventQueueTest}, which is long enough.
 */
class UtilEventQueueReadBeforeTest {

    @Test
    void readBeforeACqDrivesOnlyTheEnginesTheCqReadDoesNot() throws FabricException {
        AtomicInteger shared = new AtomicInteger();
        AtomicInteger eqOnly = new AtomicInteger();
        UtilCounter fid = new UtilCounter(null, "A");
        UtilEventQueue eq = new UtilEventQueue(new EqAttr().waitObj(WaitObj.UNSPEC), null);
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr(), null);
        ProgressEngine both = ProgressEngine.start(Progress.MANUAL, "both", counting(shared));
        ProgressEngine own = ProgressEngine.start(Progress.MANUAL, "eq-only", counting(eqOnly));
        try {
            eq.attachProgress(both);
            cq.attachProgress(both);
            EqEntry e = new EqEntry();
            assertEquals(-Errno.EAGAIN, eq.readBefore(cq, e, 0));
            assertEquals(0, shared.get(), "the CQ's engine is left to the CQ read");
            assertEquals(-Errno.EAGAIN, eq.read(e, 0));
            assertEquals(1, shared.get(), "a plain read drives every engine");
            eq.attachProgress(own);
            assertEquals(1, eq.post(Fi.FI_CONNECTED, fid, null, 0, null, null, 0));
            assertEquals(1, eq.readBefore(cq, e, 0));
            assertEquals(Fi.FI_CONNECTED, e.event());
            assertEquals(1, shared.get());
            assertEquals(1, eqOnly.get(), "an engine only the EQ has is driven");
            eq.detachProgress(own);
            eq.detachProgress(both);
            cq.detachProgress(both);
        } finally {
            cq.close();
            eq.close();
            both.close();
            own.close();
            fid.close();
        }
    }

    private static ProgressEngine.Step counting(AtomicInteger steps) {
        return new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                steps.incrementAndGet();
                return 0;
            }

            @Override
            public void wakeup() {
                // nothing waits in these steps
            }
        };
    }
}
