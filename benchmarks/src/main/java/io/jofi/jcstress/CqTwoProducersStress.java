package io.jofi.jcstress;

import io.jofi.CqEntry;
import io.jofi.spi.util.UtilCompletionQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Concurrent producers on a CQ of exactly two entries: both claims succeed (credits), both
 * completions arrive, in either order, and a third unsolicited completion overruns (R6).
 */
@JCStressTest
@Outcome(id = {"2, 3, 1", "2, 3, 0"}, expect = Expect.ACCEPTABLE,
        desc = "both completions read (ids sum to 3); the third write overran (1) or raced the read (0: it fit)")
@Outcome(expect = Expect.FORBIDDEN, desc = "a completion lost or duplicated")
@State
public class CqTwoProducersStress {
    private final UtilCompletionQueue cq = CqStress.open(2);
    private final CqEntry[] out = CqStress.entries(2);
    private volatile int thirdFit;

    @Actor
    public void producer1() {
        cq.reserve();
        cq.complete(1, 0L, 0L, null, 0, 0L, 0L, -1L);
    }

    @Actor
    public void producer2() {
        cq.reserve();
        cq.complete(2, 0L, 0L, null, 0, 0L, 0L, -1L);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        int n = cq.read(out, 2);
        r.r1 = n;
        r.r2 = n == 2 ? CqStress.id(out[0]) + CqStress.id(out[1]) : -1;
        // Room is back after the read: an unsolicited completion must fit now.
        r.r3 = cq.completeUnsolicited(3, 0L, 0L, null, 0, 0L, 0L, -1L) && !cq.isOverrun() ? 1 : 0;
    }
}
