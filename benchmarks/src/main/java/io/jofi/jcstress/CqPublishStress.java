package io.jofi.jcstress;

import io.jofi.CqEntry;
import io.jofi.spi.util.UtilCompletionQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * Publication: a reader racing one producer sees either nothing or the whole completion,
 * never a published slot with fields not yet written (the release store of the slot
 * sequence must order the plain field stores before it).
 */
@JCStressTest
@Outcome(id = "-11, 0", expect = Expect.ACCEPTABLE, desc = "read before the publish: -EAGAIN")
@Outcome(id = "1, 42", expect = Expect.ACCEPTABLE, desc = "the whole completion")
@Outcome(expect = Expect.FORBIDDEN, desc = "torn or lost completion")
@State
public class CqPublishStress {
    private final UtilCompletionQueue cq = CqStress.open(4);
    private final CqEntry[] out = CqStress.entries(1);

    @Actor
    public void producer() {
        cq.reserve();
        cq.complete(1, 0L, 42L, null, 0, 7L, 0L, -1L);
    }

    @Actor
    public void reader(JJ_Result r) {
        int rc = cq.read(out, 1);
        r.r1 = rc;
        r.r2 = rc == 1 ? out[0].len() : 0;
    }
}
