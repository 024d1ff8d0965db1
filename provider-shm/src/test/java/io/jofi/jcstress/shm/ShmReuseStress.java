package io.jofi.jcstress.shm;

import io.jofi.provider.shm.ring.MpscRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * Free space: the ring is full; the consumer frees the oldest record while a producer claims.
 * A claim that succeeds writes into space the consumer has finished zeroing (zeroing happens
 * before the head's release store), so the new record is intact; a claim that fails saw no room.
 */
@JCStressTest
@Outcome(id = "1, 1042", expect = Expect.ACCEPTABLE, desc = "claimed the freed space; read intact after the rest")
@Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "claimed before the space was freed: full")
@Outcome(expect = Expect.FORBIDDEN, desc = "the new record was overwritten by zeroing, or space claimed twice")
@State
public class ShmReuseStress {
    private static final int FILL = 51; // 80-byte records: 51 fit in 4096 bytes, the 52nd not
    private final MpscRing ring = ShmRings.ring();
    private int claimed;

    public ShmReuseStress() {
        for (int i = 0; i < FILL; i++) {
            ShmRings.send(ring, 0, 0);
        }
    }

    @Actor
    public void consumer() {
        ring.read(new ShmRings.Summer(), 1);
    }

    @Actor
    public void producer() {
        claimed = ShmRings.send(ring, 1, 1042) >= 0 ? 1 : 0;
    }

    @Arbiter
    public void arbiter(JJ_Result r) {
        ShmRings.Summer rest = new ShmRings.Summer();
        ring.read(rest, 100);
        r.r1 = claimed;
        r.r2 = rest.sum; // the remaining fillers add 0
    }
}
