package io.jofi.spi.util;

import io.jofi.Fi;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Applies one fi_atomic(3) operation to a target word of registered memory, the target-side
 * arithmetic every provider that serves atomics in software shares (tcp's atomic requests,
 * shm's direct and requested atomics).
 *
 * <p>What is offered, over the one datatype {@link io.jofi.AtomicOps} carries (a 64-bit word in
 * the host's byte order, libfabric's {@code FI_INT64}); the new value is written to the target
 * and the old one returned (the fetching forms' result):
 * <pre>
 *   op               new value (old = the word before)       access checked
 *   FI_MIN           operand &lt; old ? operand : old (signed)  FI_REMOTE_WRITE
 *   FI_MAX           operand &gt; old ? operand : old (signed)  FI_REMOTE_WRITE
 *   FI_SUM           old + operand (wraps on overflow)        FI_REMOTE_WRITE
 *   FI_BOR           old | operand                           FI_REMOTE_WRITE
 *   FI_BAND          old &amp; operand                           FI_REMOTE_WRITE
 *   FI_BXOR          old ^ operand                           FI_REMOTE_WRITE
 *   FI_ATOMIC_READ   old (nothing written)                   FI_REMOTE_READ
 *   FI_ATOMIC_WRITE  operand                                 FI_REMOTE_WRITE
 *   FI_CSWAP         old == compare ? operand : old          FI_REMOTE_WRITE
 * </pre>
 * A fetching form also needs {@code FI_REMOTE_READ} ({@link #access}). These are ofi_atomic.c's
 * definitions for {@code int64_t}; the other fi_atomic(3) ops (FI_PROD, the logical ones,
 * the CSWAP_* compares, FI_MSWAP) and datatypes are not offered ({@link #supported} is false).
 *
 * <p>How: a word that is 8-byte aligned in a direct buffer (a mapped file included) is updated
 * with {@code VarHandle} atomics, so it is atomic against every other thread and process that
 * updates it atomically. Any other word (a heap buffer, whose alignment the JVM does not
 * promise, or a misaligned address) is read and written plainly under one lock of this class,
 * which makes it atomic against every other atomic applied here, in this JVM. No call
 * allocates; none throws for a word inside the buffer (callers check bounds and op first).
 */
public final class Atomics {

    /** 64-bit words in the host's order, as libfabric's targets hold them. */
    private static final VarHandle WORDS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());
    /** Serialises the plain (non-VarHandle-atomic) updates: no two of them interleave. */
    private static final Object PLAIN = new Object();

    private Atomics() {
    }

    /** Whether {@code op} is an operation {@link #apply} performs (the class comment's table). */
    public static boolean supported(int op) {
        return switch (op) {
            case Fi.FI_MIN, Fi.FI_MAX, Fi.FI_SUM, Fi.FI_BOR, Fi.FI_BAND, Fi.FI_BXOR, Fi.FI_ATOMIC_READ,
                 Fi.FI_ATOMIC_WRITE, Fi.FI_CSWAP -> true;
            default -> false;
        };
    }

    /**
     * The access the target region must grant: {@code FI_REMOTE_READ} for FI_ATOMIC_READ,
     * else {@code FI_REMOTE_WRITE}, plus {@code FI_REMOTE_READ} when the initiator fetches
     * the old value.
     */
    public static long access(int op, boolean fetch) {
        if (op == Fi.FI_ATOMIC_READ) {
            return Fi.FI_REMOTE_READ;
        }
        return fetch ? Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_READ : Fi.FI_REMOTE_WRITE;
    }

    /**
     * Applies {@code op} to the 64-bit word at byte {@code index} of {@code target} (host
     * order, the buffer's own order and position ignored).
     *
     * @param operand the operand (FI_CSWAP: the value swapped in)
     * @param compare FI_CSWAP's compare value; ignored by the other ops
     * @return the word before the operation; an op that is not {@link #supported} leaves the
     *         word unchanged and returns it (callers refuse such ops before)
     */
    public static long apply(ByteBuffer target, int index, int op, long operand, long compare) {
        if (target.isDirect() && target.alignmentOffset(index, Long.BYTES) == 0) {
            return applyAtomically(target, index, op, operand, compare);
        }
        synchronized (PLAIN) {
            long old = (long) WORDS.get(target, index);
            long now = next(op, old, operand, compare);
            if (now != old) { // nothing written when nothing changes (a read never writes)
                WORDS.set(target, index, now);
            }
            return old;
        }
    }

    private static long applyAtomically(ByteBuffer b, int index, int op, long operand, long compare) {
        switch (op) {
            case Fi.FI_SUM:
                return (long) WORDS.getAndAdd(b, index, operand);
            case Fi.FI_BOR:
                return (long) WORDS.getAndBitwiseOr(b, index, operand);
            case Fi.FI_BAND:
                return (long) WORDS.getAndBitwiseAnd(b, index, operand);
            case Fi.FI_BXOR:
                return (long) WORDS.getAndBitwiseXor(b, index, operand);
            case Fi.FI_ATOMIC_WRITE:
                return (long) WORDS.getAndSet(b, index, operand);
            default: {
                // FI_MIN, FI_MAX, FI_CSWAP: a compare-and-swap loop that writes only a change (a
                // miss of FI_CSWAP on a read-only view reads); FI_ATOMIC_READ, unsupported: reads
                long old = (long) WORDS.getVolatile(b, index);
                while (true) {
                    long now = next(op, old, operand, compare);
                    if (now == old) {
                        return old;
                    }
                    long seen = (long) WORDS.compareAndExchange(b, index, old, now);
                    if (seen == old) {
                        return old;
                    }
                    old = seen;
                }
            }
        }
    }

    /** The word after {@code op} on {@code old} (the class comment's table). */
    private static long next(int op, long old, long operand, long compare) {
        return switch (op) {
            case Fi.FI_MIN -> Math.min(old, operand);
            case Fi.FI_MAX -> Math.max(old, operand);
            case Fi.FI_SUM -> old + operand;
            case Fi.FI_BOR -> old | operand;
            case Fi.FI_BAND -> old & operand;
            case Fi.FI_BXOR -> old ^ operand;
            case Fi.FI_ATOMIC_WRITE -> operand;
            case Fi.FI_CSWAP -> old == compare ? operand : old;
            default -> old; // FI_ATOMIC_READ, and an unsupported op changes nothing
        };
    }
}
