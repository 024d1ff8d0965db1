package io.jofi.jcstress.shm;

import io.jofi.provider.shm.ring.MpscRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * Publication: a consumer racing one producer sees no record or the whole record (length
 * stored last with release, read with acquire), never a torn payload.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "not yet published")
@Outcome(id = "1, 42", expect = Expect.ACCEPTABLE, desc = "the whole record")
@Outcome(expect = Expect.FORBIDDEN, desc = "torn record or more than one")
@State
public class ShmPublishStress {
    private final MpscRing ring = ShmRings.ring();

    @Actor
    public void producer() {
        ShmRings.send(ring, 0, 42);
    }

    @Actor
    public void consumer(JJ_Result r) {
        ShmRings.Summer summer = new ShmRings.Summer();
        r.r1 = ring.read(summer, 10);
        r.r2 = summer.sum;
    }
}
