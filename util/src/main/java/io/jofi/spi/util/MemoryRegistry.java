package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.function.Consumer;

/**
 * The memory regions of one domain, by key ({@code fi_mr_reg(3)} and the target side of
 * fi_rma(3)/fi_atomic(3)).
 *
 * <p><b>Registration</b> ({@link #register}) is the control path: it validates, picks or
 * checks the key and throws {@link FabricException}. <b>Lookup</b> ({@link #lookup},
 * {@link #check}, {@link #targetIndex}) is the data path of the target side of every RMA
 * and atomic operation: lock-free and allocation-free.
 *
 * <p><b>Structure.</b> An open-addressing table of region references (linear probing, load
 * factor at most 1/2, so every probe sequence meets an empty slot). The key lives in the
 * region (a final field), so a slot is one reference and a reader needs one acquire load per
 * probe. Writers hold this object's monitor; they publish a region with a release store,
 * remove it by storing a tombstone (a reader probing past it keeps going), and when
 * tombstones pile up build a fresh table and publish it through the volatile field. Readers
 * holding the old table still see a consistent (slightly older) picture: the old table is
 * never written again. A long key is never boxed.
 */
public final class MemoryRegistry {
    /** The access bits fi_mr(3) defines for a registration. */
    public static final long ACCESS_MASK = Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE
            | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;
    /** Access bits under which the provider writes into the registered memory. */
    private static final long WRITES_INTO = Fi.FI_RECV | Fi.FI_READ | Fi.FI_REMOTE_WRITE;

    private static final int MIN_CAPACITY = 16;
    private static final Object TOMBSTONE = new Object();
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);
    /** Provider keys must not be guessable by a peer (fi_mr(3) security of remote access). */
    private static final SecureRandom KEYS = new SecureRandom();

    private final Consumer<UtilMemoryRegion> closeListener;
    private volatile Object[] slots = new Object[MIN_CAPACITY];
    /** Regions in the table; guarded by this. */
    private int live;
    /** Slots that are not null (regions plus tombstones); guarded by this. */
    private int used;

    /** A registry on its own. */
    public MemoryRegistry() {
        this(null);
    }

    /**
     * A registry that tells {@code closeListener} of every region closed or departed (after it
     * left the table), so that an owner (a domain) can release what the region retained.
     */
    public MemoryRegistry(Consumer<UtilMemoryRegion> closeListener) {
        this.closeListener = closeListener;
    }

    /**
     * {@code fi_mr_reg} with the address 0 (offset-based providers, docs/API.md).
     *
     * @see #register(ByteBuffer, long, long, long, long, Object, boolean, long)
     */
    public UtilMemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey,
                                     long flags, Object context, boolean providerKeys) throws FabricException {
        return register(buf, access, offset, requestedKey, flags, context, providerKeys, 0L);
    }

    /**
     * {@code fi_mr_reg}: registers {@code [position, limit)} of {@code buf} (the caller's
     * position and limit are not changed). Nothing is registered when it throws.
     *
     * @param access       a subset of {@link #ACCESS_MASK}
     * @param offset       the address the first byte has beyond {@code address} (see {@link UtilMemoryRegion})
     * @param requestedKey the key asked for; ignored when {@code providerKeys}
     * @param flags        must be 0
     * @param providerKeys {@code FI_MR_PROV_KEY}: the registry picks a fresh random key, never 0 or
     *                     {@code FI_KEY_NOTAVAIL}, never one in use
     * @param address      the region's virtual address for providers whose hardware needs one, else 0
     * @throws FabricException {@code EINVAL} for a null or empty buffer, unknown access bits, a
     *         read-only buffer with an access that writes into it, or an address range that wraps
     *         around 2^64; {@code EBADFLAGS} for flags; {@code ENOKEY} when {@code requestedKey} is
     *         registered already
     */
    public UtilMemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey,
                                     long flags, Object context, boolean providerKeys, long address)
            throws FabricException {
        if (buf == null) {
            throw new FabricException(Errno.EINVAL, "register: the buffer is null");
        }
        int length = buf.remaining();
        if (length == 0) {
            throw new FabricException(Errno.EINVAL, "register: the buffer is empty (position " + buf.position()
                    + " == limit " + buf.limit() + "): nothing to register");
        }
        if ((access & ~ACCESS_MASK) != 0) {
            throw new FabricException(Errno.EINVAL, "register: unknown access bits 0x"
                    + Long.toHexString(access & ~ACCESS_MASK) + "; allowed are FI_SEND, FI_RECV, FI_READ, FI_WRITE,"
                    + " FI_REMOTE_READ and FI_REMOTE_WRITE");
        }
        if (buf.isReadOnly() && (access & WRITES_INTO) != 0) {
            throw new FabricException(Errno.EINVAL, "register: the buffer is read-only but the access ("
                    + "FI_RECV, FI_READ or FI_REMOTE_WRITE) would write into it");
        }
        if (flags != 0) {
            throw new FabricException(Errno.EBADFLAGS, "register: flags must be 0, got 0x" + Long.toHexString(flags));
        }
        long base = address + offset;
        // Byte 0 is at base, the last byte at base + length - 1: neither sum may wrap around 2^64.
        if (Long.compareUnsigned(base, address) < 0 || Long.compareUnsigned(length - 1L, ~base) > 0) {
            throw new FabricException(Errno.EINVAL, "register: address 0x" + Long.toHexString(address) + " + offset 0x"
                    + Long.toHexString(offset) + " + " + length + " bytes wraps around 2^64");
        }
        ByteBuffer slice = buf.slice();
        synchronized (this) {
            long key = providerKeys ? freshKey() : requestedKey;
            if (!providerKeys && find(slots, key) != null) {
                throw new FabricException(Errno.ENOKEY, "register: key " + Long.toUnsignedString(key)
                        + " is already in use by another region of this domain; close it or ask for another key");
            }
            UtilMemoryRegion region = new UtilMemoryRegion(this, slice, access, offset, key, address, context);
            insert(region);
            return region;
        }
    }

    /** The open region registered under {@code key}, or {@code null}. Lock-free, allocation-free. */
    public UtilMemoryRegion lookup(long key) {
        return find(slots, key);
    }

    /**
     * The target-side check of a peer's access (see {@link UtilMemoryRegion#check}).
     *
     * @return 0, {@code -ENOKEY} for an unknown key, {@code -EACCES} for a missing access bit,
     *         {@code -EINVAL} when {@code [addr, addr + len)} is outside the region
     */
    public int check(long key, long addr, long len, long access) {
        UtilMemoryRegion r = find(slots, key);
        return r == null ? -Errno.ENOKEY : r.check(addr, len, access);
    }

    /**
     * {@link #check} and, when it passes, the absolute index of {@code addr} in the region's
     * {@link UtilMemoryRegion#buffer()}: a provider's one call per incoming RMA/atomic.
     *
     * @return the index ({@code >= 0}) or the negative errno of {@link #check}
     */
    public long targetIndex(long key, long addr, long len, long access) {
        UtilMemoryRegion r = find(slots, key);
        if (r == null) {
            return -Errno.ENOKEY;
        }
        int rc = r.check(addr, len, access);
        return rc != 0 ? rc : r.indexOf(addr);
    }

    /** How many regions are registered. */
    public synchronized int size() {
        return live;
    }

    /** Removes {@code region} (closed or departed); tells the close listener. */
    void unregister(UtilMemoryRegion region) {
        boolean removed;
        synchronized (this) {
            removed = remove(region);
        }
        if (removed && closeListener != null) {
            closeListener.accept(region);
        }
    }

    // ------------------------------------------------------------------ table

    private static int slotOf(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing: sequential user keys spread out
        return (int) (h ^ (h >>> 32)) & mask;
    }

    private static UtilMemoryRegion find(Object[] s, long key) {
        int mask = s.length - 1;
        for (int i = slotOf(key, mask); ; i = (i + 1) & mask) {
            Object o = SLOT.getAcquire(s, i);
            if (o == null) {
                return null;
            }
            if (o != TOMBSTONE && ((UtilMemoryRegion) o).key() == key) {
                return (UtilMemoryRegion) o;
            }
        }
    }

    /** Caller holds the monitor and checked that the key is free. */
    private void insert(UtilMemoryRegion region) {
        if ((used + 1) * 2 > slots.length) {
            rebuild();
        }
        Object[] s = slots;
        int mask = s.length - 1;
        int i = slotOf(region.key(), mask);
        while (true) {
            Object o = s[i];
            if (o == null || o == TOMBSTONE) {
                if (o == null) {
                    used++;
                }
                SLOT.setRelease(s, i, region);
                live++;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /** Caller holds the monitor. */
    private boolean remove(UtilMemoryRegion region) {
        Object[] s = slots;
        int mask = s.length - 1;
        for (int i = slotOf(region.key(), mask); ; i = (i + 1) & mask) {
            Object o = s[i];
            if (o == null) {
                return false;
            }
            if (o == region) {
                SLOT.setRelease(s, i, TOMBSTONE);
                live--;
                return true;
            }
        }
    }

    /** A fresh table sized for twice the live regions plus one, without tombstones; published whole. */
    private void rebuild() {
        int capacity = MIN_CAPACITY;
        while (capacity < (live + 1) * 4) {
            capacity <<= 1;
        }
        Object[] old = slots;
        Object[] s = new Object[capacity];
        int mask = capacity - 1;
        for (Object o : old) {
            if (o != null && o != TOMBSTONE) {
                int i = slotOf(((UtilMemoryRegion) o).key(), mask);
                while (s[i] != null) {
                    i = (i + 1) & mask;
                }
                s[i] = o;
            }
        }
        used = live;
        slots = s; // volatile store publishes the filled array
    }

    /** Caller holds the monitor. */
    private long freshKey() {
        while (true) {
            long k = KEYS.nextLong();
            if (k != 0 && k != Fi.FI_KEY_NOTAVAIL && find(slots, k) == null) {
                return k;
            }
        }
    }
}
