package io.jofi.jcstress.shm;

import io.jofi.provider.shm.ring.MpscRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The doorbell handshake (Dekker on the sleeping flag and the tail: the producer's claim CAS,
 * then its flag read; the consumer's flag store, fence, then its tail read): a consumer that
 * decides to sleep (r1 = 1) is always seen sleeping by a producer that published meanwhile
 * (r2 = 1) — otherwise the wake-up is lost. The publish has no fence of its own.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "consumer sleeps, producer rings")
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "consumer saw the record, stays awake")
@Outcome(id = "0, 1", expect = Expect.ACCEPTABLE_INTERESTING, desc = "producer saw the flag just before the consumer withdrew it: a spurious ring")
@Outcome(id = "1, 0", expect = Expect.FORBIDDEN, desc = "lost wake-up")
@State
public class ShmSleepStress {
    private final MpscRing ring = ShmRings.ring();

    @Actor
    public void consumer(II_Result r) {
        r.r1 = ring.prepareToSleep() ? 1 : 0;
    }

    @Actor
    public void producer(II_Result r) {
        r.r2 = ShmRings.send(ring, 0, 7);
    }
}
