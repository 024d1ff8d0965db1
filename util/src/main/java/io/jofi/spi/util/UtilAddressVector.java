package io.jofi.spi.util;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.AvType;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An address vector (fi_av(3)) for every provider: raw peer addresses kept by compact
 * {@code fi_addr_t} values.
 *
 * <ul>
 * <li><b>TABLE</b> ({@code AvType.TABLE}, also chosen for {@code UNSPEC}): {@code fi_addr} =
 *     the index in insert order, 0, 1, 2, ...; a removed index is never handed out again.</li>
 * <li><b>MAP</b>: opaque values {@code generation << 32 | slot} with a generation of at least
 *     1, so never {@code FI_ADDR_NOTAVAIL} and never equal to a stale value: a removed slot is
 *     reused with the next generation.</li>
 * <li><b>insert</b> validates each entry (non-empty, of the AV's address format, accepted by
 *     the provider's {@link AddressResolver#validate}); a failed entry gets
 *     {@code FI_ADDR_NOTAVAIL}. Synchronous: returns the number inserted; with
 *     {@code FI_SYNC_ERR} the {@code context} is an {@code int[]} that receives 0 or the
 *     (positive) errno of each entry. Asynchronous (opened with {@code FI_EVENT} and bound to
 *     an EQ): returns 0, the EQ receives one error event per failed entry ({@code err = EINVAL},
 *     {@code data} = its index), then {@code FI_AV_COMPLETE} ({@code fid} = this AV,
 *     {@code context} = the insert's, {@code data} = the number inserted); without a bound EQ
 *     the insert returns {@code -ENOEQ}. Flags: {@code FI_MORE} (a hint), {@code FI_SYNC_ERR},
 *     {@code FI_EVENT} (redundant: the mode is chosen at open); any other bit is
 *     {@code -EINVAL}.</li>
 * <li><b>remove</b>: all or nothing; an unknown or removed {@code fi_addr} (also one named twice)
 *     is {@code -ENOENT} and nothing is removed. The layers bound to it that follow removals
 *     ({@link PeerRemovalSource}: the rxm layer's RDM endpoints) hear of the removed addresses
 *     after a successful remove.</li>
 * <li><b>Provider side</b>: {@link #addressOf} (data path: lock-free, allocation-free, no copy)
 *     and {@link #fiAddrOf} (reverse lookup for {@code FI_SOURCE}, R10).</li>
 * <li><b>R9</b>: {@link #bind} retains the EQ (closing it while bound is {@code EBUSY}); closing
 *     the AV releases it. Endpoints {@link #retain()} the AV.</li>
 * </ul>
 *
 * <p>Writers (insert, remove, bind) hold this object's monitor. Entries are immutable and
 * published with release stores into a volatile array; readers need no lock.
 */
public class UtilAddressVector extends AbstractFid implements AddressVector, PeerRemovalSource {
    /** Who follows removals ({@link PeerRemovalSource}); told outside the monitor. */
    private final CopyOnWriteArrayList<PeerRemovalSource.Listener> removalListeners = new CopyOnWriteArrayList<>();
    private static final long OPEN_FLAGS = Fi.FI_EVENT | Fi.FI_READ | Fi.FI_SYMMETRIC;
    private static final long INSERT_FLAGS = Fi.FI_MORE | Fi.FI_SYNC_ERR | Fi.FI_EVENT;
    private static final int MIN_CAPACITY = 16;
    /** Initial room taken from {@code attr.count()} at most: a hint, not a reason to allocate gigabytes. */
    private static final int MAX_INITIAL_CAPACITY = 1 << 16;
    private static final int MAX_ENTRIES = Integer.MAX_VALUE - 8;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);

    /** One inserted address: immutable, so a reader that sees the reference sees its fields. */
    private static final class Entry {
        final byte[] addr;
        final long fiAddr;
        final AddressKey key;

        Entry(byte[] addr, long fiAddr) {
            this.addr = addr;
            this.fiAddr = fiAddr;
            this.key = new AddressKey(addr);
        }
    }

    /** Raw address bytes compared by content, for the reverse map. */
    private static final class AddressKey {
        final byte[] bytes;
        final int hash;

        AddressKey(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AddressKey && Arrays.equals(bytes, ((AddressKey) o).bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final AvAttr attr;
    private final AddrFormat format;
    private final AddressResolver resolver;
    private final boolean async;
    /** fi_addr → slot: the whole value for TABLE, the low 32 bits for MAP. */
    private final long slotMask;

    private volatile Entry[] slots;
    /** Address → live entries with that address, oldest first (duplicates are allowed by fi_av(3)). */
    private final ConcurrentHashMap<AddressKey, Entry[]> byAddress = new ConcurrentHashMap<>();
    /** Next never-used slot; guarded by this. */
    private int next;
    /** Live entries; guarded by this. */
    private int live;
    /** MAP only: generation of each slot and the free slots to reuse; guarded by this. */
    private int[] generation;
    private int[] free;
    private int freeCount;
    /** The bound EQ; guarded by this, read without lock by the async insert after the null check. */
    private volatile UtilEventQueue eq;
    /**
     * Changes (written under the monitor, after the change is published) with every insert
     * and remove: a provider may keep a failed {@link #fiAddrOf} until it changes.
     */
    private volatile long changeCount;

    /**
     * {@code fi_av_open}.
     *
     * @param attr     {@code null} = defaults; {@code type UNSPEC} becomes {@code TABLE}; flags
     *                 {@code FI_EVENT} (asynchronous inserts), {@code FI_SYMMETRIC} (a hint)
     * @param format   the domain's address format ({@code Info.addrFormat()}); {@code UNSPEC}
     *                 accepts any non-empty bytes
     * @param resolver the provider's name resolution and address check; {@code null}: every
     *                 address of the format is accepted and {@code insertSvc} is {@code -ENOSYS}
     * @throws FabricException {@code EINVAL} for unknown flags or a negative count;
     *         {@code ENOSYS} for a named (shared) AV, {@code FI_READ}, or receive-context bits
     */
    public UtilAddressVector(AvAttr attr, Object context, AddrFormat format, AddressResolver resolver)
            throws FabricException {
        super(FidClass.AV, context);
        AvAttr a = attr == null ? new AvAttr() : attr.copy();
        if ((a.flags() & ~OPEN_FLAGS) != 0) {
            throw new FabricException(Errno.EINVAL, "openAv: unknown flags 0x" + Long.toHexString(a.flags() & ~OPEN_FLAGS)
                    + "; allowed are FI_EVENT, FI_READ and FI_SYMMETRIC");
        }
        if (a.name() != null || (a.flags() & Fi.FI_READ) != 0) {
            throw new FabricException(Errno.ENOSYS, "openAv: named (shared) address vectors are not supported"
                    + " (name " + a.name() + (((a.flags() & Fi.FI_READ) != 0) ? ", FI_READ" : "") + ")");
        }
        if (a.rxCtxBits() != 0) {
            throw new FabricException(Errno.ENOSYS, "openAv: rxCtxBits " + a.rxCtxBits()
                    + ": scalable endpoints (receive-context bits) are not supported");
        }
        if (a.count() < 0 || a.epPerNode() < 0) {
            throw new FabricException(Errno.EINVAL, "openAv: count (" + a.count() + ") and epPerNode ("
                    + a.epPerNode() + ") must not be negative");
        }
        if (a.type() == AvType.UNSPEC) {
            a.type(AvType.TABLE);
        }
        this.attr = a;
        this.format = format == null ? AddrFormat.UNSPEC : format;
        this.resolver = resolver;
        this.async = (a.flags() & Fi.FI_EVENT) != 0;
        this.slotMask = a.type() == AvType.TABLE ? -1L : 0xFFFF_FFFFL;
        int capacity = (int) Math.max(MIN_CAPACITY, Math.min(a.count(), MAX_INITIAL_CAPACITY));
        this.slots = new Entry[capacity];
        if (a.type() == AvType.MAP) {
            generation = new int[capacity];
            free = new int[MIN_CAPACITY];
        }
    }

    /** The attributes as opened, with the type chosen ({@code TABLE} for {@code UNSPEC}); a copy. */
    public AvAttr attr() {
        return attr.copy();
    }

    /** The address format every entry must have. */
    public AddrFormat addrFormat() {
        return format;
    }

    /** Whether inserts complete on the bound EQ ({@code FI_EVENT}). */
    public boolean isAsync() {
        return async;
    }

    /** How many addresses are in the AV. */
    public synchronized int count() {
        return live;
    }

    // ------------------------------------------------------------------ fi_av_insert

    /**
     * {@code fi_av_insert} (see the class comment).
     *
     * @param fiAddrs receives each entry's {@code fi_addr} or {@code FI_ADDR_NOTAVAIL}; may be
     *                null, else at least {@code addrs.length} long
     * @return synchronous: the number inserted; asynchronous: 0; or {@code -EINVAL} (bad
     *         arguments or flags, nothing inserted), {@code -ENOEQ} (FI_EVENT without an EQ),
     *         {@code -EOVERRUN} (the EQ overran: the inserts happened but their events were
     *         lost), {@code -EBADF}/{@code -ENODEV} (closed/departed)
     */
    @Override
    public int insert(byte[][] addrs, long[] fiAddrs, long flags, Object context) {
        if (addrs == null) {
            return -Errno.EINVAL;
        }
        int n = addrs.length;
        int rc = checkInsert(n, fiAddrs, flags, context);
        if (rc != 0) {
            return rc;
        }
        int[] syncErr = (flags & Fi.FI_SYNC_ERR) != 0 ? (int[]) context : null;
        int inserted = 0;
        int postRc = 0;
        UtilEventQueue q = eq;
        if (async && q == null) {
            return -Errno.EBADF; // closed between the check and here
        }
        synchronized (this) {
            for (int i = 0; i < n; i++) {
                long fiAddr = insertOne(addrs[i]);
                int err = fiAddr >= 0 ? 0 : (int) -fiAddr;
                if (err == 0) {
                    inserted++;
                }
                if (fiAddrs != null) {
                    fiAddrs[i] = err == 0 ? fiAddr : Fi.FI_ADDR_NOTAVAIL;
                }
                if (syncErr != null) {
                    syncErr[i] = err;
                }
                if (err != 0 && async) {
                    postRc = firstFailure(postRc, q.postError(this, context, i, err, 0, null, 0));
                }
            }
        }
        return async ? complete(q, context, inserted, postRc) : inserted;
    }

    /**
     * {@code fi_av_insertsvc}: resolves {@code node}/{@code service} with the provider's
     * {@link AddressResolver} and inserts the result.
     *
     * @return synchronous: 1, or the negative errno of the resolution or of the insert;
     *         asynchronous: 0 and the events of {@link #insert} (a resolution failure is the
     *         error event of entry 0 with the resolver's errno)
     */
    @Override
    public int insertSvc(String node, String service, long[] fiAddr, long flags, Object context) {
        int rc = checkInsert(1, fiAddr, flags, context);
        if (rc != 0) {
            return rc;
        }
        if (resolver == null) {
            return -Errno.ENOSYS;
        }
        byte[] addr;
        try {
            addr = resolver.resolve(node, service);
        } catch (FabricException e) {
            int err = e.errno() > 0 ? e.errno() : Errno.EINVAL;
            if (fiAddr != null) {
                fiAddr[0] = Fi.FI_ADDR_NOTAVAIL;
            }
            if ((flags & Fi.FI_SYNC_ERR) != 0) {
                ((int[]) context)[0] = err;
            }
            if (!async) {
                return -err;
            }
            UtilEventQueue q = eq;
            if (q == null) {
                return -Errno.EBADF; // closed between the check and here
            }
            return complete(q, context, 0, q.postError(this, context, 0, err, 0, null, 0));
        }
        rc = insert(new byte[][] {addr}, fiAddr, flags, context);
        return !async && rc == 0 ? -Errno.EINVAL : rc;
    }

    /** The argument checks shared by insert and insertSvc: 0 or a negative errno, nothing changed. */
    private int checkInsert(int n, long[] fiAddrs, long flags, Object context) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if ((fiAddrs != null && fiAddrs.length < n) || (flags & ~INSERT_FLAGS) != 0) {
            return -Errno.EINVAL;
        }
        if ((flags & Fi.FI_SYNC_ERR) != 0) {
            // fi_av(3): FI_SYNC_ERR applies to synchronous inserts; context is the int array.
            if (async || !(context instanceof int[]) || ((int[]) context).length < n) {
                return -Errno.EINVAL;
            }
        }
        if (async && eq == null) {
            return -Errno.ENOEQ;
        }
        return 0;
    }

    /** Posts FI_AV_COMPLETE after the error events; 0, or the first failure to post. */
    private int complete(UtilEventQueue q, Object context, int inserted, int postRc) {
        postRc = firstFailure(postRc, q.post(Fi.FI_AV_COMPLETE, this, context, inserted, null, null, 0));
        return postRc;
    }

    private static int firstFailure(int sofar, int postRc) {
        return sofar < 0 ? sofar : postRc < 0 ? postRc : 0;
    }

    /** Caller holds the monitor. The new fi_addr (>= 0) or a negative errno. */
    private long insertOne(byte[] addr) {
        if (addr == null || addr.length == 0) {
            return -Errno.EINVAL;
        }
        if (format != AddrFormat.UNSPEC && Addresses.formatOf(addr) != format) {
            return -Errno.EINVAL;
        }
        if (resolver != null && resolver.validate(addr) != 0) {
            return -Errno.EINVAL;
        }
        int slot;
        long fiAddr;
        if (generation != null && freeCount > 0) {
            slot = free[--freeCount];
            int g = generation[slot] == Integer.MAX_VALUE ? 1 : generation[slot] + 1;
            generation[slot] = g;
            fiAddr = ((long) g << 32) | slot;
        } else {
            if (next >= MAX_ENTRIES) {
                return -Errno.ENOSPC;
            }
            slot = next++;
            ensureCapacity(slot + 1);
            if (generation != null) {
                generation[slot] = 1;
                fiAddr = (1L << 32) | slot;
            } else {
                fiAddr = slot;
            }
        }
        Entry e = new Entry(addr.clone(), fiAddr); // the caller may reuse its array
        SLOT.setRelease(slots, slot, e);
        byAddress.merge(e.key, new Entry[] {e}, UtilAddressVector::append);
        live++;
        changeCount++; // after the entry is visible: a reader seeing the old count looked up before
        return fiAddr;
    }

    private static Entry[] append(Entry[] old, Entry[] one) {
        Entry[] n = Arrays.copyOf(old, old.length + 1);
        n[old.length] = one[0];
        return n;
    }

    /** Caller holds the monitor. Grows the slot array (and MAP generations); publishes whole. */
    private void ensureCapacity(int needed) {
        Entry[] s = slots;
        if (needed <= s.length) {
            return;
        }
        int capacity = (int) Math.min(MAX_ENTRIES, Math.max((long) needed, 2L * s.length));
        if (generation != null) {
            generation = Arrays.copyOf(generation, capacity);
        }
        slots = Arrays.copyOf(s, capacity); // volatile store publishes the copied entries
    }

    // ------------------------------------------------------------------ fi_av_remove

    /**
     * {@code fi_av_remove}: all or nothing.
     *
     * @param flags must be 0
     * @return 0; {@code -ENOENT} when an address is unknown, already removed or named twice
     *         (nothing is removed then); {@code -EINVAL} for null or flags;
     *         {@code -EBADF}/{@code -ENODEV}
     */
    @Override
    public int remove(long[] fiAddrs, long flags) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (fiAddrs == null || flags != 0) {
            return -Errno.EINVAL;
        }
        byte[][] removed = null;
        synchronized (this) {
            Set<Long> seen = fiAddrs.length > 1 ? new HashSet<>() : null;
            for (long fiAddr : fiAddrs) {
                if (find(fiAddr) == null || (seen != null && !seen.add(fiAddr))) {
                    return -Errno.ENOENT;
                }
            }
            if (!removalListeners.isEmpty()) {
                removed = new byte[fiAddrs.length][];
                for (int i = 0; i < fiAddrs.length; i++) {
                    removed[i] = addressOf(fiAddrs[i]);
                }
            }
            for (long fiAddr : fiAddrs) {
                Entry e = find(fiAddr);
                int slot = (int) (fiAddr & slotMask);
                SLOT.setRelease(slots, slot, null);
                byAddress.computeIfPresent(e.key, (k, v) -> without(v, e));
                if (generation != null) {
                    if (freeCount == free.length) {
                        free = Arrays.copyOf(free, free.length * 2);
                    }
                    free[freeCount++] = slot;
                }
                live--;
            }
            changeCount++;
        }
        if (removed != null) {
            for (PeerRemovalSource.Listener l : removalListeners) {
                l.removed(removed);
            }
        }
        return 0;
    }

    @Override
    public void addRemovalListener(PeerRemovalSource.Listener l) {
        removalListeners.addIfAbsent(java.util.Objects.requireNonNull(l, "listener"));
    }

    @Override
    public void removeRemovalListener(PeerRemovalSource.Listener l) {
        removalListeners.remove(l);
    }

    private static Entry[] without(Entry[] v, Entry e) {
        if (v.length == 1) {
            return v[0] == e ? null : v; // null removes the mapping
        }
        Entry[] n = new Entry[v.length - 1];
        int j = 0;
        for (Entry x : v) {
            if (x != e && j < n.length) {
                n[j++] = x;
            }
        }
        return j == n.length ? n : v;
    }

    // ------------------------------------------------------------------ lookups

    /** {@code fi_av_lookup}: a copy of the address, or {@code null} when absent or the AV is not open. */
    @Override
    public byte[] lookup(long fiAddr) {
        if (dataPathCheck() != 0) {
            return null;
        }
        byte[] a = addressOf(fiAddr);
        return a == null ? null : a.clone();
    }

    /** {@code fi_av_straddr}: {@link Addresses#toString(byte[])}. */
    @Override
    public String straddr(byte[] addr) {
        return Addresses.toString(addr);
    }

    /**
     * Provider data path: the raw address of {@code fiAddr}, not copied (never modify it), or
     * {@code null}. Lock-free and allocation-free.
     */
    public final byte[] addressOf(long fiAddr) {
        Entry e = find(fiAddr);
        return e == null ? null : e.addr;
    }

    /**
     * Provider side, reverse lookup for {@code FI_SOURCE} (R10): the {@code fi_addr} of the
     * oldest live entry with exactly these bytes, or {@code FI_ADDR_NOTAVAIL}. Lock-free; it
     * allocates one small key object (connection set-up path, not per message).
     */
    public final long fiAddrOf(byte[] addr) {
        if (addr == null) {
            return Fi.FI_ADDR_NOTAVAIL;
        }
        Entry[] v = byAddress.get(new AddressKey(addr));
        return v == null ? Fi.FI_ADDR_NOTAVAIL : v[0].fiAddr;
    }

    /**
     * Provider side: a number that changes whenever an entry is inserted or removed. A
     * {@link #fiAddrOf} that missed stays a miss while it is unchanged, provided the count
     * was read before that lookup (so a provider can remember a miss per peer and allocate
     * nothing on later messages of an unknown sender, R10). Lock-free, allocation-free.
     */
    public final long changeCount() {
        return changeCount;
    }

    private Entry find(long fiAddr) {
        long slot = fiAddr & slotMask;
        Entry[] s = slots;
        if (slot < 0 || slot >= s.length) {
            return null;
        }
        Entry e = (Entry) SLOT.getAcquire(s, (int) slot);
        // The entry's own fi_addr settles it: a stale MAP value has another generation.
        return e != null && e.fiAddr == fiAddr ? e : null;
    }

    // ------------------------------------------------------------------ binding and life cycle

    /**
     * {@code fi_av_bind}: the EQ that receives the events of asynchronous inserts. Retains it
     * (R9: closing the EQ while bound is {@code EBUSY}); closing the AV releases it.
     *
     * @param eq    an event queue of the util layer
     * @param flags must be 0
     * @throws FabricException {@code EINVAL} for flags, a null or foreign EQ, or a second bind;
     *         {@code EBADF}/{@code ENODEV} when the AV or the EQ is not open
     */
    @Override
    public void bind(EventQueue eq, long flags) throws FabricException {
        ensureOpen("bind");
        if (flags != 0) {
            throw new FabricException(Errno.EINVAL, "av bind: flags must be 0, got 0x" + Long.toHexString(flags));
        }
        if (!(eq instanceof UtilEventQueue)) {
            throw new FabricException(Errno.EINVAL, "av bind: " + (eq == null ? "the event queue is null"
                    : eq + " is not an event queue of this provider"));
        }
        UtilEventQueue q = (UtilEventQueue) eq;
        synchronized (this) {
            if (this.eq != null) {
                throw new FabricException(Errno.EINVAL, "av bind: an event queue is bound already");
            }
            q.retain();
            this.eq = q;
        }
    }

    /** Releases the bound EQ and forgets every address. */
    @Override
    protected void onClose() {
        UtilEventQueue q;
        synchronized (this) {
            q = eq;
            eq = null;
            slots = new Entry[0];
            byAddress.clear();
            live = 0;
        }
        if (q != null) {
            q.release();
        }
    }

    @Override
    protected String describe() {
        return "address vector";
    }
}
