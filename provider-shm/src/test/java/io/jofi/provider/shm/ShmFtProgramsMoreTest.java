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
 * {@code ./jofi ft PROGRAM} JOFI to JOFI over shm (server and client in this JVM, each with its
 * own fabric): fabtests' {@code fi_rdm_tagged_peek} (FI_PEEK / FI_CLAIM / FI_DISCARD on unexpected
 * tagged messages), {@code fi_recv_cancel} (fi_cancel's FI_ECANCELED entry) and the four
 * {@code fi_msg_inject} variants (FI_INJECT, FI_INJECT_COMPLETE; hinted op flags or {@code -N}),
 * over shm names ({@code -B S} on the server, {@code -P S localhost} on the client).
 */
@Timeout(60)
class ShmFtProgramsMoreTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-shm-more-server");
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

    static CapturedRun run(List<String> programAndOptions, String... args) {
        List<String> words = new ArrayList<>(programAndOptions);
        words.addAll(List.of("-p", "shm", "-e", "rdm", "--timeout", "10"));
        words.addAll(List.of(args));
        return CapturedRun.of("ft", words, Fabrics.standalone());
    }

    @ParameterizedTest(name = "{0} over shm")
    @ValueSource(strings = {"fi_rdm_tagged_peek", "fi_recv_cancel -V", "fi_msg_inject -A inject -v", "fi_msg_inject -N -A inject -v",
        "fi_msg_inject -A inj_complete -v", "fi_msg_inject -N -A inj_complete -v"})
    void jofiToJofi(String programAndOptions) throws Exception {
        List<String> words = List.of(programAndOptions.split(" "));
        String svc = service();
        Future<CapturedRun> server = SERVERS.submit(() -> run(words, "-B", svc));
        CapturedRun client = null;
        // until the server's endpoint has its name, the client's first send finds nobody
        for (int attempt = 0; attempt < 100 && (client == null || client.status() != 0) && !server.isDone(); attempt++) {
            if (client != null) {
                Thread.sleep(100);
            }
            client = run(words, "-P", svc, "localhost");
        }
        CapturedRun c = client;
        CapturedRun s = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        String last = switch (words.get(0)) {
            case "fi_rdm_tagged_peek" -> "Waiting for messages to complete";
            case "fi_recv_cancel" -> "GOOD: Completed Recv Cancel Test";
            default -> words.contains("inject") ? "GOOD: Completed FI_INJECT Testing" : "GOOD: Completed FI_INJECT_COMPLETE Testing";
        };
        assertTrue(s.out().contains(last), s::out);
        if (words.get(0).equals("fi_rdm_tagged_peek")) {
            assertTrue(c.out().contains("Checking to see if third msg was discarded\nSearching for fourth"), c::out);
        }
    }
}
