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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tools' {@code pingpong} and {@code bw} commands over shm RDM endpoints, run through
 * their public entry point {@link Commands#run} with {@link Fabrics#standalone()} (server and
 * client in this JVM, each with its own fabric and domain): the server's {@code -B} service
 * names its endpoint {@code svc-<service>}, the client's {@code -P} service and node
 * ({@code localhost}) address the same name, or both give {@code fi_shm://<name>} explicitly.
 * Small iteration counts; the table's rows and the exit status are checked. The default JIT
 * warm-up (seconds: its wait for a quiet compiler) runs in the pingpongs by service and without an
 * endpoint type; the other runs skip it ({@code --jit-warmup 0}), it is not theirs to test.
 */
@Timeout(120)
class ShmPerfCommandsTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "perf-server");
        t.setDaemon(true);
        return t;
    });
    private static int unique;

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    /** A service no other run of this JVM uses (names are per host: the pid keeps parallel builds apart). */
    private static String service() {
        return ProcessHandle.current().pid() + "x" + (++unique);
    }

    static CapturedRun run(String command, String... args) {
        return CapturedRun.of(command, List.of(args), Fabrics.standalone());
    }

    /** Runs the client once the server's endpoint has its name (until then the first send is unreachable). */
    private static CapturedRun client(Future<CapturedRun> server, String command, String... args) throws Exception {
        CapturedRun r = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            r = run(command, args);
            if (r.status() == 0 || server.isDone()) {
                return r;
            }
            Thread.sleep(100);
        }
        return r;
    }

    private static void assertTable(CapturedRun r, String... sizes) {
        assertEquals(0, r.status(), () -> "exit status; stdout:\n" + r.out() + "stderr:\n" + r.err());
        List<String> rows = r.rows();
        assertEquals(sizes.length, rows.size(), () -> "one row per size:\n" + r.out());
        for (int i = 0; i < sizes.length; i++) {
            String[] cols = rows.get(i).trim().split("\\s+");
            assertEquals(7, cols.length, "seven columns: " + rows.get(i));
            assertEquals(sizes[i], cols[0], "bytes column: " + rows.get(i));
        }
    }

    /** Defaults: server {@code -B S}, client {@code -P S localhost}; spin (manual progress) and sread (auto). */
    @Test
    void pingpongByService() throws Exception {
        for (String mode : new String[] {"spin", "sread"}) {
            String svc = service();
            Future<CapturedRun> server = SERVERS.submit(() -> run("pingpong", "-p", "shm", "-e", "rdm", "-c", mode, "-S", "1k",
                    "-I", "20", "-w", "2", "-B", svc));
            CapturedRun client = client(server, "pingpong", "-p", "shm", "-e", "rdm", "-c", mode, "-S", "1k", "-I", "20",
                    "-w", "2", "-P", svc, "localhost");
            if (client.status() != 0 && server.isDone()) {
                CapturedRun srv = server.get();
                assertEquals(0, client.status(), () -> "client failed; client stderr:\n" + client.err()
                        + "server status " + srv.status() + ", stderr:\n" + srv.err());
            }
            assertTable(client, "1k");
            assertTable(server.get(60, TimeUnit.SECONDS), "1k");
        }
    }

    /** compare-shm.sh's explicit form: server {@code -s fi_shm://N}, client {@code fi_shm://N}; every default size. */
    @Test
    void pingpongByExplicitName() throws Exception {
        String name = "fi_shm://jofi-pp-" + service();
        Future<CapturedRun> server = SERVERS.submit(() -> run("pingpong", "-p", "shm", "--jit-warmup", "0", "-e", "rdm", "-I", "10", "-w", "2",
                "-s", name));
        CapturedRun client = client(server, "pingpong", "-p", "shm", "--jit-warmup", "0", "-e", "rdm", "-I", "10", "-w", "2", name);
        assertTable(client, "64", "256", "1k", "4k", "64k", "1m");
        assertTable(server.get(60, TimeUnit.SECONDS), "64", "256", "1k", "4k", "64k", "1m");
    }

    /** shm offers rdm only: without -e the tools take it (fabtests' msg default would fail). */
    @Test
    void pingpongWithoutAnEndpointTypeTakesTheProvidersOnlyOne() throws Exception {
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run("pingpong", "-p", "shm", "-S", "64", "-I", "10", "-w", "2",
                "-B", svc));
        CapturedRun client = client(server, "pingpong", "-p", "shm", "-S", "64", "-I", "10", "-w", "2", "-P", svc,
                "localhost");
        assertTable(client, "64");
        assertTable(server.get(60, TimeUnit.SECONDS), "64");
        // the JIT warm-up is no silent wait: it says what it does and how to skip it, once
        assertEquals(1, client.err().lines().filter(l -> l.contains("warming up the JIT first")
                && l.contains("--jit-warmup 0 skips it")).count(), client::err);
    }

    @Test
    void bandwidthByService() throws Exception {
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run("bw", "-p", "shm", "--jit-warmup", "0", "-e", "rdm", "-S", "64k", "-I", "5", "-W", "16",
                "-B", svc));
        CapturedRun client = client(server, "bw", "-p", "shm", "--jit-warmup", "0", "-e", "rdm", "-S", "64k", "-I", "5", "-W", "16", "-P", svc,
                "localhost");
        assertTable(client, "64k");
        assertTable(server.get(60, TimeUnit.SECONDS), "64k");
        assertEquals("320k", client.rows().get(0).trim().split("\\s+")[2], "total = iters x size = 5 x 64k (-I counts messages, as fabtests)");
    }

    /** Two servers on one service: the second fails at enable, saying the name is in use. */
    @Test
    void secondServerOnTheSameServiceIsRefused() throws Exception {
        String svc = service();
        Future<CapturedRun> first = SERVERS.submit(() -> run("pingpong", "-p", "shm", "--jit-warmup", "0", "-e", "rdm", "-S", "64", "-I", "5",
                "--timeout", "20", "-B", svc));
        // the first holds the name once its link exists (before that, the second would become the server)
        java.nio.file.Path link = java.nio.file.Path.of(System.getProperty("jofi.shm.directory", ShmSettings.DEFAULT_DIRECTORY))
                .resolve(ShmAlias.fileOf("svc-" + svc));
        for (int i = 0; i < 600 && !java.nio.file.Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS); i++) {
            Thread.sleep(100);
        }
        CapturedRun second = run("pingpong", "-p", "shm", "--jit-warmup", "0", "-e", "rdm", "-S", "64", "-I", "5", "-B", svc);
        CapturedRun s = second;
        assertEquals(1, s.status(), s::err);
        assertTrue(s.err().contains("svc-" + svc) && s.err().contains("in use"), s::err);
        CapturedRun client = client(first, "pingpong", "-p", "shm", "--jit-warmup", "0", "-e", "rdm", "-S", "64", "-I", "5", "-P", svc, "localhost");
        assertTable(client, "64");
        assertTable(first.get(60, TimeUnit.SECONDS), "64");
    }
}
