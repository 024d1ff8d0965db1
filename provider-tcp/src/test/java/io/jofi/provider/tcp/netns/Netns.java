package io.jofi.provider.tcp.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs {@code ip} (iproute2) for the namespace tests and owns the clean-up: every namespace
 * this JVM made is named {@code jofi-t-<pid>-...} and removed by {@link NetnsPair#close()} and,
 * should a test not get there, by a JVM shutdown hook; at the first use, namespaces of earlier
 * runs whose JVM is gone (a killed run) are removed. {@link #assumeUsable()} skips the calling
 * test, saying why, where namespaces cannot be made (not root, no iproute2, a kernel without them).
 */
final class Netns {
    /** The prefix of every namespace the tests make. */
    static final String PREFIX = "jofi-t-";
    private static final Set<String> MADE = ConcurrentHashMap.newKeySet();
    private static final Set<Process> STARTED = ConcurrentHashMap.newKeySet();
    private static volatile String unusable;
    private static volatile boolean checked;

    private Netns() {
    }

    /** Skips the caller (a JUnit assumption with the reason) where this machine cannot make namespaces. */
    static synchronized void assumeUsable() {
        if (!checked) {
            checked = true;
            unusable = probe();
            if (unusable == null) {
                removeStale();
                Runtime.getRuntime().addShutdownHook(new Thread(Netns::removeAll, "netns-cleanup"));
            } else {
                System.err.println("[jofi] network namespace tests SKIPPED: " + unusable);
            }
        }
        Assumptions.assumeTrue(unusable == null, () -> "network namespaces cannot be made here: " + unusable);
    }

    private static String probe() {
        String name = PREFIX + ProcessHandle.current().pid() + "-probe";
        try {
            Result r = run(List.of("ip", "netns", "add", name));
            if (r.status != 0) {
                return "'ip netns add' failed (root and iproute2 are needed): " + r.output.strip();
            }
            run(List.of("ip", "netns", "del", name));
            return null;
        } catch (IOException e) {
            return "iproute2's 'ip' cannot be run (apt-get install iproute2): " + e.getMessage();
        }
    }

    /** Namespaces {@code jofi-t-<pid>-...} of a JVM that no longer runs: a killed run's, removed with their processes. */
    private static void removeStale() {
        try {
            for (String line : run(List.of("ip", "netns", "list")).output.split("\n")) {
                String name = line.split(" ")[0].trim();
                if (!name.startsWith(PREFIX)) {
                    continue;
                }
                String rest = name.substring(PREFIX.length());
                int dash = rest.indexOf('-');
                long pid;
                try {
                    pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                } catch (NumberFormatException e) {
                    pid = -1;
                }
                if (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue; // another test JVM's, still running
                }
                for (String p : run(List.of("ip", "netns", "pids", name)).output.split("\\s+")) {
                    if (!p.isBlank()) {
                        ProcessHandle.of(Long.parseLong(p.trim())).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
                Result r = run(List.of("ip", "netns", "del", name));
                System.err.println("[jofi] removed the left-over namespace " + name + " of an earlier run"
                        + (r.status == 0 ? "" : ": " + r.output.strip()));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list the network namespaces: " + e, e);
        }
    }

    /** A new namespace named {@code jofi-t-<pid>-<tag>} with its loopback up. */
    static String add(String tag) {
        String name = PREFIX + ProcessHandle.current().pid() + "-" + tag;
        MADE.add(name);
        check("ip", "netns", "add", name);
        check("ip", "-n", name, "link", "set", "lo", "up");
        return name;
    }

    /** Removes {@code name} after ending the processes this JVM started in it. */
    static void delete(String name) {
        if (MADE.remove(name)) {
            try {
                Result r = run(List.of("ip", "netns", "del", name));
                if (r.status != 0 && !r.output.contains("No such file")) {
                    System.err.println("[jofi] ip netns del " + name + ": " + r.output.strip());
                }
            } catch (IOException e) {
                System.err.println("[jofi] ip netns del " + name + ": " + e);
            }
        }
    }

    /** The shutdown hook: every process started and every namespace made by this JVM, gone. */
    static void removeAll() {
        for (Process p : STARTED) {
            p.destroyForcibly();
        }
        for (String name : List.copyOf(MADE)) {
            delete(name);
        }
    }

    /** Remembers {@code p} for the shutdown hook. */
    static void started(Process p) {
        STARTED.add(p);
        p.onExit().thenRun(() -> STARTED.remove(p));
    }

    /** Runs {@code command}; fails the test with its output when it does not exit 0 within 10 s. */
    static String check(String... command) {
        try {
            Result r = run(List.of(command));
            if (r.status != 0) {
                throw new AssertionError(String.join(" ", command) + " failed (" + r.status + "): " + r.output);
            }
            return r.output;
        } catch (IOException e) {
            throw new AssertionError(String.join(" ", command) + ": " + e, e);
        }
    }

    /** Exit status and merged output of one command. */
    record Result(int status, String output) {
    }

    static Result run(List<String> command) throws IOException {
        Path out = Files.createTempFile("jofi-netns", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out after 10 s");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted running " + command, e);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** {@code ip netns exec ns} before {@code command}. */
    static List<String> in(String ns, List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        all.addAll(command);
        return all;
    }
}
