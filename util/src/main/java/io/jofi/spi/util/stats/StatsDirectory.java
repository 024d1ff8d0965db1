package io.jofi.spi.util.stats;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The counters files of a directory: which belong to live processes, and removing those of
 * dead ones. A file's process is alive when its pid runs and started when the file's header
 * says (a pid reused by another process does not keep a dead JVM's file).
 */
public final class StatsDirectory {
    /** Ends of a process's start time as two views of it may round differently. */
    private static final long START_SLACK_MILLIS = 1000;
    /** A file without a header yet is its writer's, being made: left alone this long. */
    private static final long YOUNG_FILE_MILLIS = 10_000;

    private StatsDirectory() {
    }

    /** The counters files in {@code dir} whose process is alive, sorted by pid; the others are removed. */
    public static List<Path> live(Path dir) throws IOException {
        removeStale(dir);
        List<Path> files = new ArrayList<>();
        for (Path p : counterFiles(dir)) {
            if (Files.exists(p)) {
                files.add(p);
            }
        }
        files.sort((a, b) -> Long.compare(StatsFileDescriptor.pidOf(a.getFileName().toString()),
                StatsFileDescriptor.pidOf(b.getFileName().toString())));
        return files;
    }

    /**
     * Removes the counters files in {@code dir} whose process is dead.
     *
     * @return how many were removed
     */
    public static int removeStale(Path dir) throws IOException {
        int removed = 0;
        for (Path p : counterFiles(dir)) {
            if (isStale(p)) {
                try {
                    if (Files.deleteIfExists(p)) {
                        removed++;
                    }
                } catch (IOException e) {
                    // another user's file, or removed meanwhile: not ours to insist on
                }
            }
        }
        return removed;
    }

    /** Whether {@code file}'s process is dead (a file without a readable header counts when it is old). */
    static boolean isStale(Path file) {
        long[] owner = StatsFileReader.owner(file);
        if (owner == null) {
            try {
                return System.currentTimeMillis() - Files.getLastModifiedTime(file).toMillis() > YOUNG_FILE_MILLIS;
            } catch (IOException e) {
                return false;
            }
        }
        return !isAlive(owner[0], owner[1]);
    }

    /** Whether process {@code pid}, started at {@code startMillis}, still runs. */
    public static boolean isAlive(long pid, long startMillis) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive()) {
            return false;
        }
        long started = startMillis(h.get());
        return started == 0 || startMillis == 0 || Math.abs(started - startMillis) <= START_SLACK_MILLIS;
    }

    /** When a process started (epoch ms), or 0 when the system does not say. */
    static long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    private static List<Path> counterFiles(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return files;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir,
                StatsFileDescriptor.FILE_PREFIX + "*" + StatsFileDescriptor.FILE_SUFFIX)) {
            for (Path p : s) {
                if (StatsFileDescriptor.pidOf(p.getFileName().toString()) >= 0) {
                    files.add(p);
                }
            }
        }
        return files;
    }
}
