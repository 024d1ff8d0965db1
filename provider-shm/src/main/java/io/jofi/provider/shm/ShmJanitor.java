package io.jofi.provider.shm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Removes what dead processes left in a region directory: every file named
 * {@code jofi-<pid>-...} (region files, doorbell sockets, registration tables, shareable
 * buffers) whose {@code <pid>} is no longer alive. A pid that is alive keeps its files even if
 * it was reused by another program (the region's own liveness check, pid plus start time,
 * refuses such files when mapped). Runs once per directory per JVM, when the first domain opens.
 */
final class ShmJanitor {
    private static final Set<Path> CLEANED = ConcurrentHashMap.newKeySet();

    private ShmJanitor() {
    }

    /** Cleans {@code dir} unless this JVM did already. */
    static void cleanOnce(Path dir) {
        if (CLEANED.add(dir.toAbsolutePath())) {
            clean(dir);
        }
    }

    /**
     * Removes the files of dead processes from {@code dir}.
     *
     * @return how many files were removed
     */
    static int clean(Path dir) {
        int removed = 0;
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "jofi-*")) {
            for (Path f : ds) {
                long pid = ShmNames.pidOf(f.getFileName().toString());
                if (pid <= 0 || pid == self || ProcessHandle.of(pid).isPresent()) {
                    continue;
                }
                try {
                    if (Files.deleteIfExists(f)) {
                        removed++;
                    }
                } catch (IOException e) {
                    // another user's file or a race with another janitor: leave it
                }
            }
        } catch (IOException e) {
            // an unreadable directory: creating the region will say what is wrong
        }
        return removed;
    }
}
