package io.jofi.provider.shm.ring;

/**
 * Asked by the consumer of an {@link MpscRing} when a claimed record stays unpublished for
 * longer than the ring's stall timeout: is the producer that claimed it still alive? Only a
 * "no" lets the consumer skip the claimed space (a live but slow producer would otherwise
 * write into space already reused). Called on the consumer's thread; must not block long.
 */
@FunctionalInterface
public interface SenderLiveness {

    /** Every producer is assumed alive: a stalled claim is waited for indefinitely. */
    SenderLiveness ALWAYS_ALIVE = sender -> true;

    /**
     * @param sender the sender index written by the claiming producer, any int (it comes from
     *               shared memory: validate it), or {@link RingDescriptor#SENDER_UNKNOWN} when the
     *               producer died before writing it; answer {@code false} for UNKNOWN only when
     *               some producer of this ring is known to have died
     * @return false when that producer is certainly dead
     */
    boolean isAlive(int sender);
}
