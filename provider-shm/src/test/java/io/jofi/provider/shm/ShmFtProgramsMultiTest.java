package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Fabrics;
import io.jofi.tools.CapturedRun;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code ./jofi ft} JOFI to JOFI over shm for fabtests' {@code fi_rdm -U}, {@code fi_bw -e rdm -v
 * -T 1} (± {@code -U}: {@code FI_DELIVERY_COMPLETE} as the hints' transmit op flags) and
 * {@code fi_rdm_multi_client -C 3 -I 5} (± {@code -U}: a client fabric per client, each with its own
 * address exchange on the server's one endpoint; {@code -R}: every client after the first takes the
 * first one's name, so the server's AV entry for it reaches each new endpoint in turn) and {@code fi_multi_ep -v} (three more endpoints named
 * over fabtests' out-of-band socket, {@code -E}); server and client in this JVM, the server named by
 * {@code -B S}, the client given {@code -P S localhost}.
 */
@Timeout(90)
class ShmFtProgramsMultiTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-shm-multi-server");
        t.setDaemon(true);
        return t;
    });
    private static int unique;

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    private static String service() {
        return ProcessHandle.current().pid() + "m" + (++unique);
    }

    static CapturedRun run(List<String> args) {
        List<String> words = new ArrayList<>(args);
        words.addAll(List.of("-p", "shm", "-e", "rdm", "--timeout", "20"));
        return CapturedRun.of("ft", words, Fabrics.standalone());
    }

    @ParameterizedTest(name = "{0} over shm")
    @ValueSource(strings = {"fi_rdm -U", "fi_bw -v -T 1", "fi_bw -v -T 1 -U", "fi_rdm_multi_client -C 3 -I 5",
            "fi_rdm_multi_client -C 3 -I 5 -U", "fi_rdm_multi_client -C 3 -I 5 -R"})
    void jofiToJofi(String programAndOptions) throws Exception {
        List<String> words = List.of(programAndOptions.split(" "));
        String program = words.get(0);
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run(with(words, "-B", svc)));
        CapturedRun client = null;
        // until the server's endpoint has its name, the client's first send finds nobody
        for (int attempt = 0; attempt < 100 && (client == null || client.status() != 0) && !server.isDone(); attempt++) {
            if (client != null) {
                Thread.sleep(100);
            }
            client = run(with(words, "-P", svc, "localhost"));
        }
        CapturedRun c = client;
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        switch (program) {
            case "fi_rdm" -> assertTrue(s.out().contains("Received data from client: Hello from Client!"), s::out);
            case "fi_bw" -> assertTrue(s.out().contains("\n1m ") && c.out().contains("\n1m "), () -> s.out() + c.out());
            default -> {
                assertEquals(3, s.out().split("Ping-pong succeeds", -1).length - 1, s::out);
                assertTrue(c.out().contains("Starting client: 2"), c::out);
            }
        }
    }

    /**
     * {@code fi_rdm_multi_client -C 3 -I 5 -R} with the server in a child JVM ({@code PlainJvmMain}), the clients
     * here: the server finds each closed client in another process and reaches the next one by the first one's name.
     */
    @org.junit.jupiter.api.Test
    void multiClientReuseWithTheServerInAnotherProcess() throws Exception {
        String svc = service();
        List<String> cmd = new ArrayList<>(List.of(
                java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                io.jofi.tools.PlainJvmMain.class.getName(), "ft", "fi_rdm_multi_client", "-C", "3", "-I", "5", "-R",
                "-B", svc, "-p", "shm", "-e", "rdm", "--timeout", "20"));
        java.io.File out = java.io.File.createTempFile("ft-shm-server", ".out");
        out.deleteOnExit();
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out).start();
        try {
            List<String> words = List.of("fi_rdm_multi_client", "-C", "3", "-I", "5", "-R", "-P", svc, "localhost");
            CapturedRun client = null;
            // until the server's endpoint has its name, the client's first send finds nobody (nothing played yet)
            for (int attempt = 0; attempt < 150 && (client == null || client.status() != 0
                    && !client.out().contains("Ping-pong succeeds")) && server.isAlive(); attempt++) {
                if (client != null) {
                    Thread.sleep(100);
                }
                client = run(words);
            }
            CapturedRun c = client;
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the server ends");
            String s = java.nio.file.Files.readString(out.toPath());
            assertEquals(0, c.status(), () -> c.err() + c.out() + "\nserver:\n" + s);
            assertEquals(0, server.exitValue(), s);
            assertEquals(3, s.split("Ping-pong succeeds", -1).length - 1, s);
            assertTrue(c.out().contains("Starting client: 2"), c::out);
        } finally {
            server.destroyForcibly();
        }
    }

    @org.junit.jupiter.api.Test
    void multiEpJofiToJofi() throws Exception {
        String svc = service();
        String oob;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            oob = "-E=" + free.getLocalPort();
        }
        List<String> words = List.of("fi_multi_ep", "-v", oob);
        Future<CapturedRun> server = SERVERS.submit(() -> run(with(words, "-B", svc)));
        CapturedRun client = null;
        // until the server's out-of-band socket listens the client's connect is refused (111)
        for (int attempt = 0; attempt < 100 && (client == null || client.status() == 111) && !server.isDone(); attempt++) {
            if (client != null) {
                Thread.sleep(100);
            }
            client = run(with(words, "-s", "localhost", "-P", svc, "localhost"));
        }
        CapturedRun c = client;
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertTrue(s.out().contains("Data check OK\nPASSED multi ep") && c.out().contains("PASSED multi ep"), s::out);
    }

    /** fi_av_xfer over shm: the peer's name removed and inserted again between tagged messages, both tests. */
    @org.junit.jupiter.api.Test
    void avXferJofiToJofi() throws Exception {
        String oob;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            oob = "-E=" + free.getLocalPort();
        }
        List<String> words = List.of("fi_av_xfer", oob);
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run(with(words, "-s", "localhost", "-B", svc)));
        CapturedRun client = null;
        for (int attempt = 0; attempt < 100 && (client == null || client.status() == 111) && !server.isDone(); attempt++) {
            if (client != null) {
                Thread.sleep(100); // the server's out-of-band socket is not listening yet
            }
            client = run(with(words, "-s", "localhost", "localhost"));
        }
        CapturedRun c = client;
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertTrue(s.out().contains("AV address removal: PASS\nAV re-insertion address: PASS"), s::out);
    }

    /** fi_multi_recv over shm (-v, ±-M): the halves of the buffer released and posted again. */
    @ParameterizedTest(name = "fi_multi_recv {0}")
    @ValueSource(strings = {"-I 5 -v", "-I 300 -S 4096 -v -M"})
    void multiRecvJofiToJofi(String options) throws Exception {
        String oob;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            oob = "-E=" + free.getLocalPort();
        }
        List<String> words = new ArrayList<>(List.of("fi_multi_recv", oob));
        words.addAll(List.of(options.split(" ")));
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run(with(words, "-s", "localhost", "-B", svc)));
        CapturedRun client = null;
        for (int attempt = 0; attempt < 100 && (client == null || client.status() == 111) && !server.isDone(); attempt++) {
            if (client != null) {
                Thread.sleep(100); // the server's out-of-band socket is not listening yet
            }
            client = run(with(words, "-s", "localhost", "localhost"));
        }
        CapturedRun c = client;
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
    }

    private static List<String> with(List<String> words, String... more) {
        List<String> all = new ArrayList<>(words);
        all.addAll(List.of(more));
        return all;
    }
}
