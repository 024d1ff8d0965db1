package io.jofi.spi.util.stats;

import static io.jofi.spi.util.stats.StatsFileDescriptor.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;

/**
 * The counters file of this JVM (the writer side): maps it, hands out counters and takes
 * them back (the control path, under this object's lock), and deletes the file when the JVM
 * exits. The data path never comes here: it holds a {@link StatsCounter}.
 *
 * <p>{@link #process()} is the one file of the JVM, created on first use in
 * {@link StatsSettings#directory()}; on creating it, the files of dead processes there are
 * removed ({@link StatsDirectory#removeStale}). With statistics off, or when the file cannot
 * be made, it is a file of none: counters are handed out, in no file (and with statistics
 * off, {@link StatsCounter} updates do nothing).
 */
public final class StatsFile {
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    /** A freed record is reused only this long after, so a late write of its old owner lands harmlessly. */
    static final long REUSE_DELAY_NANOS = 1_000_000_000L;

    private static volatile StatsFile process;

    private final Path path;
    private final ByteBuffer buffer;
    private final int capacity;
    /** Counters in no file (statistics off, file full) live in slabs of this many value records. */
    private static final int SLAB_RECORDS = 256;
    private ByteBuffer slab;
    private int slabNext = SLAB_RECORDS;
    private final ArrayDeque<long[]> reclaimed = new ArrayDeque<>(); // {id, freedAtNanos}
    private int nextUnused;

    private StatsFile(Path path, ByteBuffer buffer, int capacity) {
        this.path = path;
        this.buffer = buffer;
        this.capacity = capacity;
    }

    /** This JVM's counters file (made on first call; a file of none when statistics are off). */
    public static StatsFile process() {
        StatsFile f = process;
        if (f == null) {
            synchronized (StatsFile.class) {
                f = process;
                if (f == null) {
                    f = StatsSettings.enabled() ? openOrNone(StatsSettings.directory(), StatsSettings.capacity()) : none();
                    process = f;
                }
            }
        }
        return f;
    }

    /** A file of none: every counter counts and is in no file. */
    public static StatsFile none() {
        return new StatsFile(null, null, 0);
    }

    private static StatsFile openOrNone(Path dir, int capacity) {
        try {
            StatsFile f = create(dir, ProcessHandle.current().pid(), StatsDirectory.startMillis(ProcessHandle.current()),
                    capacity);
            Path p = f.path;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(p), "jofi-stats-cleanup"));
            return f;
        } catch (IOException | UncheckedIOException | SecurityException e) {
            System.err.println("jofi: no counters file in " + dir + " (" + e + "); statistics are not visible to jofi stat");
            return none();
        }
    }

    /**
     * Creates the counters file of process {@code pid} in {@code dir} (replacing one a dead
     * process of the same pid left), after removing the files of dead processes there.
     * Deleting it is the caller's ({@link #delete()}).
     */
    public static StatsFile create(Path dir, long pid, long startMillis, int capacity) throws IOException {
        Files.createDirectories(dir);
        StatsDirectory.removeStale(dir);
        Path path = dir.resolve(fileName(pid));
        Files.deleteIfExists(path);
        long length = fileLength(capacity);
        MappedByteBuffer b;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            b = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        b.order(ByteOrder.nativeOrder());
        b.putInt(VERSION_OFFSET, LAYOUT_VERSION);
        b.putInt(CAPACITY_OFFSET, capacity);
        b.putLong(PID_OFFSET, pid);
        b.putLong(START_TIME_OFFSET, startMillis);
        b.putInt(METADATA_LENGTH_OFFSET, METADATA_LENGTH);
        b.putInt(VALUE_LENGTH_OFFSET, VALUE_LENGTH);
        b.putInt(MAX_LABEL_OFFSET, MAX_LABEL_LENGTH);
        StatsCounter.LONG.setRelease(b, MAGIC_OFFSET, MAGIC); // last: a reader sees a whole header or none
        return new StatsFile(path, b, capacity);
    }

    /** Whether counters land in a file. */
    public boolean isLive() {
        return buffer != null;
    }

    /** The file, or null for a file of none. */
    public Path path() {
        return path;
    }

    /**
     * A new counter at 0 labelled {@code label} (cut to {@link StatsFileDescriptor#MAX_LABEL_LENGTH}
     * bytes). When the file is full or there is none, a counter in no file.
     */
    public synchronized StatsCounter allocate(int typeId, String label) {
        return allocate(typeId, KIND_COUNTER, label);
    }

    /** As {@link #allocate(int, String)}, a record of {@code kind} ({@code StatsFileDescriptor.KIND_*}). */
    synchronized StatsCounter allocate(int typeId, int kind, String label) {
        int id = buffer == null ? -1 : takeRecord();
        if (id < 0) {
            return unseen(label);
        }
        int meta = metadataOffset(id);
        int value = valueOffset(capacity, id);
        StatsCounter.LONG.setRelease(buffer, value, 0L);
        byte[] bytes = labelBytes(label);
        buffer.putInt(meta + TYPE_ID_OFFSET, typeId);
        buffer.putInt(meta + KIND_OFFSET, kind);
        buffer.putInt(meta + LABEL_LENGTH_OFFSET, bytes.length);
        buffer.put(meta + LABEL_OFFSET, bytes);
        INT.setRelease(buffer, meta + STATE_OFFSET, STATE_ALLOCATED); // last: readers see a whole record
        return new StatsCounter(buffer, value, id, label);
    }

    /**
     * A counter in no file: a value record of its own in a private slab, so that it costs what
     * a counter in the file costs (no false sharing either) and still counts for JMX and tests.
     */
    private StatsCounter unseen(String label) {
        if (slabNext == SLAB_RECORDS) {
            slab = ByteBuffer.allocateDirect(SLAB_RECORDS * VALUE_LENGTH).order(ByteOrder.nativeOrder());
            slabNext = 0;
        }
        return new StatsCounter(slab, slabNext++ * VALUE_LENGTH, -1, label);
    }

    private int takeRecord() {
        long[] oldest = reclaimed.peekFirst();
        if (oldest != null && System.nanoTime() - oldest[1] >= REUSE_DELAY_NANOS) {
            reclaimed.pollFirst();
            return (int) oldest[0];
        }
        return nextUnused < capacity ? nextUnused++ : -1;
    }

    /** Takes {@code counter} back: readers no longer see it; its record is reused later. */
    public synchronized void free(StatsCounter counter) {
        int id = counter.id();
        if (buffer == null || id < 0) {
            return;
        }
        int meta = metadataOffset(id);
        if ((int) INT.getAcquire(buffer, meta + STATE_OFFSET) != STATE_ALLOCATED) {
            return; // freed twice
        }
        INT.setRelease(buffer, meta + STATE_OFFSET, STATE_RECLAIMED);
        reclaimed.addLast(new long[] {id, System.nanoTime()});
    }

    /** Deletes the file (a JVM does at exit); counters keep working, unseen. */
    public void delete() {
        if (path != null) {
            deleteQuietly(path);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a file left behind is removed by the next reader that finds its process dead
        }
    }
}
