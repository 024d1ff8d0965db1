package io.jofi.jcstress.shm;

import io.jofi.provider.shm.ring.MpscRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * Claim: two producers race (the second one also consumes right after its own send, racing the
 * first producer; two actors because jcstress skips tests with more actors than CPUs);
 * afterwards every record was read exactly once (both claims got distinct space), none torn,
 * head = tail.
 */
@JCStressTest
@Outcome(id = "2, 3, 1", expect = Expect.ACCEPTABLE, desc = "both records once (1 + 2), ring drained")
@Outcome(expect = Expect.FORBIDDEN, desc = "a record lost, duplicated or torn")
@State
public class ShmTwoProducersStress {
    private final MpscRing ring = ShmRings.ring();
    private final ShmRings.Summer summer = new ShmRings.Summer();

    @Actor
    public void producer1() {
        ShmRings.send(ring, 1, 1);
    }

    @Actor
    public void producer2ThenConsumer() {
        ShmRings.send(ring, 2, 2);
        ring.read(summer, 10);
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        ring.read(summer, 10);
        r.r1 = summer.count;
        r.r2 = summer.sum;
        r.r3 = ring.head() == ring.tail() ? 1 : 0;
    }
}
