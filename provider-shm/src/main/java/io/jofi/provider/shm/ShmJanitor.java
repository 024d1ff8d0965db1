package io.jofi.provider.shm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import io.jofi.provider.shm.ring.ProcessLiveness;
import io.jofi.provider.shm.ring.RegionJanitor;

/**
 * Removes what dead processes left in a region directory: region files and their doorbell
 * sockets through {@link RegionJanitor} (owner pid and start time), then every other file
 * named {@code jofi-<pid>-...} (registration tables, shareable buffers) whose {@code <pid>} is
 * no longer alive (a pid that is alive keeps its files, even if reused by another program; a
 * zombie is dead, as for the regions).
 * Runs once per directory per JVM, when the first domain opens, and again when a peer is
 * found dead.
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
        try {
            removed += RegionJanitor.clean(dir);
        } catch (IOException | RuntimeException e) {
            // an unreadable directory: creating the region will say what is wrong
        }
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "jofi-*")) {
            for (Path f : ds) {
                String n = f.getFileName().toString();
                if (n.endsWith(".region") || n.endsWith(".bell")) {
                    continue; // RegionJanitor's, decided by pid and start time
                }
                if (n.endsWith(".name")) {
                    continue; // a chosen name (ShmAlias): its digits are no pid; a stale one goes at its next claim
                }
                long pid = ShmNames.pidOf(n);
                // a zombie counts as dead, as for RegionJanitor: a process killed but not yet
                // reaped must not keep its table and buffers after its region went
                if (pid <= 0 || pid == self || ProcessLiveness.startTime(pid) != ProcessLiveness.NO_PROCESS) {
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
