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
 * zombie is dead, as for the regions), and every chosen name's link ({@code jofi-<N>.name})
 * whose target region's pid is no longer alive.
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
                    if (deadNameLink(f)) {
                        removed++;
                    }
                    continue; // a chosen name (ShmAlias): its digits are no pid; its link's target has one
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

    /**
     * Removes a chosen name's link ({@link ShmAlias}) whose endpoint's process is dead: a link
     * of this user to {@code jofi-<pid>-<domain>-<endpoint>.region} whose {@code <pid>} no
     * longer runs (a {@code kill -9} closed nothing). Anything else — another user's file, a
     * regular file, a link to something else, a live pid — is left alone.
     *
     * @return whether it removed the link
     */
    private static boolean deadNameLink(Path f) {
        try {
            if (!Files.isSymbolicLink(f)
                    || !Files.getAttribute(f, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS).equals(ProcessLiveness.selfUid())) {
                return false;
            }
            Path target = Files.readSymbolicLink(f).getFileName();
            String t = target == null ? "" : target.toString();
            long pid = ShmNames.pidOf(t);
            if (!t.endsWith(".region") || pid <= 0 || pid == ProcessHandle.current().pid()
                    || ProcessLiveness.startTime(pid) != ProcessLiveness.NO_PROCESS) {
                return false;
            }
            return Files.deleteIfExists(f);
        } catch (IOException | RuntimeException e) {
            return false; // gone meanwhile, or unreadable: its next claim decides
        }
    }
}
