package io.jofi.jcstress;

import io.jofi.CqEntry;
import io.jofi.spi.util.UtilCompletionQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Concurrent readers: two queued completions, two readers taking one each. Each completion
 * is taken exactly once (the batch CAS on the head), never both by one reader, never lost.
 */
@JCStressTest
@Outcome(id = {"1, 2", "2, 1"}, expect = Expect.ACCEPTABLE, desc = "each reader took a different completion")
@Outcome(expect = Expect.FORBIDDEN, desc = "a completion seen twice or lost")
@State
public class CqTwoReadersStress {
    private final UtilCompletionQueue cq = CqStress.open(4);
    private final CqEntry[] a = CqStress.entries(1);
    private final CqEntry[] b = CqStress.entries(1);

    public CqTwoReadersStress() {
        cq.reserve();
        cq.complete(1, 0L, 1L, null, 0, 0L, 0L, -1L);
        cq.reserve();
        cq.complete(2, 0L, 2L, null, 0, 0L, 0L, -1L);
    }

    @Actor
    public void reader1(II_Result r) {
        r.r1 = cq.read(a, 1) == 1 ? CqStress.id(a[0]) : 0;
    }

    @Actor
    public void reader2(II_Result r) {
        r.r2 = cq.read(b, 1) == 1 ? CqStress.id(b[0]) : 0;
    }
}
