package io.jofi.provider.shm.ring;

import static io.jofi.provider.shm.ring.RegionDescriptor.FILE_LENGTH_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.HEADER_LENGTH_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.MAGIC;
import static io.jofi.provider.shm.ring.RegionDescriptor.MAGIC_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.OWNER_PID_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.OWNER_START_TIME_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.OWNER_UID_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.RING_CAPACITY_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.SLOT_COUNT_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.SLOT_SIZE_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.STATE_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.VERSION_OFFSET;

import io.jofi.provider.shm.ring.RegionRefusedException.Reason;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One endpoint's region file ({@link RegionDescriptor} layout), mapped read-write: created by
 * its owner (the ring's consumer) with {@link #create}, mapped by peers (producers) with
 * {@link #map}. The file is {@code <dir>/jofi-<name>.region}; the owner's doorbell socket is
 * {@link #doorbellPath} ({@code jofi-<name>.bell}).
 * <p>
 * Security (docs/SHM-LAYOUT.md "Bad input, faults, security"): the file is created with mode 0600 atomically (the permission is a
 * creation attribute, never a chmod afterwards) and exclusively (an existing file is never
 * reused). {@link #map} accepts only a regular file (no symlink) of this process's uid with no
 * group/other permission, a header with the right magic and version, owner uid equal to the
 * file's, sizes in range that fit the file, a live owner (pid and start time), state READY.
 * <p>
 * {@link #close()} of the owner marks the region CLOSED and deletes the file and the doorbell
 * socket path; every close drops this object's reference to the mapping. The mapping itself is
 * released by the garbage collector once unreachable, never explicitly: unmapping memory that
 * another thread may still touch would crash the JVM instead of failing an operation.
 */
public final class ShmRegion implements AutoCloseable {

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final int ZERO_CHUNK = 64 * 1024;

    private final Path path;
    private final Path doorbellPath;
    private final String name;
    private final boolean owner;
    private final MappedByteBuffer mapping;
    private final RegionSizes sizes;
    private final long ownerPid;
    private final long ownerStartTime;
    private final MpscRing ring;
    private final BounceSlots slots;
    private volatile boolean closed;

    private ShmRegion(Path path, Path doorbellPath, String name, boolean owner, MappedByteBuffer mapping,
                      RegionSizes sizes, long ownerPid, long ownerStartTime) {
        this.path = path;
        this.doorbellPath = doorbellPath;
        this.name = name;
        this.owner = owner;
        this.mapping = mapping;
        this.sizes = sizes;
        this.ownerPid = ownerPid;
        this.ownerStartTime = ownerStartTime;
        final int headerLength = RegionDescriptor.headerLength(sizes.slotCount());
        this.ring = new MpscRing(mapping, headerLength, sizes.ringCapacity());
        this.slots = new BounceSlots(mapping, headerLength + sizes.ringCapacity(), sizes.slotSize(), sizes.slotCount());
    }

    /**
     * Creates and maps a new region owned by this process.
     *
     * @param dir   an existing directory (e.g. {@code /dev/shm})
     * @param name  the endpoint's region name: {@code [A-Za-z0-9_][A-Za-z0-9_.-]{0,63}}
     * @param sizes ring and bounce-buffer sizes
     * @throws FileAlreadyExistsException when a region of that name exists
     * @throws IOException when the file cannot be created or filled (e.g. no space)
     * @throws IllegalArgumentException for an invalid name
     */
    public static ShmRegion create(Path dir, String name, RegionSizes sizes) throws IOException {
        checkName(name);
        final Path path = regionPath(dir, name);
        final int length = sizes.fileLength();
        final FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(OWNER_ONLY);
        boolean done = false;
        try (FileChannel channel = FileChannel.open(path, Set.<OpenOption>of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), mode)) {
            try {
                // Fill the file: a tmpfs that is full fails here, not later with SIGBUS on a page touch.
                final ByteBuffer zeros = ByteBuffer.allocateDirect(Math.min(ZERO_CHUNK, length));
                long position = 0;
                while (position < length) {
                    zeros.clear().limit((int) Math.min(zeros.capacity(), length - position));
                    position += channel.write(zeros, position);
                }
                final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
                mapping.order(ByteOrder.LITTLE_ENDIAN);
                final int uid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                final long pid = ProcessLiveness.selfPid();
                final long start = ProcessLiveness.selfStartTime();
                INT.set(mapping, VERSION_OFFSET, RegionDescriptor.LAYOUT_VERSION);
                INT.set(mapping, HEADER_LENGTH_OFFSET, RegionDescriptor.headerLength(sizes.slotCount()));
                LONG.set(mapping, OWNER_PID_OFFSET, pid);
                LONG.set(mapping, OWNER_START_TIME_OFFSET, start);
                INT.set(mapping, OWNER_UID_OFFSET, uid);
                INT.set(mapping, STATE_OFFSET, RegionDescriptor.STATE_READY);
                INT.set(mapping, RING_CAPACITY_OFFSET, sizes.ringCapacity());
                INT.set(mapping, SLOT_SIZE_OFFSET, sizes.slotSize());
                INT.set(mapping, SLOT_COUNT_OFFSET, sizes.slotCount());
                LONG.set(mapping, FILE_LENGTH_OFFSET, (long) length);
                // Magic last: a peer that sees it sees a complete header.
                LONG.setRelease(mapping, MAGIC_OFFSET, MAGIC);
                final ShmRegion region = new ShmRegion(path, doorbellPath(dir, name), name, true, mapping,
                        sizes, pid, start);
                done = true;
                return region;
            } finally {
                if (!done) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    /**
     * Maps a peer's region after checking it (see the class comment).
     *
     * @throws RegionRefusedException naming the failed check
     * @throws IOException when the file cannot be read or mapped
     * @throws IllegalArgumentException for an invalid name
     */
    public static ShmRegion map(Path dir, String name) throws IOException {
        checkName(name);
        final Path path = regionPath(dir, name);
        final Map<String, Object> attributes;
        try {
            attributes = Files.readAttributes(path, "unix:uid,mode,size,isRegularFile", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new RegionRefusedException(path, Reason.MISSING, "no such file");
        }
        if (!Boolean.TRUE.equals(attributes.get("isRegularFile"))) {
            throw new RegionRefusedException(path, Reason.PERMISSIONS, "not a regular file");
        }
        final int fileUid = (Integer) attributes.get("uid");
        final int selfUid = ProcessLiveness.selfUid();
        if (fileUid != selfUid) {
            throw new RegionRefusedException(path, Reason.FOREIGN_OWNER,
                    "owned by uid " + fileUid + ", this process runs as uid " + selfUid);
        }
        final int mode = (Integer) attributes.get("mode");
        if ((mode & 077) != 0) {
            throw new RegionRefusedException(path, Reason.PERMISSIONS,
                    "mode " + Integer.toOctalString(mode & 0777) + " lets group or others in (expected 600)");
        }
        final long size = (Long) attributes.get("size");
        if (size < RegionDescriptor.headerLength(0) || size > RegionDescriptor.MAX_FILE_LENGTH) {
            throw new RegionRefusedException(path, Reason.NOT_A_REGION, "file of " + size + " bytes");
        }
        final MappedByteBuffer mapping;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            // Map what the file holds now, not what the header claims: the header is checked against it.
            final long mapped = channel.size();
            if (mapped < RegionDescriptor.headerLength(0) || mapped > RegionDescriptor.MAX_FILE_LENGTH) {
                throw new RegionRefusedException(path, Reason.NOT_A_REGION, "file of " + mapped + " bytes");
            }
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, mapped);
        } catch (NoSuchFileException e) {
            throw new RegionRefusedException(path, Reason.MISSING, "vanished while mapping");
        }
        mapping.order(ByteOrder.LITTLE_ENDIAN);
        final long magic = (long) LONG.getAcquire(mapping, MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new RegionRefusedException(path, Reason.NOT_A_REGION,
                    "magic 0x" + Long.toHexString(magic) + " (expected 0x" + Long.toHexString(MAGIC) + ")");
        }
        final int version = (int) INT.get(mapping, VERSION_OFFSET);
        if (version != RegionDescriptor.LAYOUT_VERSION) {
            throw new RegionRefusedException(path, Reason.VERSION,
                    "layout version " + version + " (this is " + RegionDescriptor.LAYOUT_VERSION + ")");
        }
        final int headerUid = (int) INT.get(mapping, OWNER_UID_OFFSET);
        if (headerUid != fileUid) {
            throw new RegionRefusedException(path, Reason.FOREIGN_OWNER,
                    "header names uid " + headerUid + ", the file belongs to uid " + fileUid);
        }
        final int capacity = (int) INT.get(mapping, RING_CAPACITY_OFFSET);
        final int slotSize = (int) INT.get(mapping, SLOT_SIZE_OFFSET);
        final int slotCount = (int) INT.get(mapping, SLOT_COUNT_OFFSET);
        final String problem = RegionDescriptor.checkSizes(capacity, slotSize, slotCount);
        if (problem != null) {
            throw new RegionRefusedException(path, Reason.SIZES, problem);
        }
        final long expected = RegionDescriptor.fileLength(capacity, slotSize, slotCount);
        final int headerLength = (int) INT.get(mapping, HEADER_LENGTH_OFFSET);
        final long fileLength = (long) LONG.get(mapping, FILE_LENGTH_OFFSET);
        if (headerLength != RegionDescriptor.headerLength(slotCount) || fileLength != expected
                || expected > mapping.capacity()) {
            throw new RegionRefusedException(path, Reason.SIZES, "header length " + headerLength
                    + ", file length " + fileLength + " in the header, " + mapping.capacity()
                    + " bytes mapped; the sizes need " + expected);
        }
        final long pid = (long) LONG.get(mapping, OWNER_PID_OFFSET);
        final long start = (long) LONG.get(mapping, OWNER_START_TIME_OFFSET);
        if (!ProcessLiveness.isAlive(pid, start)) {
            throw new RegionRefusedException(path, Reason.OWNER_DEAD,
                    "owner pid " + pid + " started at " + start + " is no longer running");
        }
        final int state = (int) INT.getVolatile(mapping, STATE_OFFSET);
        if (state != RegionDescriptor.STATE_READY) {
            throw new RegionRefusedException(path, Reason.CLOSED, "state " + state
                    + (state == RegionDescriptor.STATE_FAILED ? " (failed)" : " (closed)"));
        }
        return new ShmRegion(path, doorbellPath(dir, name), name, false, mapping,
                new RegionSizes(capacity, slotSize, slotCount), pid, start);
    }

    /** @return {@code <dir>/jofi-<name>.region} */
    public static Path regionPath(Path dir, String name) {
        return dir.resolve("jofi-" + name + ".region");
    }

    /** @return {@code <dir>/jofi-<name>.bell}, the owner's {@link Doorbell} socket */
    public static Path doorbellPath(Path dir, String name) {
        return dir.resolve("jofi-" + name + ".bell");
    }

    /**
     * @throws IllegalArgumentException unless {@code name} matches
     *                                  {@code [A-Za-z0-9_][A-Za-z0-9_.-]{0,63}} (no path separators,
     *                                  no leading dot: names come from peers)
     */
    public static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("shm region name '" + name
                    + "' is not 1-64 characters of [A-Za-z0-9_.-] starting with a letter, digit or _");
        }
    }

    /** @return the ring (owner: consumer side; peer: producer side) */
    public MpscRing ring() {
        return ring;
    }

    /** @return the bounce buffers */
    public BounceSlots bounceSlots() {
        return slots;
    }

    /** @return the whole mapping (little-endian, absolute offsets of {@link RegionDescriptor}) */
    public ByteBuffer mapping() {
        return mapping.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** @return the sizes */
    public RegionSizes sizes() {
        return sizes;
    }

    /** @return the region name */
    public String name() {
        return name;
    }

    /** @return the region file */
    public Path path() {
        return path;
    }

    /** @return the owner's doorbell socket path */
    public Path doorbellPath() {
        return doorbellPath;
    }

    /** @return whether this process created (owns) the region */
    public boolean isOwner() {
        return owner;
    }

    /** @return the owner's pid */
    public long ownerPid() {
        return ownerPid;
    }

    /** @return the owner's start time ({@link ProcessLiveness#startTime}) */
    public long ownerStartTime() {
        return ownerStartTime;
    }

    /** @return whether the owner still runs (pid and start time), checked now */
    public boolean isOwnerAlive() {
        return ProcessLiveness.isAlive(ownerPid, ownerStartTime);
    }

    /** @return whether the owner process is stopped ({@link ProcessLiveness#isStopped}); reads /proc */
    public boolean isOwnerStopped() {
        return ProcessLiveness.isStopped(ownerPid);
    }

    /** @return the state word as the file says now ({@link RegionDescriptor#STATE_READY} ...) */
    public int state() {
        return (int) INT.getVolatile(mapping, STATE_OFFSET);
    }

    /**
     * Owner: marks the region CLOSED and deletes its file and doorbell path. Peer: forgets the
     * region. Idempotent. The mapping goes with the garbage collector (see class comment).
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (owner) {
            if (Files.size(path) >= mapping.capacity()) {
                // not when the file was truncated under us: the store would fault (docs/SHM-LAYOUT.md "Bad input, faults, security")
                INT.setVolatile(mapping, STATE_OFFSET, RegionDescriptor.STATE_CLOSED);
            }
            try {
                Files.deleteIfExists(path);
            } finally {
                Files.deleteIfExists(doorbellPath);
            }
        }
    }

    @Override
    public String toString() {
        return "ShmRegion[" + path + (owner ? ", owner" : ", peer of pid " + ownerPid) + ", " + sizes + "]";
    }
}
