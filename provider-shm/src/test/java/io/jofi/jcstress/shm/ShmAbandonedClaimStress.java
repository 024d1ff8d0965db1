package io.jofi.jcstress.shm;

import io.jofi.provider.shm.ring.MpscRing;
import io.jofi.provider.shm.ring.RegionDescriptor;
import io.jofi.provider.shm.ring.RingDescriptor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * An abandoned claim: one producer CASes the tail and "dies" at once (it stores nothing, its
 * length word stays 0), then consumes; another producer claims and publishes meanwhile, its
 * header possibly half written while the consumer looks for where the dead claim ends. With a
 * stall timeout of 0 and every unnamed claimant dead, the consumer skips the dead claim when a
 * record is behind it and reads the live record exactly once and intact; it never takes the
 * live producer's half-written header for a record start (that would fail the ring or tear the
 * record). Two actors: jcstress skips tests with more actors than CPUs.
 */
@JCStressTest
@Outcome(id = "1, 1042, 0", expect = Expect.ACCEPTABLE, desc = "the live record once, intact; the ring sound")
@Outcome(expect = Expect.FORBIDDEN, desc = "the live record lost, duplicated or torn, or the ring failed")
@State
public class ShmAbandonedClaimStress {
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** The dead claim: a record of 64 payload bytes, as the live one. */
    private static final int DEAD_CLAIM = RingDescriptor.alignedLength(RingDescriptor.HEADER_LENGTH + 64);
    private final ByteBuffer memory;
    private final MpscRing ring;
    private final ShmRings.Summer summer = new ShmRings.Summer();

    public ShmAbandonedClaimStress() {
        int ringOffset = RegionDescriptor.headerLength(0);
        memory = ByteBuffer.allocateDirect(ringOffset + ShmRings.CAPACITY);
        ring = new MpscRing(memory, ringOffset, ShmRings.CAPACITY);
        ring.stallTimeoutNanos(0);
        ring.senderLiveness(sender -> sender != RingDescriptor.SENDER_UNKNOWN);
    }

    @Actor
    public void dyingProducerThenConsumer() {
        long tail;
        do {
            tail = (long) LONG.getVolatile(memory, RegionDescriptor.TAIL_OFFSET);
        } while (!LONG.compareAndSet(memory, RegionDescriptor.TAIL_OFFSET, tail, tail + DEAD_CLAIM));
        for (int i = 0; i < 4; i++) {
            ring.read(summer, 10);
        }
    }

    @Actor
    public void liveProducer() {
        ShmRings.send(ring, 1, 1042);
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        for (int i = 0; i < 10; i++) {
            ring.read(summer, 10);
        }
        r.r1 = summer.count;
        r.r2 = summer.sum;
        r.r3 = ring.isFailed() ? 1 : 0;
    }
}
