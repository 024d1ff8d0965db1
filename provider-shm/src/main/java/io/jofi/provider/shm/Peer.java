package io.jofi.provider.shm;

import io.jofi.Fi;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilMemoryRegion;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * What an endpoint knows of one other endpoint (in this or another process): its name and
 * address, its ring once mapped (lazily, on the first send), the operations queued towards
 * it (in order: a sender never interleaves its messages to one peer), the reassembly state of
 * the message or RMA write it is sending us, the cache of its {@code fi_addr} in our AV
 * ({@code FI_SOURCE}), and the regions of its domain we reach directly (one-sided RMA).
 * Guarded by the endpoint's lock.
 */
final class Peer {
    final String name;
    /** Its ring was full at our last claim (a ring-full wait, counted once until a claim succeeds). */
    boolean waitsForRoom;
    final long pid;
    final long seq;
    final byte[] address;
    RingLink link;
    /** Why mapping failed / the peer failed: 0 while fine, else the errno its operations fail with. */
    int failed;
    final ArrayDeque<ShmOutboundOp> queue = new ArrayDeque<>();
    /**
     * Operations sent to it that wait for its answer. One-sided RMA is taken only while this
     * and {@link #queue} are empty, so it never overtakes an earlier operation (FI_FENCE, order).
     */
    int outstanding;
    /** FI_TRANSMIT_COMPLETE operations in its ring waiting for a life check made after their publish. */
    int unconfirmed;
    /** Records received from it (progress of a live peer, {@link PeerLiveness#stalled}). */
    long activity;
    /** {@link PeerLiveness}: {@link #activity} at the last look, the ring tail seen then, when progress was last seen (0: not timed). */
    long activitySeen;
    long stallMark;
    long progressAt;
    /** When a watched look first found its process stopped (PeerLiveness.stalled); 0: not stopped. */
    long stoppedSince;

    // ---- cross-memory attach towards this peer (we send, it reads our memory)
    /** Not known yet: a message that qualifies sends the probe (and takes the bounce path). */
    static final int CMA_UNKNOWN = 0;
    /** The probe is on its way. */
    static final int CMA_PROBING = 1;
    /** The peer read our probe word: large direct messages go by CMA. */
    static final int CMA_ON = 2;
    /** CMA is off towards this peer for good ({@link #cmaReason} says why). */
    static final int CMA_OFF = 3;
    int cma;
    /** Why CMA is off towards this peer (for logs and the README), null while not off. */
    String cmaReason;

    // ---- receive side: the message or RMA write this peer is sending us (it never interleaves two)
    /** The message in reassembly, from its first fragment to its last ({@link ShmInboundMessage#inProgress}). */
    final ShmInboundMessage inbound = new ShmInboundMessage();
    /** The target region of the RMA write in reassembly, its index, its total length, or the error found on its first fragment. */
    UtilMemoryRegion wRegion;
    int wIndex;
    long wTotal;
    int wStatus;

    // ---- FI_SOURCE cache: a hit, or a miss valid while the AV's change count is unchanged
    private UtilAddressVector cachedAv;
    private long cachedFiAddr = Fi.FI_ADDR_NOTAVAIL;
    private long cachedChangeCount;
    /** The name the peer chose ({@link ShmAlias}) once it was addressed by it, and its address. */
    private String alias;
    private byte[] aliasAddress;

    // ---- one-sided RMA
    private RegistrationTable table;
    private boolean tableTried;
    private final RegistrationTable.Entry entry = new RegistrationTable.Entry();
    private Direct[] direct = new Direct[0];

    /** A region of the peer's domain mapped here. */
    static final class Direct {
        long key;
        int entryIndex;
        long seq;
        long base;
        long length;
        long access;
        long fileOffset;
        MappedByteBuffer map;
        /** The mapped file (to tell whether it was truncated under the mapping). */
        Path file;
    }

    Peer(String name, long pid, long seq) {
        this.name = name;
        this.pid = pid;
        this.seq = seq;
        this.address = ShmNames.address(name);
    }

    /** The name the peer chose, or null while it was not addressed by one. */
    String alias() {
        return alias;
    }

    /** Records the name the peer chose; its {@code fi_addr} is looked up afresh (under either address). */
    void alias(String chosen) {
        if (!chosen.equals(alias)) {
            alias = chosen;
            aliasAddress = ShmNames.address(chosen);
            cachedAv = null;
        }
    }

    /**
     * The peer's {@code fi_addr} in {@code av} (under its canonical address or its chosen
     * name), or {@code FI_ADDR_NOTAVAIL}. A hit is kept while the AV still maps it to that
     * address (checked allocation-free); a miss is kept while the AV's
     * {@link UtilAddressVector#changeCount()} is unchanged. Only after the AV changed does a
     * reverse lookup run again (which allocates a key): the steady state allocates nothing
     * whether the sender is in the AV or not.
     */
    long fiAddrIn(UtilAddressVector av) {
        if (av == null) {
            return Fi.FI_ADDR_NOTAVAIL;
        }
        if (av == cachedAv) {
            if (cachedFiAddr != Fi.FI_ADDR_NOTAVAIL) {
                byte[] a = av.addressOf(cachedFiAddr);
                if (a != null && (Arrays.equals(a, address) || (aliasAddress != null && Arrays.equals(a, aliasAddress)))) {
                    return cachedFiAddr;
                }
            } else if (cachedChangeCount == av.changeCount()) {
                return Fi.FI_ADDR_NOTAVAIL;
            }
        }
        long count = av.changeCount(); // before the lookup: an insert racing with it changes it
        long found = av.fiAddrOf(address);
        if (found == Fi.FI_ADDR_NOTAVAIL && aliasAddress != null) {
            found = av.fiAddrOf(aliasAddress);
        }
        cachedAv = av;
        cachedFiAddr = found;
        cachedChangeCount = count;
        return found;
    }

    /**
     * Why the last {@link #direct} returned null: 0 when the peer does not publish the key
     * (the target-side path serves it), else the errno the access fails with
     * ({@code EACCES} for a missing access right, {@code EINVAL} for a range outside the
     * region) — the same answers the target's own check gives.
     */
    int directError;

    /**
     * The mapped region of key {@code key} of the peer's domain that allows {@code need} on
     * {@code [addr, addr + len)}, or null (see {@link #directError}).
     */
    Direct direct(Path dir, long key, long addr, long len, long need) {
        directError = 0;
        for (Direct d : direct) {
            if (d.key == key) {
                boolean same = table.seq(d.entryIndex) == d.seq;
                table.check();
                if (same) {
                    return fits(d, addr, len, need);
                }
                drop(d);
                break;
            }
        }
        RegistrationTable t = table(dir);
        if (t == null) {
            return null;
        }
        boolean found = t.find(key, entry);
        t.check(); // what a truncated table yielded is garbage: fault here, inside the post
        if (!found) {
            return null;
        }
        Direct d = mapEntry();
        if (d == null) {
            return null;
        }
        Direct[] n = Arrays.copyOf(direct, direct.length + 1);
        n[direct.length] = d;
        direct = n;
        return fits(d, addr, len, need);
    }

    /** Whether the peer's domain wants to hear of direct accesses (remote counters bound). */
    boolean wantsEvents(Path dir) {
        RegistrationTable t = table(dir);
        if (t == null) {
            return false;
        }
        boolean wanted = t.eventsWanted();
        t.check();
        return wanted;
    }

    private Direct fits(Direct d, long addr, long len, long need) {
        if ((d.access & need) != need) {
            directError = io.jofi.Errno.EACCES;
            return null;
        }
        long rel = addr - d.base;
        if (len < 0 || Long.compareUnsigned(addr, d.base) < 0 || Long.compareUnsigned(rel, d.length) > 0
                || len > d.length - rel) {
            directError = io.jofi.Errno.EINVAL;
            return null;
        }
        return d;
    }

    /** Forgets a mapped region (its next use maps it again from the table). */
    void forget(Direct d) {
        drop(d);
    }

    private void drop(Direct d) {
        int at = -1;
        for (int i = 0; i < direct.length; i++) {
            if (direct[i] == d) {
                at = i;
            }
        }
        if (at >= 0) {
            Direct[] n = new Direct[direct.length - 1];
            System.arraycopy(direct, 0, n, 0, at);
            System.arraycopy(direct, at + 1, n, at, direct.length - at - 1);
            direct = n;
        }
    }

    private RegistrationTable table(Path dir) {
        if (!tableTried) {
            tableTried = true;
            try {
                table = RegistrationTable.open(dir.resolve(ShmNames.tableOf(name)));
            } catch (IOException | RuntimeException e) {
                table = null; // no table: every access takes the target-side path
            }
        }
        return table;
    }

    private Direct mapEntry() {
        Path file = entry.path();
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            Object uid = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            Object self = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            if (!uid.equals(self)) {
                return null;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (ch.size() < entry.fileOffset + entry.length) {
                    return null;
                }
                MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, entry.fileOffset, entry.length);
                m.order(ByteOrder.nativeOrder());
                Direct d = new Direct();
                d.key = entry.key;
                d.entryIndex = entry.index;
                d.seq = entry.seq;
                d.base = entry.base;
                d.length = entry.length;
                d.access = entry.access;
                d.fileOffset = entry.fileOffset;
                d.map = m;
                d.file = file;
                return d;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Whether a file of this peer that we map (its region, a registered buffer) was truncated under the mapping. */
    boolean mappingTruncated() {
        if (link != null && link.truncated() || table != null && table.truncated()) {
            return true;
        }
        for (Direct d : direct) {
            if (d != null && d.file != null && MappingFaults.shorter(d.file, d.fileOffset + d.length)) {
                return true;
            }
        }
        return false;
    }

    /** Forgets mappings (the peer failed or the endpoint closes). */
    void release() {
        direct = new Direct[0];
        if (table != null) {
            table.close();
            table = null;
        }
        if (link != null) {
            link.close();
            link = null;
        }
    }

    @Override
    public String toString() {
        return ShmNames.SCHEME + name;
    }
}
