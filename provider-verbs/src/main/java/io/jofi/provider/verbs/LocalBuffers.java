package io.jofi.provider.verbs;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.jofi.provider.verbs.binding.Ibv;
import io.jofi.provider.verbs.binding.IbvMrDescriptor;
import io.jofi.provider.verbs.binding.VerbsConstants;
import java.nio.ByteBuffer;

/**
 * How an endpoint finds the native address and local key of a buffer the application passes
 * without a registration ({@code desc == null}; the provider does not require
 * {@code FI_MR_LOCAL}):
 * <ul>
 * <li>the address of a direct buffer comes from a small identity cache (JNA's
 *     {@code getDirectBufferPointer} allocates, so it runs once per buffer object, not per
 *     operation);</li>
 * <li>a direct buffer is registered whole ({@code ibv_reg_mr} over its capacity) on first use
 *     and kept in a bounded registration cache that holds the buffer strongly (its memory cannot
 *     be freed and its address reused while registered); an entry with operations in flight is
 *     never evicted;</li>
 * <li>heap buffers are copied through {@link #BOUNCE}-byte slots of a registered bounce area,
 *     one per operation slot.</li>
 * </ul>
 * Not thread-safe: the endpoint's lock serialises it.
 */
final class LocalBuffers implements AutoCloseable {
    /** Bytes per bounce slot: the largest heap-buffer operation. */
    static final int BOUNCE = 4096;
    private static final int ADDRESSES = 4096;
    /** Slots a buffer's address may sit in (a power of two). */
    private static final int ADDRESS_WAYS = 4;
    private static final int REGISTRATIONS = 32;

    private final long pd;
    private final ByteBuffer[] addrKeys = new ByteBuffer[ADDRESSES];
    private final long[] addrValues = new long[ADDRESSES];
    /** Which of a full set's slots the next miss replaces. */
    private int addrNext;

    private final ByteBuffer[] regBuffers = new ByteBuffer[REGISTRATIONS];
    private final long[] regBase = new long[REGISTRATIONS];
    private final long[] regEnd = new long[REGISTRATIONS];
    private final long[] regMr = new long[REGISTRATIONS];
    private final int[] regLkey = new int[REGISTRATIONS];
    private final int[] regInflight = new int[REGISTRATIONS];
    private int regNext;

    /** The bounce area's native block and registration. */
    private final io.jofi.provider.verbs.binding.NativeBlock bounce;
    private final long bounceMr;
    private final int bounceLkey;

    /** Set by {@link #lkey}: the registration-cache entry the last lookup used, or -1. */
    int lastEntry = -1;

    /**
     * @param pd          the protection domain ({@code struct ibv_pd *})
     * @param bounceSlots bounce slots (one per operation slot of the endpoint)
     * @throws IllegalStateException when the bounce area cannot be registered
     */
    LocalBuffers(long pd, int bounceSlots) {
        this.pd = pd;
        this.bounce = new io.jofi.provider.verbs.binding.NativeBlock((long) bounceSlots * BOUNCE);
        this.bounceMr = Ibv.ibv_reg_mr(pd, bounce.address(), bounce.size(),
                VerbsConstants.IBV_ACCESS_LOCAL_WRITE);
        if (bounceMr == 0) {
            int errno = Native.getLastError();
            bounce.close();
            throw new IllegalStateException("ibv_reg_mr of the bounce area failed (errno " + errno + ")");
        }
        this.bounceLkey = new Pointer(bounceMr).getInt(IbvMrDescriptor.LKEY);
    }

    /**
     * The native address of byte 0 of direct buffer {@code buf} (cached per buffer object: a
     * buffer is looked for in {@link #ADDRESS_WAYS} slots from its hash, so that the hundreds
     * of packet buffers an RDM endpoint's rxm layer posts in turn do not evict each other).
     */
    long addressOf(ByteBuffer buf) {
        int h = System.identityHashCode(buf);
        for (int i = 0; i < ADDRESS_WAYS; i++) {
            int k = (h + i) & (ADDRESSES - 1);
            if (addrKeys[k] == buf) {
                return addrValues[k];
            }
        }
        long a = Pointer.nativeValue(Native.getDirectBufferPointer(buf));
        int slot = (h + (addrNext++ & (ADDRESS_WAYS - 1))) & (ADDRESSES - 1);
        for (int i = 0; i < ADDRESS_WAYS; i++) {
            int k = (h + i) & (ADDRESSES - 1);
            if (addrKeys[k] == null) {
                slot = k;
                break;
            }
        }
        addrKeys[slot] = buf;
        addrValues[slot] = a;
        return a;
    }

    /**
     * The local key for {@code [addr, addr + len)} of direct buffer {@code buf} from the
     * registration cache, registering the buffer on a miss; sets {@link #lastEntry}.
     *
     * @return the lkey, or -1 when nothing could be registered (every entry busy, or
     *         {@code ibv_reg_mr} failed)
     */
    long lkey(ByteBuffer buf, long addr, long len) {
        for (int i = 0; i < REGISTRATIONS; i++) {
            if (regMr[i] != 0 && Long.compareUnsigned(regBase[i], addr) <= 0
                    && Long.compareUnsigned(addr + len, regEnd[i]) <= 0) {
                lastEntry = i;
                return regLkey[i] & 0xFFFFFFFFL;
            }
        }
        int victim = -1;
        for (int k = 0; k < REGISTRATIONS; k++) {
            int i = (regNext + k) % REGISTRATIONS;
            if (regMr[i] == 0 || regInflight[i] == 0) {
                victim = i;
                break;
            }
        }
        if (victim < 0) {
            lastEntry = -1;
            return -1;
        }
        regNext = (victim + 1) % REGISTRATIONS;
        evict(victim);
        long base = addressOf(buf);
        int access = buf.isReadOnly() ? 0 : VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
        long mr = Ibv.ibv_reg_mr(pd, base, buf.capacity(), access);
        if (mr == 0) {
            lastEntry = -1;
            return -1;
        }
        regBuffers[victim] = buf;
        regBase[victim] = base;
        regEnd[victim] = base + buf.capacity();
        regMr[victim] = mr;
        regLkey[victim] = new Pointer(mr).getInt(IbvMrDescriptor.LKEY);
        regInflight[victim] = 0;
        lastEntry = victim;
        return regLkey[victim] & 0xFFFFFFFFL;
    }

    /** An operation using cache entry {@code entry} was posted. */
    void hold(int entry) {
        if (entry >= 0) {
            regInflight[entry]++;
        }
    }

    /** An operation using cache entry {@code entry} completed. */
    void release(int entry) {
        if (entry >= 0 && regInflight[entry] > 0) {
            regInflight[entry]--;
        }
    }

    private void evict(int i) {
        if (regMr[i] != 0) {
            Ibv.ibv_dereg_mr(regMr[i]);
        }
        regMr[i] = 0;
        regBuffers[i] = null;
    }

    /** The native address of bounce slot {@code slot}. */
    long bounceAddress(int slot) {
        return bounce.address((int) ((long) slot * BOUNCE));
    }

    /** The lkey of the bounce area. */
    int bounceLkey() {
        return bounceLkey;
    }

    /**
     * Copies {@code len} bytes of {@code buf} from its position (kept) to the bounce area at the
     * native address {@code addr} (a slot's address plus an offset: several iovs in one slot).
     */
    void copyInAt(long addr, ByteBuffer buf, int len) {
        bounce.view().put((int) (addr - bounceAddress(0)), buf, buf.position(), len);
    }

    /** Copies {@code n} bytes of bounce slot {@code slot} to {@code buf} from its position (position kept). */
    void copyOut(int slot, ByteBuffer buf, int n) {
        ByteBuffer v = bounce.view();
        int at = slot * BOUNCE;
        buf.put(buf.position(), v, at, n);
    }

    /** The bounce area as a buffer (for 8-byte atomic results). */
    ByteBuffer bounceView() {
        return bounce.view();
    }

    @Override
    public void close() {
        for (int i = 0; i < REGISTRATIONS; i++) {
            evict(i);
        }
        Ibv.ibv_dereg_mr(bounceMr);
        bounce.close();
        java.util.Arrays.fill(addrKeys, null);
    }
}
