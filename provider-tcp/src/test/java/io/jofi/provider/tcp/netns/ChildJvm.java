package io.jofi.provider.tcp.netns;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM running one of this package's mains on the test class path:
 * small heap, serial GC, quick start (C1 only), and {@code java.base/sun.nio.ch} exported so
 * that the tcp provider sets {@code TCP_USER_TIMEOUT} as under {@code ./jofi}.
 */
final class ChildJvm {
    private ChildJvm() {
    }

    /** {@code java [flags] -D... -cp CP main args...}; {@code properties} are {@code name=value} system properties. */
    static List<String> command(Class<?> main, List<String> properties, List<String> args) {
        List<String> c = new ArrayList<>(List.of(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED"));
        for (String p : properties) {
            c.add("-D" + p);
        }
        c.add("-cp");
        c.add(System.getProperty("java.class.path"));
        c.add(main.getName());
        c.addAll(args);
        return c;
    }
}
