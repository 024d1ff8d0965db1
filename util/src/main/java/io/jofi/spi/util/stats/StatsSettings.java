package io.jofi.spi.util.stats;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where and whether this JVM keeps its counters file, from system properties:
 * {@code jofi.stats} ({@code false} turns statistics off: no file, no MBeans, and counter
 * updates do nothing; read once, at class initialisation; default on), {@code jofi.stats.dir} (the directory; default {@code /dev/shm} where it
 * is a writable directory, else {@code java.io.tmpdir}) and {@code jofi.stats.capacity}
 * (counters at most; default 4096, a 1 MiB file), {@code jofi.stats.jmx} ({@code false}: no
 * MBeans; default on when statistics are).
 */
public final class StatsSettings {
    public static final String ENABLED_PROPERTY = "jofi.stats";
    public static final String DIRECTORY_PROPERTY = "jofi.stats.dir";
    public static final String CAPACITY_PROPERTY = "jofi.stats.capacity";
    public static final String JMX_PROPERTY = "jofi.stats.jmx";
    public static final int DEFAULT_CAPACITY = 4096;

    private StatsSettings() {
    }

    /** Whether statistics are on ({@code -Djofi.stats=false} turns them off). */
    public static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty(ENABLED_PROPERTY, "true").trim());
    }

    /** Whether counter groups are JMX MBeans too ({@code -Djofi.stats.jmx=false} or statistics off: not). */
    public static boolean jmxEnabled() {
        return enabled() && !"false".equalsIgnoreCase(System.getProperty(JMX_PROPERTY, "true").trim());
    }

    /** The directory of the counters files: every JOFI JVM and {@code jofi stat} must agree on it. */
    public static Path directory() {
        String dir = System.getProperty(DIRECTORY_PROPERTY);
        if (dir != null && !dir.isBlank()) {
            return Path.of(dir);
        }
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return shm;
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Records in a new file. */
    public static int capacity() {
        try {
            int c = Integer.parseInt(System.getProperty(CAPACITY_PROPERTY, String.valueOf(DEFAULT_CAPACITY)).trim());
            return c > 0 ? c : DEFAULT_CAPACITY;
        } catch (NumberFormatException e) {
            return DEFAULT_CAPACITY;
        }
    }
}
