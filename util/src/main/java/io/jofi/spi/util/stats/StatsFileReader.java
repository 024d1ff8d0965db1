package io.jofi.spi.util.stats;

import static io.jofi.spi.util.stats.StatsFileDescriptor.*;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads another process's counters file without attaching to it: maps it read-only and takes
 * a snapshot of its allocated counters (label, type, value), as AeronStat reads a driver's
 * counters.
 */
public final class StatsFileReader {
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    /** One counter as read: its record, type, label and value. */
    public record CounterValue(int id, int typeId, String label, long value) {
    }

    /**
     * A file as read: whose it is, its counters in record order, and the descriptions of their
     * owners (owner to text, e.g. {@code "tcp/TcpEndpoint 3"} to
     * {@code "local 127.0.0.1:9228 peer 127.0.0.1:41234"}: {@code CounterGroup.describeEnds}).
     */
    public record Snapshot(Path path, long pid, long startMillis, List<CounterValue> counters,
            Map<String, String> descriptions) {
        /** A snapshot without descriptions. */
        public Snapshot(Path path, long pid, long startMillis, List<CounterValue> counters) {
            this(path, pid, startMillis, counters, Map.of());
        }
    }

    private StatsFileReader() {
    }

    /**
     * The counters of file {@code path} now.
     *
     * @throws IOException when it cannot be read, or is not a whole counters file of this layout
     */
    public static Snapshot read(Path path) throws IOException {
        MappedByteBuffer b;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            if (ch.size() < HEADER_LENGTH) {
                throw new IOException(path + ": not a counters file (" + ch.size() + " bytes)");
            }
            b = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
        }
        b.order(ByteOrder.nativeOrder());
        if ((long) StatsCounter.LONG.getAcquire(b, MAGIC_OFFSET) != MAGIC) {
            throw new IOException(path + ": not a counters file yet (no magic)");
        }
        if (b.getInt(VERSION_OFFSET) != LAYOUT_VERSION) {
            throw new IOException(path + ": layout version " + b.getInt(VERSION_OFFSET) + ", this reader knows "
                    + LAYOUT_VERSION);
        }
        int capacity = b.getInt(CAPACITY_OFFSET);
        if (capacity < 0 || fileLength(capacity) > b.capacity()) {
            throw new IOException(path + ": capacity " + capacity + " does not fit the file");
        }
        List<CounterValue> counters = new ArrayList<>();
        Map<String, String> descriptions = new LinkedHashMap<>();
        for (int id = 0; id < capacity; id++) {
            int meta = metadataOffset(id);
            int state = (int) INT.getAcquire(b, meta + STATE_OFFSET);
            if (state == STATE_FREE) {
                break; // records are taken in order: nothing after the first never-used one
            }
            if (state != STATE_ALLOCATED) {
                continue;
            }
            int length = Math.min(Math.max(b.getInt(meta + LABEL_LENGTH_OFFSET), 0), MAX_LABEL_LENGTH);
            byte[] label = new byte[length];
            b.get(meta + LABEL_OFFSET, label);
            String text = new String(label, StandardCharsets.UTF_8);
            if (b.getInt(meta + KIND_OFFSET) == KIND_DESCRIPTION) {
                int colon = text.indexOf(": ");
                descriptions.put(colon < 0 ? "" : text.substring(0, colon), text.substring(colon + 2));
                continue;
            }
            long value = (long) StatsCounter.LONG.getAcquire(b, valueOffset(capacity, id));
            counters.add(new CounterValue(id, b.getInt(meta + TYPE_ID_OFFSET), text, value));
        }
        return new Snapshot(path, b.getLong(PID_OFFSET), b.getLong(START_TIME_OFFSET), List.copyOf(counters),
                java.util.Collections.unmodifiableMap(descriptions));
    }

    /** The header's pid and start time, or null when {@code path} is no readable counters file. */
    static long[] owner(Path path) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            if (ch.size() < HEADER_LENGTH) {
                return null;
            }
            ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.nativeOrder());
            ch.read(b, 0);
            if (b.getLong(MAGIC_OFFSET) != MAGIC) {
                return null;
            }
            return new long[] {b.getLong(PID_OFFSET), b.getLong(START_TIME_OFFSET)};
        } catch (IOException e) {
            return null;
        }
    }
}
