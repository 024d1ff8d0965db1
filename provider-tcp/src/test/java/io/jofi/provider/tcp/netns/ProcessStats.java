package io.jofi.provider.tcp.netns;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's resident memory, threads and open descriptors, from /proc/self, as one line. */
final class ProcessStats {
    private ProcessStats() {
    }

    /** {@code stats LABEL rss=KB threads=N fds=N}. */
    static String line(String label) {
        long rss = -1;
        long threads = -1;
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    rss = Long.parseLong(l.replaceAll("[^0-9]", ""));
                } else if (l.startsWith("Threads:")) {
                    threads = Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/status: " + e, e);
        }
        String[] fds = new File("/proc/self/fd").list();
        return "stats " + label + " rss=" + rss + " threads=" + threads + " fds=" + (fds == null ? -1 : fds.length);
    }
}
