package io.jofi.provider.shm;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A domain's table of memory registrations that peers may access directly (one-sided RMA):
 * the file {@code <dir>/jofi-<pid>-<domain>.mr}, mode 0600, written only by its domain,
 * mapped read-only by initiators that target an endpoint of that domain.
 *
 * <pre>
 * offset  size  field
 *      0     8  magic "JOFIMRM1"
 *      8     4  layout version (1)
 *     12     4  entry count (ENTRIES)
 *     16     8  owner pid
 *     24     4  events wanted: 1 when an endpoint of the domain counts remote accesses
 *                (FI_RMA_EVENT counters), so initiators notify it of direct accesses
 *     28    36  reserved
 *     64   ENTRIES x 256  entries:
 *          +0   8  seq: odd while being written, even when stable (seqlock), 0 never used
 *          +8   8  state: 0 free, 1 valid
 *         +16   8  key
 *         +24   8  access bits (FI_REMOTE_READ | FI_REMOTE_WRITE)
 *         +32   8  base: the address of byte 0 (MemoryRegion.address() + registration offset)
 *         +40   8  length in bytes
 *         +48   8  offset of byte 0 in the backing file
 *         +56   4  backing-file path length (1..PATH_MAX)
 *         +60 196  backing-file path, ASCII/UTF-8 bytes
 * </pre>
 *
 * <p><b>Publication.</b> The writer (under the domain's lock) makes {@code seq} odd
 * (release), writes the fields, and makes it even again (release). A reader reads
 * {@code seq} (acquire), the fields, then {@code seq} again after an acquire fence; an odd
 * or changed {@code seq} means "retry" (bounded by the caller). Every field a reader takes is
 * validated before use ({@link Entry#validate}); the table is never trusted.
 */
final class RegistrationTable implements AutoCloseable {
    static final long MAGIC = 0x314D524D49464F4AL; // "JOFIMRM1" little-endian bytes
    static final int VERSION = 1;
    static final int ENTRIES = 128;
    static final int HEADER = 64;
    static final int ENTRY = 256;
    static final int PATH_MAX = 196;
    static final int SIZE = HEADER + ENTRIES * ENTRY;

    static final int SEQ = 0;
    static final int STATE = 8;
    static final int KEY = 16;
    static final int ACCESS = 24;
    static final int BASE = 32;
    static final int LENGTH = 40;
    static final int FILE_OFFSET = 48;
    static final int PATH_LEN = 56;
    static final int PATH = 60;

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final Path file;
    private final MappedByteBuffer map;
    private final boolean owner;

    private RegistrationTable(Path file, MappedByteBuffer map, boolean owner) {
        this.file = file;
        this.map = map;
        this.owner = owner;
        map.order(ByteOrder.nativeOrder());
    }

    /** Creates the table of a domain (mode 0600 at creation; an old file of a dead process of the same pid is replaced). */
    static RegistrationTable create(Path file) throws IOException {
        Files.deleteIfExists(file);
        try (FileChannel ch = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            RegistrationTable t = new RegistrationTable(file, m, true);
            m.putInt(8, VERSION);
            m.putInt(12, ENTRIES);
            m.putLong(16, ProcessHandle.current().pid());
            LONGS.setRelease(m, 0, MAGIC);
            return t;
        }
    }

    /**
     * Maps a peer domain's table read-only after checking it: a regular file of our uid, of
     * the right size, magic and version.
     *
     * @throws IOException saying what is wrong
     */
    static RegistrationTable open(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(file + " is not a regular file");
        }
        Object uid = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Object self = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (!uid.equals(self)) {
            throw new IOException(file + " belongs to uid " + uid + ", not to this process's uid " + self);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() != SIZE) {
                throw new IOException(file + " has " + ch.size() + " bytes, not " + SIZE);
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, SIZE);
            RegistrationTable t = new RegistrationTable(file, m, false);
            if ((long) LONGS.getAcquire(m, 0) != MAGIC || m.getInt(8) != VERSION || m.getInt(12) != ENTRIES) {
                throw new IOException(file + " is not a registration table of layout " + VERSION);
            }
            return t;
        }
    }

    static final int EVENTS = 24;

    /** Owner: whether initiators should notify the domain of direct accesses. */
    void eventsWanted(boolean wanted) {
        map.putInt(EVENTS, wanted ? 1 : 0);
        VarHandle.fullFence();
    }

    /** Initiator: whether the target domain counts remote accesses. */
    /** Throws the pending fault ({@link MappingFaults#check}) when the table's file was truncated under the mapping. */
    void check() {
        MappingFaults.check(map);
    }

    /** Whether the table's file is now shorter than its mapping (truncated: reading it faults). */
    boolean truncated() {
        return MappingFaults.shorter(file, map.capacity());
    }

    boolean eventsWanted() {
        VarHandle.acquireFence();
        return map.getInt(EVENTS) != 0;
    }

    Path file() {
        return file;
    }

    /**
     * Publishes a registration in a free entry (owner only; the caller serialises writers).
     *
     * @return the entry index, or -1 when the table is full (the region then stays reachable
     *         through the target-side path only)
     */
    int publish(long key, long access, long base, long length, long fileOffset, String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        if (p.length == 0 || p.length > PATH_MAX) {
            return -1;
        }
        for (int i = 0; i < ENTRIES; i++) {
            int at = HEADER + i * ENTRY;
            if (map.getLong(at + STATE) != 0) {
                continue;
            }
            long seq = map.getLong(at + SEQ);
            LONGS.setRelease(map, at + SEQ, seq + 1);
            VarHandle.storeStoreFence();
            map.putLong(at + KEY, key);
            map.putLong(at + ACCESS, access);
            map.putLong(at + BASE, base);
            map.putLong(at + LENGTH, length);
            map.putLong(at + FILE_OFFSET, fileOffset);
            map.putInt(at + PATH_LEN, p.length);
            map.put(at + PATH, p);
            map.putLong(at + STATE, 1);
            LONGS.setRelease(map, at + SEQ, seq + 2);
            return i;
        }
        return -1;
    }

    /** Withdraws an entry (owner only): peers stop finding it. */
    void withdraw(int index) {
        int at = HEADER + index * ENTRY;
        long seq = map.getLong(at + SEQ);
        LONGS.setRelease(map, at + SEQ, seq + 1);
        VarHandle.storeStoreFence();
        map.putLong(at + STATE, 0);
        LONGS.setRelease(map, at + SEQ, seq + 2);
    }

    /**
     * Finds the valid entry of {@code key} and copies it into {@code out} (validated).
     *
     * @return true when found and consistent; false when absent, torn after a few retries,
     *         or invalid
     */
    boolean find(long key, Entry out) {
        for (int i = 0; i < ENTRIES; i++) {
            int at = HEADER + i * ENTRY;
            if (map.getLong(at + KEY) != key) {
                continue;
            }
            if (read(i, out) && out.key == key) {
                return true;
            }
        }
        return false;
    }

    /** The current seq of entry {@code index} (acquire): a cached entry is still valid while it is unchanged. */
    long seq(int index) {
        return (long) LONGS.getAcquire(map, HEADER + index * ENTRY + SEQ);
    }

    /** Reads entry {@code index} consistently (bounded retries) and validates it. */
    boolean read(int index, Entry out) {
        int at = HEADER + index * ENTRY;
        for (int attempt = 0; attempt < 8; attempt++) {
            long s1 = (long) LONGS.getAcquire(map, at + SEQ);
            if ((s1 & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            long state = map.getLong(at + STATE);
            out.key = map.getLong(at + KEY);
            out.access = map.getLong(at + ACCESS);
            out.base = map.getLong(at + BASE);
            out.length = map.getLong(at + LENGTH);
            out.fileOffset = map.getLong(at + FILE_OFFSET);
            int n = map.getInt(at + PATH_LEN);
            if (n > 0 && n <= PATH_MAX) {
                map.get(at + PATH, out.pathBytes, 0, n);
            }
            out.pathLength = n;
            VarHandle.loadLoadFence();
            long s2 = (long) LONGS.getAcquire(map, at + SEQ);
            if (s1 != s2) {
                continue;
            }
            out.index = index;
            out.seq = s1;
            return state == 1 && out.validate();
        }
        return false;
    }

    @Override
    public void close() {
        if (owner) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // the janitor of a later run removes what is left
            }
        }
    }

    /** One entry as read by an initiator; reused (no allocation per lookup). */
    static final class Entry {
        int index;
        long seq;
        long key;
        long access;
        long base;
        long length;
        long fileOffset;
        int pathLength;
        final byte[] pathBytes = new byte[PATH_MAX];

        /** Every field read from shared memory, checked before use. */
        boolean validate() {
            if (length <= 0 || length > Integer.MAX_VALUE || fileOffset < 0 || fileOffset > Long.MAX_VALUE - length) {
                return false;
            }
            if ((access & ~(io.jofi.Fi.FI_REMOTE_READ | io.jofi.Fi.FI_REMOTE_WRITE)) != 0) {
                return false;
            }
            if (Long.compareUnsigned(base + length - 1, base) < 0) {
                return false;
            }
            if (pathLength <= 1 || pathLength > PATH_MAX || pathBytes[0] != '/') {
                return false;
            }
            for (int i = 0; i < pathLength; i++) {
                if (pathBytes[i] == 0) {
                    return false;
                }
            }
            return true;
        }

        /** The backing file (allocates: only on a cache miss). */
        Path path() {
            return Path.of(new String(pathBytes, 0, pathLength, StandardCharsets.UTF_8));
        }

        /** Whether {@code [addr, addr + len)} lies inside and {@code need} access is granted. */
        boolean allows(long addr, long len, long need) {
            if ((access & need) != need || len < 0) {
                return false;
            }
            long rel = addr - base;
            return Long.compareUnsigned(addr, base) >= 0 && Long.compareUnsigned(rel, length) <= 0
                    && len <= length - rel;
        }
    }

}
