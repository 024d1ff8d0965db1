package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.tools.CapturedRun;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jofi stat} beside a tcp MSG ping-pong, as a newcomer runs them: the server and the client
 * are JVMs of their own ({@code io.jofi.tools.PlainJvmMain pingpong}, with a short JIT warm-up and
 * blocking waits, kind to a loaded machine), and this JVM runs {@code stat -n -a} on their counters directory again and again while
 * they run — the code {@code ./jofi stat} prints with. Each side's measured endpoint shows its local
 * and peer address (the two sides' crosswise), unmarked; the warm-up's private endpoints and queues
 * show marked {@code (JIT warm-up)}, on both sides, and never with the measured port.
 */
class StatBesidePingpongTest {
    /** An owner line of {@code stat}: two spaces, the owner (maybe marked), its addresses once known. */
    private static final Pattern OWNER = Pattern.compile("^  (\\S+/\\S+ \\d+( \\(JIT warm-up\\))?)(  \\((.*)\\))?$");
    private static final Pattern ENDS = Pattern.compile("local (\\S+) peer (\\S+)");
    private static final Pattern PROCESS = Pattern.compile("^pid (\\d+) .*");

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Process pingpong(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Djofi.stats.dir=" + dir, "-cp", System.getProperty("java.class.path"), "io.jofi.tools.PlainJvmMain",
                "pingpong"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile()).start();
    }

    private String log(String name) {
        try {
            return Files.readString(dir.resolve(name + ".log"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** One owner line of one process, as {@code stat} printed it. */
    private record Owner(long pid, String owner, String ends) {
        boolean warmUp() {
            return owner.endsWith(" (JIT warm-up)");
        }
    }

    @Test
    void eachEndpointShowsItsAddressesAndTheWarmUpsAreMarked() throws Exception {
        String port = Integer.toString(freePort());
        String[] common = {"-p", "tcp", "-e", "msg", "-S", "64", "-I", "500", "-w", "10", "--jit-warmup", "400",
                "-c", "sread"};
        Process server = pingpong("server", concat(common, "-B", port, "-s", "127.0.0.1"));
        Set<Owner> seen = new TreeSet<>(java.util.Comparator.comparing(Owner::toString));
        Process client = null;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!log("server").contains("listening")) {
                assertTrue(server.isAlive(), () -> "the server ended: " + log("server"));
                assertTrue(System.nanoTime() < deadline, "the server does not listen");
                sample(seen);
                Thread.sleep(20);
            }
            client = pingpong("client", concat(common, "-P", port, "127.0.0.1"));
            while (client.isAlive() || server.isAlive()) {
                assertTrue(System.nanoTime() < deadline, () -> "the pair runs for more than 120 s: " + log("server") + log("client"));
                sample(seen);
                Thread.sleep(20);
            }
            Process c = client;
            assertEquals(0, c.exitValue(), () -> "client: " + log("client"));
            assertEquals(0, server.exitValue(), () -> "server: " + log("server"));
        } finally {
            server.destroyForcibly();
            if (client != null) {
                client.destroyForcibly();
            }
        }
        long serverPid = server.pid();
        long clientPid = client.pid();
        String all = seen.stream().map(Owner::toString).collect(Collectors.joining("\n"));
        // the measured pair: each side's endpoint with both addresses, crosswise, unmarked
        Owner atServer = measured(seen, serverPid, port, true);
        Owner atClient = measured(seen, clientPid, port, false);
        assertTrue(atServer != null && atClient != null, () -> "the measured endpoints with their addresses:\n" + all);
        Matcher s = ENDS.matcher(atServer.ends());
        Matcher c = ENDS.matcher(atClient.ends());
        assertTrue(s.matches() && c.matches(), all);
        assertEquals(s.group(1), c.group(2), "the server's local address is the client's peer");
        assertEquals(s.group(2), c.group(1), "the client's local address is the server's peer");
        // the warm-up's private objects: seen on both sides, marked, never at the measured port
        for (long pid : new long[] {serverPid, clientPid}) {
            assertTrue(seen.stream().anyMatch(o -> o.pid() == pid && o.warmUp() && o.owner().contains("Endpoint")),
                    () -> pid + " showed no marked warm-up endpoint:\n" + all);
        }
        for (Owner o : seen) {
            boolean atMeasuredPort = o.ends() != null && o.ends().contains(":" + port);
            assertFalse(o.warmUp() && atMeasuredPort, () -> "a warm-up object at the measured port: " + o + "\n" + all);
            // an unmarked endpoint with addresses is the measured one: once connected, at the measured port
            assertFalse(!o.warmUp() && o.ends() != null && seen.stream().noneMatch(m -> m.pid() == o.pid()
                    && m.owner().equals(o.owner()) && m.ends() != null && m.ends().contains(":" + port)),
                    () -> "an unmarked object never at the measured port: " + o + "\n" + all);
        }
    }

    /** The unmarked endpoint of {@code pid} whose local ({@code local}) or peer address is the measured port. */
    private static Owner measured(Set<Owner> seen, long pid, String port, boolean local) {
        for (Owner o : seen) {
            if (o.pid() != pid || o.warmUp() || o.ends() == null || !o.owner().contains("Endpoint")) {
                continue;
            }
            Matcher m = ENDS.matcher(o.ends());
            if (m.matches() && m.group(local ? 1 : 2).endsWith(":" + port)) {
                return o;
            }
        }
        return null;
    }

    /** One {@code jofi stat -n -a -d DIR}, its owner lines added to {@code seen}. */
    private void sample(Set<Owner> seen) {
        CapturedRun r = CapturedRun.of("stat", List.of("-n", "-a", "-d", dir.toString()), null);
        assertEquals(0, r.status(), r::err);
        long pid = -1;
        for (String line : r.out().split("\n")) {
            Matcher p = PROCESS.matcher(line);
            if (p.matches()) {
                pid = Long.parseLong(p.group(1));
                continue;
            }
            Matcher o = OWNER.matcher(line);
            if (o.matches()) {
                seen.add(new Owner(pid, o.group(1), o.group(4)));
            }
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
