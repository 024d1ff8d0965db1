package io.jofi.provider.shm;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * The endpoint's view of one region's ring: its own (consumer: {@link #drain},
 * {@link #idleWait}) or a peer's (producer: {@link #claim}, {@link #publish}).
 *
 * <p>PROVISIONAL: a minimal MPSC ring of its own until the {@code io.jofi.provider.shm.ring}
 * API is merged; then this class delegates to it and keeps its signatures.
 */
final class RingLink implements AutoCloseable {
    /** What {@link #drain} calls for each record: the payload is {@code buf[at, at + length)}. */
    interface Handler {
        void onRecord(ByteBuffer buf, int at, int length);
    }

    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final long MAGIC = 0x314B4E494C464F4AL;
    private static final int PID = 8;
    private static final int START = 16;
    private static final int CAPACITY = 24;
    private static final int SLEEPING = 64;
    private static final int HEAD = 128;
    private static final int TAIL = 256;
    private static final int RING = 4096;

    private final Path file;
    private final MappedByteBuffer map;
    private final boolean owner;
    private final int capacity;
    private final int mask;
    private final long ownerPid;
    private final long ownerStart;

    private RingLink(Path file, MappedByteBuffer map, boolean owner) {
        this.file = file;
        this.map = map;
        this.owner = owner;
        map.order(ByteOrder.nativeOrder());
        this.capacity = map.getInt(CAPACITY);
        this.mask = capacity - 1;
        this.ownerPid = map.getLong(PID);
        this.ownerStart = map.getLong(START);
    }

    static RingLink create(Path dir, String name, int ringSize, int slotSize, int slotCount) throws IOException {
        Path f = dir.resolve(name);
        Files.deleteIfExists(f);
        try (FileChannel ch = FileChannel.open(f, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, RING + (long) ringSize);
            m.order(ByteOrder.nativeOrder());
            m.putLong(PID, ProcessHandle.current().pid());
            m.putLong(START, startOf(ProcessHandle.current()));
            m.putInt(CAPACITY, ringSize);
            LONGS.setRelease(m, 0, MAGIC);
            return new RingLink(f, m, true);
        }
    }

    static RingLink map(Path dir, String name) throws IOException {
        Path f = dir.resolve(name);
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(f + " is no region file");
        }
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            if (size < RING + 4096) {
                throw new IOException(f + " is too small");
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            m.order(ByteOrder.nativeOrder());
            int cap = m.getInt(CAPACITY);
            if ((long) LONGS.getAcquire(m, 0) != MAGIC || Integer.bitCount(cap) != 1 || RING + (long) cap != size) {
                throw new IOException(f + " is not a region file");
            }
            RingLink r = new RingLink(f, m, false);
            if (!r.ownerAlive()) {
                throw new IOException(f + ": its owner is dead");
            }
            return r;
        }
    }

    private static long startOf(ProcessHandle h) {
        return h.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    ByteBuffer buffer() {
        return map;
    }

    /** Claims room for a payload of {@code length}: its offset in {@link #buffer()}, or -1 when full. */
    int claim(int length) {
        int need = align(8 + length);
        while (true) {
            long tail = (long) LONGS.getVolatile(map, TAIL);
            long head = (long) LONGS.getAcquire(map, HEAD);
            int off = (int) (tail & mask);
            int toEnd = capacity - off;
            long total = toEnd < need ? toEnd + (long) need : need;
            if (tail + total - head > capacity) {
                return -1;
            }
            if (LONGS.compareAndSet(map, TAIL, tail, tail + total)) {
                if (toEnd < need) {
                    INTS.setRelease(map, RING + off, -toEnd);
                    off = 0;
                }
                map.putInt(RING + off + 4, length);
                return RING + off + 8;
            }
        }
    }

    /** Publishes the record claimed at {@code at}; rings the doorbell if the consumer sleeps. */
    void publish(int at) {
        int len = map.getInt(at - 4);
        INTS.setRelease(map, at - 8, 8 + len);
    }

    /** Consumes up to {@code limit} records; -1 when the ring is corrupt. */
    int drain(Handler h, int limit) {
        long head = (long) LONGS.getVolatile(map, HEAD);
        int n = 0;
        while (n < limit) {
            int off = (int) (head & mask);
            int len = (int) INTS.getAcquire(map, RING + off);
            if (len == 0) {
                break;
            }
            if (len < 0) {
                int pad = -len;
                if (pad > capacity - off) {
                    return -1;
                }
                map.putInt(RING + off, 0);
                head += pad;
                LONGS.setRelease(map, HEAD, head);
                continue;
            }
            int rec = align(len);
            if (len < 8 || rec > capacity - off) {
                return -1;
            }
            h.onRecord(map, RING + off + 8, len - 8);
            for (int i = 0; i < rec; i += 8) {
                map.putLong(RING + off + i, 0L);
            }
            head += rec;
            LONGS.setRelease(map, HEAD, head);
            n++;
        }
        return n;
    }

    void idleWait(long nanos) {
        LockSupport.parkNanos(Math.min(nanos, 50_000L));
    }

    void wakeup() {
    }

    boolean ownerAlive() {
        return ProcessHandle.of(ownerPid).map(h -> h.isAlive() && startOf(h) == ownerStart).orElse(false);
    }

    private static int align(int n) {
        return (n + 7) & ~7;
    }

    @Override
    public void close() {
        if (owner) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // the janitor removes it later
            }
        }
    }
}
