package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Fabrics;
import io.jofi.tools.CapturedRun;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * {@code ./jofi ft PROGRAM} (tools/README.md, "ft") against the project's C stand-in for fabtests'
 * functional programs ({@code src/test/c/ft_peer.c}: libfabric 1.17's tcp for MSG, tcp;ofi_rxm for
 * RDM), each program in both roles, and JOFI against JOFI over tcp: {@code fi_msg}, {@code fi_msg_epoll}
 * (the greeting's completion waited for on the CQ's FD in a Selector), {@code fi_rdm}, {@code fi_cq_data
 * -e msg|rdm}, {@code fi_unexpected_msg -e rdm}, {@code fi_cm_data}. The C side's exit status 0 says that the greeting or the CQ data
 * it checked was fabtests' and that the choreography (receive before connect, the in-band address
 * exchange, the 1-byte answer) matched; a C client that sends a wrong greeting or wrong CQ data
 * ({@code -X}) makes the JOFI server fail with fabtests' exit status.
 */
@Timeout(120)
class FtProgramsInteropTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    /** The programs and their endpoint type (fabtests' -e, the C peer's provider). */
    static Stream<Arguments> programs() {
        return Stream.of(
                Arguments.of("fi_msg", "msg"),
                Arguments.of("fi_msg_epoll", "msg"),
                Arguments.of("fi_rdm", "rdm"),
                Arguments.of("fi_cq_data", "msg"),
                Arguments.of("fi_cq_data", "rdm"));
    }

    /** The C stand-in's mode: fi_msg_epoll differs from fi_msg only in how a side waits, not on the wire. */
    static String cProgram(String program) {
        return program.equals("fi_msg_epoll") ? "fi_msg" : program;
    }

    static CapturedRun jofi(String program, String endpoint, String... more) {
        List<String> args = new ArrayList<>(List.of(program, "-p", "tcp", "-e", endpoint, "--timeout", "20"));
        args.addAll(List.of(more));
        return CapturedRun.of("ft", args, Fabrics.standalone());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(NativePeer.HOST))) {
            return s.getLocalPort();
        }
    }

    /**
     * Waits (bounded, 30 s) until something listens on {@code port}, or the server has ended. It
     * reads the kernel's socket tables rather than probing the port: a probe that binds it, even
     * for a moment, can make the server's own bind fail (seen in CI: the client then found no
     * listener and reported ECONNREFUSED).
     */
    static void awaitListening(int port, Future<?> server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!server.isDone() && !listening(port)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("nothing listens on port " + port + " after 30 s");
            }
            Thread.sleep(20);
        }
    }

    /** Whether /proc/net/tcp or tcp6 shows a socket in state LISTEN (0A) on {@code port}. */
    static boolean listening(int port) {
        String local = String.format(":%04X ", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 3 && (f[1] + " ").endsWith(local) && f[3].equals("0A")) {
                        return true;
                    }
                }
            } catch (IOException absent) {
                // no IPv6 table on this kernel: the other table decides
            }
        }
        return false;
    }

    @ParameterizedTest(name = "C server, jofi client: {0} -e {1}")
    @MethodSource("programs")
    void jofiClientAgainstCServer(String program, String endpoint) {
        try (NativePeer peer = NativePeer.ftServer(cProgram(program), "-e", endpoint)) {
            CapturedRun client = jofi(program, endpoint, "-P", Integer.toString(peer.port()), NativePeer.HOST);
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(String.join("\n", peer.output()).contains(program.equals("fi_cq_data")
                    ? "remote_cq_data: success" : "Received data from client: Hello from Client!"), peer::transcript);
        }
    }

    @ParameterizedTest(name = "jofi server, C client: {0} -e {1}")
    @MethodSource("programs")
    void cClientAgainstJofiServer(String program, String endpoint) throws Exception {
        NativeProgram.require("ft_peer");
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(program, endpoint, "-s", NativePeer.HOST,
                "-B", Integer.toString(port)));
        awaitListening(port, server);
        try (NativePeer peer = NativePeer.ftClient(cProgram(program), port, "-e", endpoint)) {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(s.out().contains(program.equals("fi_cq_data") ? "remote_cq_data: success"
                    : "Data check OK\nReceived data from client: Hello from Client!"), s::out);
        }
    }

    @ParameterizedTest(name = "jofi to jofi over tcp: {0} -e {1}")
    @MethodSource("programs")
    void jofiToJofi(String program, String endpoint) throws Exception {
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(program, endpoint, "-s", NativePeer.HOST,
                "-B", Integer.toString(port)));
        awaitListening(port, server);
        CapturedRun client = jofi(program, endpoint, "-P", Integer.toString(port), NativePeer.HOST);
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, client.status(), () -> client.err() + client.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
    }

    /** fi_rdm -C 2: a persistent server greets two clients, one after the other. */
    @Test
    void persistentRdmServerGreetsTwoClients() throws Exception {
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_rdm", "rdm", "-C", "2", "-s", NativePeer.HOST,
                "-B", Integer.toString(port)));
        awaitListening(port, server);
        for (int i = 0; i < 2; i++) {
            CapturedRun client = jofi("fi_rdm", "rdm", "-P", Integer.toString(port), NativePeer.HOST);
            assertEquals(0, client.status(), () -> client.err() + client.out());
        }
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertEquals(2, s.out().split("Data check OK", -1).length - 1, s::out);
    }

    /**
     * fi_unexpected_msg -e rdm -I 10: hints FI_RM_ENABLED (which libfabric's tcp and rxm offer, as
     * JOFI's: posts answer -EAGAIN, unexpected messages push back), the out-of-band socket for the
     * address exchange and the syncs, five tagged messages per iteration sent before their
     * receives, which are posted in reverse tag order.
     */
    @Test
    void unexpectedMessagesJofiToJofi() throws Exception {
        int port = freePort();
        String bsync = "-b=" + freePort(); // the out-of-band port: not fabtests' 3000, which may be taken
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_unexpected_msg", "rdm", "-I", "10", bsync, "-s",
                NativePeer.HOST, "-B", Integer.toString(port)));
        CapturedRun client = null;
        for (int attempt = 0; attempt < 100 && !server.isDone(); attempt++) {
            client = jofi("fi_unexpected_msg", "rdm", "-I", "10", bsync, "-s", NativePeer.HOST, "-P",
                    Integer.toString(port), NativePeer.HOST);
            if (client.status() != 111) { // the server's out-of-band socket not listening yet
                break;
            }
            Thread.sleep(50);
        }
        CapturedRun c = client;
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertTrue(s.out().contains("GOOD all done") && c.out().contains("GOOD iter 0/10 completed"), s::out);
    }

    /** fi_unexpected_msg -e rdm -I 10 against the C stand-in (tcp;ofi_rxm), both roles: C server, JOFI client. */
    @Test
    void unexpectedMessagesJofiClientAgainstCServer() {
        try (NativePeer peer = NativePeer.ftServer("fi_unexpected_msg", "-b", "0", "-I", "10")) {
            CapturedRun client = jofi("fi_unexpected_msg", "rdm", "-I", "10", "-b=" + peer.port(), "-s", NativePeer.HOST,
                    NativePeer.HOST);
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(String.join("\n", peer.output()).contains("GOOD all done"), peer::transcript);
        }
    }

    /** ... and JOFI server, C client. */
    @Test
    void unexpectedMessagesCClientAgainstJofiServer() throws Exception {
        NativeProgram.require("ft_peer");
        int oob = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_unexpected_msg", "rdm", "-I", "10", "-b=" + oob, "-s",
                NativePeer.HOST, "-B", Integer.toString(freePort())));
        awaitListening(oob, server);
        try (NativePeer peer = NativePeer.ftClient("fi_unexpected_msg", oob, "-b", Integer.toString(oob), "-I", "10",
                "-s", NativePeer.HOST)) {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(s.out().contains("GOOD all done"), s::out);
        }
    }

    /**
     * fi_cm_data: connection data of 1 ... 256 bytes (FI_OPT_CM_DATA_SIZE), rejected then accepted
     * per size with the data checked in the request, the rejection's error entry and FI_CONNECTED,
     * FI_SHUTDOWN on both sides, the management socket's 4-byte syncs, the oversized connect's
     * -FI_EINVAL: C server and JOFI client, JOFI server and C client, JOFI to JOFI.
     */
    @Test
    void cmDataBothRolesAndJofiToJofi() throws Exception {
        NativeProgram.require("ft_peer");
        String sock = Integer.toString(freePort());
        try (NativePeer peer = NativePeer.ftServer("fi_cm_data", "-q", sock)) {
            CapturedRun client = jofi("fi_cm_data", "msg", "-q", sock, "-P", Integer.toString(peer.port()), NativePeer.HOST);
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(client.out().contains("trying with data size: 256\ntrying with data size exceeding maximum: 257"),
                    client::out);
        }
        for (boolean cClient : new boolean[] {true, false}) {
            int port = freePort();
            int mgmt = freePort();
            Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_cm_data", "msg", "-q", Integer.toString(mgmt),
                    "-s", NativePeer.HOST, "-B", Integer.toString(port)));
            awaitListening(mgmt, server); // the management socket listens after the fabric port
            if (cClient) {
                try (NativePeer peer = NativePeer.ftClient("fi_cm_data", port, "-q", Integer.toString(mgmt))) {
                    peer.assertSucceeded();
                }
            } else {
                CapturedRun client = jofi("fi_cm_data", "msg", "-q", Integer.toString(mgmt), "-P", Integer.toString(port),
                        NativePeer.HOST);
                assertEquals(0, client.status(), () -> client.err() + client.out());
            }
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out());
            assertTrue(s.out().contains("trying with data size: 256"), s::out);
        }
    }

    /**
     * fi_poll -t queue|counter: the CQs (or counters) in a poll set, one 1024-byte message each way
     * after the address exchange: C server and JOFI client, JOFI server and C client, JOFI to JOFI.
     */
    @ParameterizedTest(name = "fi_poll -t {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"queue", "counter"})
    void pollBothRolesAndJofiToJofi(String type) throws Exception {
        NativeProgram.require("ft_peer");
        String event = type.equals("queue") ? "Recv completion received" : "Recv counter poll-event";
        try (NativePeer peer = NativePeer.ftServer("fi_poll")) {
            CapturedRun client = jofi("fi_poll", "rdm", "-t", type, "-P", Integer.toString(peer.port()), NativePeer.HOST);
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(client.out().contains(event), client::out);
        }
        for (boolean cClient : new boolean[] {true, false}) {
            int port = freePort();
            Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_poll", "rdm", "-t", type, "-s", NativePeer.HOST,
                    "-B", Integer.toString(port)));
            awaitListening(port, server);
            if (cClient) {
                try (NativePeer peer = NativePeer.ftClient("fi_poll", port)) {
                    peer.assertSucceeded();
                }
            } else {
                CapturedRun client = jofi("fi_poll", "rdm", "-t", type, "-P", Integer.toString(port), NativePeer.HOST);
                assertEquals(0, client.status(), () -> client.err() + client.out());
            }
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out());
            assertTrue(s.out().contains(event), s::out);
        }
    }

    /** A wrong greeting fails the server with fabtests' exit 1, wrong CQ data with -FI_EIO (exit 5). */
    @Test
    void aWrongGreetingOrCqDataFailsTheServer() throws Exception {
        for (String[] c : new String[][] {{"fi_msg", "msg", "1", "Received message does not match expected message."},
                {"fi_cq_data", "rdm", "5", "error, Expected data:0x123456789abcdef, Received data:0x123456789abcdf0"}}) {
            NativeProgram.require("ft_peer");
            int port = freePort();
            Future<CapturedRun> server = SERVERS.submit(() -> jofi(c[0], c[1], "-s", NativePeer.HOST,
                    "-B", Integer.toString(port)));
            awaitListening(port, server);
            try (NativePeer peer = NativePeer.ftClient(c[0], port, "-e", c[1], "-X")) {
                CapturedRun s = server.get(60, TimeUnit.SECONDS);
                assertEquals(Integer.parseInt(c[2]), s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
                assertTrue((s.out() + s.err()).contains(c[3]), () -> s.err() + s.out());
            }
        }
    }

    /** Options as fabtests parses them: an unknown letter prints the usage and exits 1; an unknown program is a usage error. */
    @Test
    void badOptionsAreUsageErrors() {
        CapturedRun unknown = CapturedRun.of("ft", List.of("fi_msg", "-Z"), Fabrics.standalone());
        assertEquals(1, unknown.status(), unknown::err);
        assertTrue(unknown.err().contains("invalid option -- 'Z'") && unknown.err().contains("Usage:"), unknown::err);
        CapturedRun noSuch = CapturedRun.of("ft", List.of("fi_nothing"), Fabrics.standalone());
        assertEquals(2, noSuch.status(), noSuch::err);
        assertTrue(noSuch.err().contains("unknown program 'fi_nothing'"), noSuch::err);
    }
}
