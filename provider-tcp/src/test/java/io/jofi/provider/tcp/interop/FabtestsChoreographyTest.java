package io.jofi.provider.tcp.interop;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ./jofi}'s fabtests choreographies (tools/README.md) against the project's C peer
 * (jofi_peer.c's pingpong, bw and rma_bw modes, libfabric 1.17's tcp provider), each in both
 * roles, with fabtests' {@code -v} data check on both sides: {@code pingpong} as
 * fi_msg_pingpong, {@code bw} as fi_msg_bw ({@code -I} messages, an ack per window and one at
 * the end, with an {@code -I} that is no multiple of {@code -W}), {@code rma_bw -o
 * write|read|writedata} (and {@code -U}) as fi_rma_bw -e msg; sizes as a fabtests range. The
 * tools' commands run in-process through {@link Commands#run}; the C side's exit status 0 says
 * that every message it checked carried fabtests' pattern and that the closing exchange
 * matched. A peer that sends a wrong byte makes {@code -v} fail with "Data check error".
 */
@Timeout(120)
class FabtestsChoreographyTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fabtests-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    static CapturedRun jofi(String command, List<String> args) {
        return CapturedRun.of(command, args, Fabrics.standalone());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The choreographies: the tools command and C mode, and their options (fabtests' letters). */
    static Stream<Arguments> choreographies() {
        return Stream.of(
                Arguments.of("pingpong", List.of("-S", "r:1,500,2001", "-I", "20", "-w", "2", "-v")),
                Arguments.of("pingpong", List.of("-S", "65536", "-I", "10", "-w", "1", "-v")),
                Arguments.of("bw", List.of("-S", "r:100,4000,8100", "-I", "45", "-w", "3", "-W", "8", "-v")),
                Arguments.of("bw", List.of("-S", "262144", "-I", "20", "-w", "0", "-W", "16", "-v")),
                // windows longer than BwCommand's chunk, the settle point and the timing start inside one
                Arguments.of("bw", List.of("-S", "64", "-I", "101", "-w", "21", "-W", "40", "-v")),
                Arguments.of("rma_bw", List.of("-o", "write", "-S", "r:64,4000,8100", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "write", "-U", "-S", "4096", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "read", "-S", "r:64,4000,8100", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "read", "-U", "-S", "4096", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "writedata", "-S", "r:64,4000,8100", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "writedata", "-U", "-S", "65536", "-I", "21", "-w", "1", "-W", "4", "-v")));
    }

    private static List<String> jofiArgs(List<String> options, String... more) {
        return jofiArgs("msg", options, more);
    }

    /** ./jofi's arguments: tcp, endpoint type {@code endpoint}, no JIT warm-up, then the choreography's options. */
    static List<String> jofiArgs(String endpoint, List<String> options, String... more) {
        List<String> args = new ArrayList<>(List.of("-p", "tcp", "-e", endpoint, "--jit-warmup", "0", "--timeout", "30"));
        args.addAll(options);
        args.addAll(List.of(more));
        return args;
    }

    @ParameterizedTest(name = "C server, jofi client: {0} {1}")
    @MethodSource("choreographies")
    void jofiClientAgainstCServer(String mode, List<String> options) {
        NativePeer.assumeNativeLibfabric();
        try (NativePeer peer = NativePeer.fabtestsServer(mode, options.toArray(String[]::new))) {
            CapturedRun client = jofi(mode, jofiArgs(options, "-P", Integer.toString(peer.port()), NativePeer.HOST));
            assertEquals(0, client.status(), () -> "jofi " + mode + " client: " + client.err() + "\n" + client.out()
                    + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertSameTable(client, peer);
        }
    }

    @ParameterizedTest(name = "jofi server, C client: {0} {1}")
    @MethodSource("choreographies")
    void cClientAgainstJofiServer(String mode, List<String> options) throws Exception {
        NativePeer.assumeNativeLibfabric();
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(mode, jofiArgs(options, "-B", port, "-s", NativePeer.HOST)));
        NativePeer peer = connectWithRetry(mode, Integer.parseInt(port), options);
        try {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> "jofi " + mode + " server: " + s.err() + "\n" + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertSameTable(s, peer);
        } finally {
            peer.close();
        }
    }

    /** Runs the C client until the JOFI server listens (a refused connection is retried). */
    static NativePeer connectWithRetry(String mode, int port, List<String> options) throws InterruptedException {
        NativePeer peer = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            peer = NativePeer.fabtestsClient(mode, port, options.toArray(String[]::new));
            if (peer.awaitExit(NativePeer.TIMEOUT) == 0 || !String.join("\n", peer.output()).toLowerCase().contains("refused")) {
                return peer;
            }
            peer.close();
            Thread.sleep(100);
        }
        return peer;
    }

    /** Both sides printed the same sizes, iteration counts and totals (fabtests' table). */
    static void assertSameTable(CapturedRun jofi, NativePeer peer) {
        assertNull(jofi.tableMismatch(peer.output()), () -> "C transcript:\n" + peer.transcript());
    }

    /** -v catches a wrong byte: the C peer sends byte 5 of every message wrong (-X). */
    @Test
    void aWrongByteIsADataCheckError() throws Exception {
        NativePeer.assumeNativeLibfabric();
        for (String mode : new String[] {"pingpong", "bw"}) {
            List<String> options = List.of("-S", "1024", "-I", "5", "-w", "1", "-W", "4");
            List<String> cOptions = new ArrayList<>(mode.equals("pingpong") ? List.of("-S", "1024", "-I", "5", "-w", "1")
                    : options);
            cOptions.add("-X");
            try (NativePeer peer = NativePeer.fabtestsServer(mode, cOptions.toArray(String[]::new))) {
                CapturedRun client = jofi(mode, jofiArgs(mode.equals("pingpong") ? List.of("-S", "1024", "-I", "5", "-w", "1") : options,
                        "-v", "-P", Integer.toString(peer.port()), NativePeer.HOST));
                if (mode.equals("pingpong")) {
                    assertEquals(1, client.status(), () -> client.err() + client.out());
                    assertTrue(client.err().contains("Data check error (5!=#) at byte 5 for buffer size 1024"), client::err);
                } else {
                    // bw: the server's data is not checked by the client; the acks are 4 bytes
                    // (byte 5 lies beyond them): the run passes
                    assertEquals(0, client.status(), () -> client.err() + client.out());
                }
            }
        }
        // the other way: the C peer with -v finds JOFI's data right (every test above) and a
        // JOFI server finds the C client's wrong byte in its window check
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("bw", jofiArgs(List.of("-S", "1024", "-I", "5", "-w", "1", "-W", "4", "-v"),
                "-B", port, "-s", NativePeer.HOST)));
        NativePeer peer = connectWithRetry("bw", Integer.parseInt(port), List.of("-S", "1024", "-I", "5", "-w", "1", "-W", "4", "-X"));
        try {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(1, s.status(), () -> s.err() + s.out());
            assertTrue(s.err().contains("Data check error (5!=#) at byte 5 for buffer size 1024"), s::err);
        } finally {
            peer.close();
        }
    }

    /**
     * The RDM choreographies JOFI to JOFI over tcp RDM endpoints (against libfabric's C
     * tcp;ofi_rxm: {@link RdmFabtestsChoreographyTest}): fabtests' in-band address exchange, then
     * fi_rdm_pingpong, fi_rdm_tagged_pingpong / fi_rdm_tagged_bw (--tagged: each message's tag
     * its ordinal in its direction) and fi_rma_bw -e rdm, with the data check.
     */
    static Stream<Arguments> rdmChoreographies() {
        return Stream.of(
                Arguments.of("pingpong", List.of("-S", "r:1,3000,9001", "-I", "20", "-w", "2", "-v")),
                Arguments.of("pingpong", List.of("--tagged", "-S", "r:1,3000,9001", "-I", "20", "-w", "2", "-v")),
                Arguments.of("bw", List.of("--tagged", "-S", "r:100,4000,8100", "-I", "45", "-w", "3", "-W", "8", "-v")),
                Arguments.of("bw", List.of("-S", "65536", "-I", "30", "-w", "3", "-W", "16", "-v")),
                Arguments.of("rma_bw", List.of("-o", "write", "-S", "4096", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "read", "-S", "4096", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "writedata", "-U", "-S", "r:64,4000,8100", "-I", "30", "-w", "2", "-W", "8", "-v")));
    }

    @ParameterizedTest(name = "jofi to jofi over tcp RDM: {0} {1}")
    @MethodSource("rdmChoreographies")
    void rdmJofiToJofi(String mode, List<String> options) throws Exception {
        String port = Integer.toString(freePort());
        List<String> common = new ArrayList<>(List.of("-p", "tcp", "-e", "rdm", "--jit-warmup", "0", "--timeout", "30"));
        common.addAll(options);
        List<String> serverArgs = new ArrayList<>(common);
        serverArgs.addAll(List.of("-B", port, "-s", NativePeer.HOST));
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(mode, serverArgs));
        List<String> clientArgs = new ArrayList<>(common);
        clientArgs.addAll(List.of("-P", port, NativePeer.HOST));
        CapturedRun client = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            client = jofi(mode, clientArgs);
            if (client.status() == 0 || server.isDone()) {
                break;
            }
            Thread.sleep(100);
        }
        CapturedRun c = client;
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        // each side's failure message carries the other's output: one side's end explains the other's
        assertEquals(0, c.status(), () -> "client: " + c.err() + c.out() + "\nserver: " + s.status() + " " + s.err() + s.out());
        assertEquals(0, s.status(), () -> "server: " + s.err() + s.out() + "\nclient: " + c.err() + c.out());
        assertEquals(s.rows().size(), c.rows().size(), () -> c.out() + s.out());
        assertTrue(!c.rows().isEmpty(), c::out);
    }

    /** {@code -W} beyond the endpoint's queues is a usage error before anything is connected. */
    @Test
    void aWindowBeyondTheQueuesIsAUsageError() throws Exception {
        for (String mode : new String[] {"bw", "rma_bw"}) {
            CapturedRun r = jofi(mode, jofiArgs(List.of("-W", "1000000", "-S", "64"), "-B", Integer.toString(freePort()), "-s", NativePeer.HOST));
            assertEquals(2, r.status(), () -> mode + ": " + r.err());
            assertTrue(r.err().contains("-W 1000000 exceeds the endpoint's queues"), r::err);
        }
    }
}
