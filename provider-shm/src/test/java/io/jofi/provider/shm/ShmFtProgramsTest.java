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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code ./jofi ft PROGRAM} JOFI to JOFI over shm (its RDM endpoints; server and client in this
 * JVM, each with its own fabric): fabtests' {@code fi_rdm}, {@code fi_cq_data -e rdm}, {@code fi_poll -t
 * queue|counter} and {@code fi_unexpected_msg -e rdm}, the
 * in-band address exchange over shm names ({@code -B S} on the server, {@code -P S localhost} on
 * the client), the greeting checked, the CQ data checked.
 */
@Timeout(60)
class ShmFtProgramsTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-shm-server");
        t.setDaemon(true);
        return t;
    });
    private static int unique;

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    private static String service() {
        return ProcessHandle.current().pid() + "f" + (++unique);
    }

    static CapturedRun run(String program, String... args) {
        List<String> words = new ArrayList<>(List.of(program, "-p", "shm", "--timeout", "10"));
        words.addAll(List.of(args));
        return CapturedRun.of("ft", words, Fabrics.standalone());
    }

    @ParameterizedTest(name = "{0} over shm")
    @ValueSource(strings = {"fi_rdm", "fi_cq_data", "fi_poll -t queue", "fi_poll -t counter"})
    void jofiToJofi(String programAndOptions) throws Exception {
        String[] words = programAndOptions.split(" ");
        String program = words[0];
        List<String> options = List.of(words).subList(1, words.length);
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run(program, with(options, "-e", "rdm", "-B", svc)));
        CapturedRun client = null;
        // until the server's endpoint has its name, the client's first send finds nobody
        for (int attempt = 0; attempt < 100 && (client == null || client.status() != 0) && !server.isDone(); attempt++) {
            if (client != null) {
                Thread.sleep(100);
            }
            client = run(program, with(options, "-e", "rdm", "-P", svc, "localhost"));
        }
        CapturedRun c = client;
        CapturedRun s = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertTrue(s.out().contains(switch (program) {
            case "fi_rdm" -> "Received data from client: Hello from Client!";
            case "fi_cq_data" -> "remote_cq_data: success";
            default -> options.contains("queue") ? "Recv completion received" : "Recv counter poll-event";
        }), s::out);
    }

    private static String[] with(List<String> options, String... more) {
        List<String> all = new ArrayList<>(options);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /**
     * fi_unexpected_msg -e rdm -I 10 over shm: the out-of-band socket (on loopback, a free port)
     * carries the shm names and the syncs; five tagged messages per iteration arrive before their
     * receives, which are posted in reverse tag order.
     */
    @Test
    void unexpectedMessagesJofiToJofi() throws Exception {
        int oob;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            oob = probe.getLocalPort();
        }
        String bsync = "-b=" + oob;
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run("fi_unexpected_msg", "-e", "rdm", "-I", "10", bsync,
                "-s", "127.0.0.1", "-B", svc));
        // the client's endpoint: with the out-of-band exchange fabtests names it by -s/-B (here a
        // service of its own, not fabtests' default 9228 that a parallel run could hold)
        String clientSvc = service();
        CapturedRun client = null;
        for (int attempt = 0; attempt < 100 && !server.isDone(); attempt++) {
            client = run("fi_unexpected_msg", "-e", "rdm", "-I", "10", bsync, "-B", clientSvc, "127.0.0.1");
            if (client.status() != 111) { // the server's out-of-band socket not listening yet
                break;
            }
            Thread.sleep(50);
        }
        CapturedRun c = client;
        CapturedRun s = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertTrue(s.out().contains("GOOD all done") && c.out().contains("GOOD all done"), s::out);
    }
}
