package io.jofi.provider.verbs.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Fabrics;
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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ./jofi}'s RDM choreographies over JOFI's verbs provider (the rxm layer over verbs MSG
 * endpoints) against the project's C peer over libfabric 1.17's {@code verbs;ofi_rxm}
 * (jofi_peer.c's fabtests modes with {@code -p verbs -e rdm}), each in both roles, with
 * fabtests' {@code -v} data check on both sides, in the soft-RoCE VM: {@code pingpong -e rdm}
 * as fi_rdm_pingpong, {@code --tagged} as fi_rdm_tagged_pingpong / fi_rdm_tagged_bw,
 * {@code bw -e rdm} untagged, and {@code rma_bw -e rdm -o write|read|writedata} (and
 * {@code -U}) as fi_rma_bw -e rdm. The size ranges cross rxm's 16 KiB eager limit, so messages
 * go eager and by rendezvous. Both sides must print the same table rows; the C side's exit
 * status 0 says every check held. provider-tcp's RdmFabtestsChoreographyTest plays the same
 * choreographies over {@code tcp;ofi_rxm} in {@code mvn verify}; iterations are fewer here,
 * because code runs 5–20× slower under TCG.
 *
 * <p>Skipped, with a message, outside the VM ({@code -Djofi.verbs.vm=true} unset), when the
 * verbs provider is unavailable, on siw0 (libfabric's verbs;ofi_rxm over iWARP needs a
 * receive posted before every message, and rma_bw's RMA is not offered on iWARP RDM), or when
 * the host-compiled peer was not injected.
 */
@Timeout(300)
class VerbsRdmChoreographyTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "verbs-rdm-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    @BeforeEach
    void inTheVmWithThePeer() {
        VerbsNativePeer.assumeInTheVm();
        Assumptions.assumeFalse("siw0".equals(System.getenv("JOFI_VM_DEVICE")),
                "RDM interop with libfabric's verbs;ofi_rxm is proven on rxe0 (vm/run-tests without --siw)");
    }

    /** The choreographies: the tools command and C mode, and their options (fabtests' letters, ./jofi's --tagged). */
    static Stream<Arguments> choreographies() {
        return Stream.of(
                Arguments.of("pingpong", List.of("-S", "r:1,12000,36001", "-I", "5", "-w", "1", "-v")),
                Arguments.of("pingpong", List.of("--tagged", "-S", "r:1,12000,36001", "-I", "5", "-w", "1", "-v")),
                Arguments.of("bw", List.of("--tagged", "-S", "r:100,20000,40100", "-I", "12", "-w", "1", "-W", "4", "-v")),
                Arguments.of("bw", List.of("-S", "r:100,20000,40100", "-I", "12", "-w", "1", "-W", "4", "-v")),
                Arguments.of("rma_bw", List.of("-o", "write", "-S", "r:64,20000,40064", "-I", "8", "-w", "1", "-W", "4", "-v")),
                Arguments.of("rma_bw", List.of("-o", "write", "-U", "-S", "4096", "-I", "8", "-w", "1", "-W", "4", "-v")),
                Arguments.of("rma_bw", List.of("-o", "read", "-S", "r:64,20000,40064", "-I", "8", "-w", "1", "-W", "4", "-v")),
                Arguments.of("rma_bw", List.of("-o", "writedata", "-S", "r:64,20000,40064", "-I", "8", "-w", "1", "-W", "4", "-v")));
    }

    @ParameterizedTest(name = "C server, jofi client, verbs rdm: {0} {1}")
    @MethodSource("choreographies")
    void jofiClientAgainstCServer(String mode, List<String> options) {
        try (VerbsNativePeer peer = VerbsNativePeer.fabtestsServer(mode, cOptions(options))) {
            CapturedRun client = jofi(mode, jofiArgs(options, "-P", Integer.toString(peer.port()), VerbsNativePeer.HOST));
            assertEquals(0, client.status(), () -> "jofi " + mode + " client: " + client.err() + "\n" + client.out()
                    + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(String.join("\n", peer.output()).contains("provider verbs;ofi_rxm"), peer::transcript);
            assertSameTable(client, peer);
        }
    }

    @ParameterizedTest(name = "jofi server, C client, verbs rdm: {0} {1}")
    @MethodSource("choreographies")
    void cClientAgainstJofiServer(String mode, List<String> options) throws Exception {
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(mode, jofiArgs(options, "-B", port, "-s", VerbsNativePeer.HOST)));
        VerbsNativePeer peer = connectWithRetry(mode, Integer.parseInt(port), cOptions(options), server);
        try {
            CapturedRun s = server.get(120, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> "jofi " + mode + " server: " + s.err() + "\n" + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(String.join("\n", peer.output()).contains("provider verbs;ofi_rxm"), peer::transcript);
            assertSameTable(s, peer);
        } finally {
            peer.close();
        }
    }

    /**
     * Runs the C client until the JOFI server listens: the server starts in another thread and
     * prints nothing when it listens, so a client that found no listener (rdma_cm's reject,
     * reported by rxm as a refused connection) is started again, while the server still runs.
     */
    private static VerbsNativePeer connectWithRetry(String mode, int port, List<String> options, Future<CapturedRun> server)
            throws InterruptedException {
        Thread.sleep(1000); // the server's JVM-side start under TCG; retries cover the rest
        VerbsNativePeer peer = null;
        for (int attempt = 0; attempt < 30; attempt++) {
            peer = VerbsNativePeer.fabtestsClient(mode, port, options);
            if (!peer.exitsRefused() || server.isDone()) {
                return peer;
            }
            peer.close();
            Thread.sleep(300);
        }
        return peer;
    }

    private static List<String> cOptions(List<String> options) {
        List<String> c = new ArrayList<>(List.of("-e", "rdm"));
        c.addAll(options);
        return c;
    }

    /** ./jofi's arguments: verbs RDM, no JIT warm-up, then the choreography's options. */
    private static List<String> jofiArgs(List<String> options, String... more) {
        List<String> args = new ArrayList<>(List.of("-p", "verbs", "-e", "rdm", "--jit-warmup", "0", "--timeout", "60"));
        args.addAll(options);
        args.addAll(List.of(more));
        return args;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static CapturedRun jofi(String command, List<String> args) {
        return CapturedRun.of(command, args, Fabrics.standalone());
    }

    /** Both sides printed the same sizes, iteration counts and totals (fabtests' table). */
    private static void assertSameTable(CapturedRun jofi, VerbsNativePeer peer) {
        assertNull(jofi.tableMismatch(peer.output()), () -> "C transcript:\n" + peer.transcript());
    }
}
