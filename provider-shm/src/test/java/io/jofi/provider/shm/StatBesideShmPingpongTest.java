package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.tools.CapturedRun;
import java.io.IOException;
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
 * {@code jofi stat} beside an shm RDM ping-pong, as a newcomer runs them: the server and the client
 * are JVMs of their own ({@code io.jofi.tools.PlainJvmMain pingpong}, with a short JIT warm-up and
 * blocking waits, kind to a loaded machine), and this JVM runs {@code stat -n -a} on their counters directory again and again while
 * they run — the code {@code ./jofi stat} prints with. Each side's measured endpoint shows its local
 * name and its peer's (the two sides' crosswise; an RDM endpoint names its first peer), unmarked; the
 * warm-up's private endpoints and queues show marked {@code (JIT warm-up)}, on both sides, and never
 * with the measured service's name.
 */
class StatBesideShmPingpongTest {
    /** An owner line of {@code stat}: two spaces, the owner (maybe marked), its addresses once known. */
    private static final Pattern OWNER = Pattern.compile("^  (\\S+/\\S+ \\d+( \\(JIT warm-up\\))?)(  \\((.*)\\))?$");
    /** An RDM endpoint's addresses: its name, the service's alias on a server, its first peer. */
    private static final Pattern ENDS = Pattern.compile("local (\\S+)(?: \\(svc-[^)]*\\))? peer (\\S+)");
    /** The alias of the server's endpoint: this and the service ({@code -B}), {@code local fi_shm://N (svc-S)}. */
    private static final String SERVICE = "svc-";
    private static final Pattern PROCESS = Pattern.compile("^pid (\\d+) .*");

    @TempDir
    Path dir;

    private Process pingpong(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC",
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
        // a service no other run uses (names are per host: the pid keeps parallel builds apart)
        String port = "stat" + ProcessHandle.current().pid();
        String[] common = {"-p", "shm", "-S", "64", "-I", "500", "-w", "10", "--jit-warmup", "400",
                "-c", "sread"};
        Process server = pingpong("server", concat(common, "-B", port));
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
            client = pingpong("client", concat(common, "-P", port, "localhost"));
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
        // the measured pair: the server's endpoint under its name and the service's alias, with the
        // client as its peer; the client's with the server's name as its peer; both unmarked
        Owner atServer = seen.stream().filter(o -> o.pid() == serverPid && !o.warmUp() && o.ends() != null
                && o.ends().contains(" (" + SERVICE + port + ") peer ")).findFirst().orElse(null);
        assertTrue(atServer != null, () -> "the measured server endpoint with its addresses:\n" + all);
        Matcher s = ENDS.matcher(atServer.ends());
        assertTrue(s.matches(), atServer::toString);
        Owner atClient = seen.stream().filter(o -> o.pid() == clientPid && !o.warmUp() && o.ends() != null
                && o.ends().endsWith(" peer " + s.group(1))).findFirst().orElse(null);
        assertTrue(atClient != null, () -> "the measured client endpoint, the server's " + s.group(1) + " its peer:\n" + all);
        Matcher c = ENDS.matcher(atClient.ends());
        assertTrue(c.matches(), atClient::toString);
        assertEquals(s.group(2), c.group(1), "the client's local name is the server's peer");
        // the warm-up's private objects: seen on both sides, marked; every unmarked endpoint is the measured one
        for (long pid : new long[] {serverPid, clientPid}) {
            assertTrue(seen.stream().anyMatch(o -> o.pid() == pid && o.warmUp() && o.owner().contains("Endpoint")),
                    () -> pid + " showed no marked warm-up endpoint:\n" + all);
        }
        for (Owner o : seen) {
            assertFalse(o.warmUp() && o.ends() != null && o.ends().contains(SERVICE + port),
                    () -> "a warm-up object at the measured service: " + o + "\n" + all);
            assertFalse(!o.warmUp() && o.ends() != null && !(o.pid() == serverPid && o.owner().equals(atServer.owner()))
                    && !(o.pid() == clientPid && o.owner().equals(atClient.owner())),
                    () -> "an unmarked endpoint besides the measured pair: " + o + "\n" + all);
        }
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
