package io.jofi.spi.util.stats;

import java.nio.charset.StandardCharsets;

/**
 * The layout of a counters file ({@code jofi-stats-<pid>.dat}), every offset named once: the
 * writer ({@link StatsFile}) and the readers ({@link StatsFileReader}) use only these.
 *
 * <pre>
 *  0                                                             127
 * +---------------------------------------------------------------+
 * | header (128 B)                                                |
 * |  0 magic "JOFISTAT" (long, written last, release)            |
 * |  8 layout version (int)   12 capacity: records (int)         |
 * | 16 pid (long)             24 process start, epoch ms (long)  |
 * | 32 metadata record length (int)  36 value record length (int)|
 * | 40 label bytes at most (int)     44..127 reserved            |
 * +---------------------------------------------------------------+
 * | metadata record 0 (128 B)                                     |
 * |  0 state (int: 0 free, 1 allocated, -1 reclaimed; release)    |
 * |  4 type id (int)   8 label length (int)  12 kind (int)        |
 * | 16 label, UTF-8, up to 112 bytes                              |
 * +---------------------------------------------------------------+
 * | metadata record 1 ... capacity-1                              |
 * +---------------------------------------------------------------+
 * | value record 0 (128 B: two cache lines, as Aeron, so that      |
 * |  0 value (long, one writer, plain store / acquire load)      |
 * |  8..127 padding    no two values share a line or its prefetch pair)
 * +---------------------------------------------------------------+
 * | value record 1 ... capacity-1                                 |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * A record's kind is {@link #KIND_COUNTER} (0: a counter, its label {@code "<owner>: <name>"}) or
 * {@link #KIND_DESCRIPTION} (1: no counter but where its owner is, its label
 * {@code "<owner>: local 127.0.0.1:9228 peer 127.0.0.1:41234"}, its value unused); a reader of
 * files from before kinds existed (the field was reserved, 0) reads a description as a counter
 * at 0.
 *
 * <p>Metadata and values live in two regions (Aeron's split): a reader scanning labels never
 * touches a line a writer is updating. All numbers are in the machine's native byte order:
 * the file is read on the machine that wrote it.
 */
public final class StatsFileDescriptor {
    /** "JOFISTAT" as a long: a file whose magic differs is not read. */
    public static final long MAGIC = 0x4A4F46495354415FL;
    public static final int LAYOUT_VERSION = 1;

    public static final int HEADER_LENGTH = 128;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int CAPACITY_OFFSET = 12;
    public static final int PID_OFFSET = 16;
    public static final int START_TIME_OFFSET = 24;
    public static final int METADATA_LENGTH_OFFSET = 32;
    public static final int VALUE_LENGTH_OFFSET = 36;
    public static final int MAX_LABEL_OFFSET = 40;

    public static final int METADATA_LENGTH = 128;
    public static final int STATE_OFFSET = 0;
    public static final int TYPE_ID_OFFSET = 4;
    public static final int LABEL_LENGTH_OFFSET = 8;
    public static final int KIND_OFFSET = 12;
    public static final int LABEL_OFFSET = 16;
    public static final int MAX_LABEL_LENGTH = METADATA_LENGTH - LABEL_OFFSET;

    /** Two cache lines per value (Aeron's COUNTER_LENGTH): no false sharing, not even by the adjacent-line prefetcher. */
    public static final int VALUE_LENGTH = 128;

    public static final int STATE_FREE = 0;
    public static final int STATE_ALLOCATED = 1;
    public static final int STATE_RECLAIMED = -1;

    /** Record kinds: a counter, or its owner's description (addresses). */
    public static final int KIND_COUNTER = 0;
    public static final int KIND_DESCRIPTION = 1;

    /** Type ids: which kind of object a counter belongs to. */
    public static final int TYPE_PROVIDER = 1;
    public static final int TYPE_ENDPOINT = 2;
    public static final int TYPE_RECEIVE_QUEUE = 3;
    public static final int TYPE_COMPLETION_QUEUE = 4;
    public static final int TYPE_EVENT_QUEUE = 5;
    public static final int TYPE_OTHER = 99;

    /** File names: {@code jofi-stats-<pid>.dat}. */
    public static final String FILE_PREFIX = "jofi-stats-";
    public static final String FILE_SUFFIX = ".dat";

    private StatsFileDescriptor() {
    }

    /** Bytes of a file of {@code capacity} records. */
    public static long fileLength(int capacity) {
        return HEADER_LENGTH + (long) capacity * (METADATA_LENGTH + VALUE_LENGTH);
    }

    /** Where record {@code id}'s metadata starts. */
    public static int metadataOffset(int id) {
        return HEADER_LENGTH + id * METADATA_LENGTH;
    }

    /** Where record {@code id}'s value starts, in a file of {@code capacity} records. */
    public static int valueOffset(int capacity, int id) {
        return HEADER_LENGTH + capacity * METADATA_LENGTH + id * VALUE_LENGTH;
    }

    /** The file name of process {@code pid}. */
    public static String fileName(long pid) {
        return FILE_PREFIX + pid + FILE_SUFFIX;
    }

    /** The pid a file name names, or -1 when it is not a counters file's name. */
    public static long pidOf(String fileName) {
        if (!fileName.startsWith(FILE_PREFIX) || !fileName.endsWith(FILE_SUFFIX)) {
            return -1;
        }
        try {
            return Long.parseLong(fileName.substring(FILE_PREFIX.length(), fileName.length() - FILE_SUFFIX.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** {@code label} as UTF-8, cut to {@link #MAX_LABEL_LENGTH} bytes on a character boundary. */
    public static byte[] labelBytes(String label) {
        byte[] b = label.getBytes(StandardCharsets.UTF_8);
        if (b.length <= MAX_LABEL_LENGTH) {
            return b;
        }
        int n = MAX_LABEL_LENGTH;
        while (n > 0 && (b[n] & 0xC0) == 0x80) {
            n--; // do not cut a multi-byte character
        }
        return java.util.Arrays.copyOf(b, n);
    }
}
