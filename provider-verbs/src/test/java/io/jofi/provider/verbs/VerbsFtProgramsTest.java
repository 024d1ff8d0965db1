package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Fabrics;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import io.jofi.tools.CapturedRun;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ./jofi ft PROGRAM} JOFI to JOFI over verbs (server and client in this JVM, each with its own
 * fabric, on the device's address): fabtests' functional programs that apply to verbs — the MSG ones
 * over verbs' RC endpoints, the RDM ones over {@code verbs;ofi_rxm} — each as docs/FABTESTS.md lists
 * it, with the program's own checks (greeting, CQ data, {@code -v} data checks) and its last lines.
 *
 * <p>In the soft-RoCE VM only ({@code provider-verbs/vm/run-tests}, {@code -Djofi.verbs.vm=true}, rxe0):
 * elsewhere every case is skipped with the reason, as is siw0 (iWARP offers no CQ data and
 * {@code FI_RM_DISABLED}, which several programs' hints exclude; the table is rxe0's). rdma_cm routes
 * nothing through {@code lo} to the device, so both sides use the device's address ({@link #HOST}).
 * The server runs in a thread; rdma_cm's listener shows in no socket table, so a client refused
 * (exit 111, {@code ECONNREFUSED}: nothing listens yet, on the fabric or the out-of-band socket) is
 * started again while the server runs. Every wait is bounded ({@code --timeout}).
 */
@Timeout(120)
class VerbsFtProgramsTest {
    /** The guest's eth0 address, where rxe0 sits and rdma_cm routes (vm/README.md). */
    static final String HOST = System.getProperty("jofi.verbs.interop.host", "10.0.2.15");
    private static final int REFUSED = 111;
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-verbs-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    @BeforeEach
    void onRxe() {
        Assumptions.assumeTrue(Boolean.getBoolean("jofi.verbs.vm"),
                "fabtests' programs over verbs run in the soft-RoCE VM only: provider-verbs/vm/run-tests");
        ProviderInfo verbs = Fabrics.standalone().providers().stream()
                .filter(p -> p.name().equals("verbs")).findFirst().orElse(null);
        Assumptions.assumeTrue(verbs != null, "verbs unavailable: the provider is not registered");
        Assumptions.assumeTrue(verbs.state() == ProviderState.AVAILABLE, "verbs unavailable: " + verbs.reason());
        Assumptions.assumeFalse("siw0".equals(System.getenv("JOFI_VM_DEVICE")),
                "the programs are played on rxe0; iWARP has no CQ data and FI_RM_DISABLED (vm/run-tests without --siw)");
    }

    /**
     * The cases: the program with its options, the server's and the client's own arguments ({@code PORT},
     * {@code PORT2} and {@code OOB} stand for free ports), what the server's and the client's output
     * must contain. The RDM programs' server names its endpoint with {@code -s HOST -B PORT}.
     */
    static Stream<Arguments> programs() {
        String greeting = "Received data from client: Hello from Client!";
        String plainServer = "-s HOST -B PORT";
        String plainClient = "-P PORT HOST";
        return Stream.of(
                Arguments.of("fi_msg -e msg", plainServer, plainClient, greeting, "Send completion received"),
                Arguments.of("fi_msg_sockets -e msg", plainServer, "-s HOST -B PORT2 -P PORT HOST", greeting,
                        "bound_addr: \"[" + HOST + "]:"),
                Arguments.of("fi_msg_epoll -e msg", plainServer, plainClient, greeting, "Send completion received"),
                Arguments.of("fi_cm_data -e msg -q OOB", plainServer, plainClient, "trying with data size: 32",
                        "trying with data size: 32\ntrying with data size exceeding maximum: 56"),
                Arguments.of("fi_cq_data -e msg", plainServer, plainClient, "remote_cq_data: success", ""),
                Arguments.of("fi_cq_data -e rdm", plainServer, plainClient, "remote_cq_data: success", ""),
                Arguments.of("fi_poll -e rdm -t queue", plainServer, plainClient, "Recv completion received",
                        "Recv completion received"),
                Arguments.of("fi_poll -e rdm -t counter", plainServer, plainClient, "Recv counter poll-event",
                        "Recv counter poll-event"),
                Arguments.of("fi_rdm -e rdm", plainServer, plainClient, greeting, "Send completion received"),
                Arguments.of("fi_rdm -e rdm -U", plainServer, plainClient, greeting, "Send completion received"),
                Arguments.of("fi_rdm_tagged_peek -e rdm", plainServer, plainClient, "Waiting for messages to complete",
                        "Checking to see if third msg was discarded\nSearching for fourth"),
                Arguments.of("fi_recv_cancel -e rdm -V", plainServer, plainClient, "GOOD: Completed Recv Cancel Test", ""),
                Arguments.of("fi_unexpected_msg -e rdm -I 10 -b=OOB", plainServer, "-s HOST -P PORT HOST",
                        "GOOD all done", "GOOD all done"),
                Arguments.of("fi_msg_inject -e rdm -A inject -v", plainServer, plainClient,
                        "GOOD: Completed FI_INJECT Testing", ""),
                Arguments.of("fi_msg_inject -e rdm -N -A inject -v", plainServer, plainClient,
                        "GOOD: Completed FI_INJECT Testing", ""),
                Arguments.of("fi_msg_inject -e rdm -A inj_complete -v", plainServer, plainClient,
                        "GOOD: Completed FI_INJECT_COMPLETE Testing", ""),
                Arguments.of("fi_msg_inject -e rdm -N -A inj_complete -v", plainServer, plainClient,
                        "GOOD: Completed FI_INJECT_COMPLETE Testing", ""),
                Arguments.of("fi_multi_ep -e msg -v -E=OOB", plainServer, "-s HOST -P PORT HOST",
                        "Data check OK\nPASSED multi ep", "PASSED multi ep"),
                Arguments.of("fi_multi_ep -e rdm -v -E=OOB", plainServer, "-s HOST -P PORT HOST",
                        "Data check OK\nPASSED multi ep", "PASSED multi ep"),
                // a window of 8 (fabtests' 64: 64 MiB received per size), to keep the emulator's time short
                Arguments.of("fi_bw -e msg -v -T 1 -W 8", plainServer, plainClient, "\n1m ", "\n1m "),
                Arguments.of("fi_bw -e msg -v -T 1 -W 8 -U", plainServer, plainClient, "\n1m ", "\n1m "),
                Arguments.of("fi_bw -e rdm -v -T 1 -W 8", plainServer, plainClient, "\n1m ", "\n1m "),
                Arguments.of("fi_bw -e rdm -v -T 1 -W 8 -U", plainServer, plainClient, "\n1m ", "\n1m "),
                Arguments.of("fi_rdm_multi_client -e rdm -C 3 -I 5", plainServer, plainClient,
                        "Ping-pong succeeds", "Starting client: 2"),
                Arguments.of("fi_rdm_multi_client -e rdm -C 3 -I 5 -U", plainServer, plainClient,
                        "Ping-pong succeeds", "Starting client: 2"),
                // -R: FABTESTS.md gap 17 (the server's last pong, sent right before its close, once lost)
                Arguments.of("fi_rdm_multi_client -e rdm -C 3 -I 5 -R", plainServer, plainClient,
                        "Ping-pong succeeds", "Starting client: 2"),
                Arguments.of("fi_av_xfer -e rdm -E=OOB", plainServer, "-s HOST HOST",
                        "AV address removal: PASS\nAV re-insertion address: PASS", ""),
                Arguments.of("fi_multi_recv -e rdm -I 5 -v -E=OOB", plainServer, "-s HOST HOST", "", ""));
    }

    @ParameterizedTest(name = "{0} over verbs")
    @MethodSource("programs")
    void jofiToJofi(String program, String serverArgs, String clientArgs, String serverLine, String clientLine)
            throws Exception {
        String port = freePort();
        String port2 = freePort();
        String oob = freePort();
        List<String> common = words(program, port, port2, oob);
        List<String> server = with(common, words(serverArgs, port, port2, oob));
        List<String> client = with(common, words(clientArgs, port, port2, oob));
        Future<CapturedRun> s = SERVERS.submit(() -> ft(server));
        CapturedRun c = clientUntilAccepted(client, s);
        CapturedRun sr = s.get(90, TimeUnit.SECONDS);
        String both = "server:\n" + sr.out() + sr.err() + "\nclient:\n" + c.out() + c.err();
        assertEquals(0, sr.status(), () -> "server's exit status; " + both);
        assertEquals(0, c.status(), () -> "client's exit status; " + both);
        assertTrue(sr.out().contains(serverLine), () -> "server's output lacks '" + serverLine + "'; " + both);
        assertTrue(c.out().contains(clientLine), () -> "client's output lacks '" + clientLine + "'; " + both);
        if (program.startsWith("fi_rdm_multi_client")) {
            assertEquals(3, sr.out().split("Ping-pong succeeds", -1).length - 1, both);
        }
    }

    /**
     * fi_unexpected_msg -e msg does not apply: it asks FI_TAGGED, which verbs' MSG endpoints do not offer
     * (libfabric's verbs neither; its tcp fails the same, tcp.exclude). Both sides meet over the
     * out-of-band socket first, then getinfo answers -FI_ENODATA on each: exit 61, fi_getinfo named.
     */
    @Test
    void unexpectedMsgOverMsgFindsNoInfo() throws Exception {
        String port = freePort();
        String oob = freePort();
        List<String> common = words("fi_unexpected_msg -e msg -I 10 -b=OOB", port, port, oob);
        Future<CapturedRun> s = SERVERS.submit(() -> ft(with(common, words("-s HOST -B PORT", port, port, oob))));
        CapturedRun c = clientUntilAccepted(with(common, words("-s HOST -P PORT HOST", port, port, oob)), s);
        CapturedRun sr = s.get(60, TimeUnit.SECONDS);
        for (CapturedRun side : List.of(sr, c)) {
            assertEquals(61, side.status(), () -> side.out() + side.err());
            assertTrue(side.err().contains("fi_getinfo(): ret=-61"), side::err);
        }
    }

    /** The client, started again while it is refused (exit 111) and the server still runs (bounded: 40 tries). */
    private static CapturedRun clientUntilAccepted(List<String> client, Future<CapturedRun> server)
            throws InterruptedException {
        Thread.sleep(300); // the server's set-up, in this JVM; the retries cover a slower one
        CapturedRun c = ft(client);
        for (int attempt = 1; attempt < 40 && c.status() == REFUSED && !server.isDone(); attempt++) {
            Thread.sleep(250);
            c = ft(client);
        }
        return c;
    }

    private static CapturedRun ft(List<String> args) {
        List<String> all = new ArrayList<>(List.of(args.get(0), "-p", "verbs", "--timeout", "30"));
        all.addAll(args.subList(1, args.size()));
        return CapturedRun.of("ft", all, Fabrics.standalone());
    }

    /** {@code text}'s words with HOST, PORT, PORT2 and OOB put in. */
    private static List<String> words(String text, String port, String port2, String oob) {
        List<String> out = new ArrayList<>();
        if (text.isBlank()) {
            return out;
        }
        for (String w : text.split(" ")) {
            out.add(w.replace("HOST", HOST).replace("PORT2", port2).replace("PORT", port).replace("OOB", oob));
        }
        return out;
    }

    private static List<String> with(List<String> first, List<String> more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(more);
        return all;
    }

    private static String freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return Integer.toString(s.getLocalPort());
        }
    }
}
