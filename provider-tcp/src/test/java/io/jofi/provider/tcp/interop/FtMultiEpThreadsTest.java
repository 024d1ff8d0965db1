package io.jofi.provider.tcp.interop;

import static io.jofi.provider.tcp.interop.FtProgramsInteropTest.awaitListening;
import static io.jofi.provider.tcp.interop.FtProgramsInteropTest.freePort;
import static io.jofi.provider.tcp.interop.FtProgramsInteropTest.jofi;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.tools.CapturedRun;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * fi_multi_ep -e msg|rdm -v JOFI to JOFI over tcp, both sides in this JVM: every close succeeds and,
 * once both programs have ended, every tcp provider thread they started has ended too. The program's
 * extra endpoints are closed before their CQs (fabtests' free_ep_res); closed after them, the CQs
 * refused (still bound), so did the domain and the fabric, and their progress and connection threads
 * ran on.
 */
@Timeout(60)
class FtMultiEpThreadsTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-multi-ep-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    @ParameterizedTest(name = "fi_multi_ep -e {0} -v leaves no tcp thread behind")
    @ValueSource(strings = {"msg", "rdm"})
    void noProviderThreadOutlivesTheProgram(String endpoint) throws Exception {
        Set<Thread> before = providerThreads();
        int oob = freePort();
        String fabricPort = Integer.toString(freePort());
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_multi_ep", endpoint, "-v", "-E=" + oob, "-s",
                NativePeer.HOST, "-B", fabricPort));
        awaitListening(oob, server);
        CapturedRun client = jofi("fi_multi_ep", endpoint, "-v", "-E=" + oob, "-s", NativePeer.HOST, "-P", fabricPort,
                NativePeer.HOST);
        CapturedRun s = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, client.status(), () -> client.err() + client.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertTrue(s.out().contains("Data check OK\nPASSED multi ep") && client.out().contains("PASSED multi ep"),
                () -> s.out() + client.out());
        // every close succeeded (a failed one is printed as fabtests' FT_CLOSE_FID does, the exit status 0)
        assertFalse(s.err().contains("fi_close()") || client.err().contains("fi_close()"),
                () -> s.err() + client.err());
        List<String> left = new ArrayList<>();
        for (Thread t : providerThreads()) {
            if (!before.contains(t)) {
                t.join(5_000);
                if (t.isAlive()) {
                    left.add(describe(t));
                }
            }
        }
        assertTrue(left.isEmpty(), () -> "tcp provider threads outlived fi_multi_ep -e " + endpoint + ":\n"
                + String.join("\n", left));
    }

    private static Set<Thread> providerThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("jofi-tcp-")) {
                threads.add(t);
            }
        }
        return threads;
    }

    private static String describe(Thread t) {
        StringBuilder b = new StringBuilder(t.getName());
        for (StackTraceElement frame : t.getStackTrace()) {
            b.append("\n    at ").append(frame);
        }
        return b.toString();
    }
}
