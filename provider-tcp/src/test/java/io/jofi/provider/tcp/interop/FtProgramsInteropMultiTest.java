package io.jofi.provider.tcp.interop;

import static io.jofi.provider.tcp.interop.FtProgramsInteropTest.awaitListening;
import static io.jofi.provider.tcp.interop.FtProgramsInteropTest.freePort;
import static io.jofi.provider.tcp.interop.FtProgramsInteropTest.jofi;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code ./jofi ft} for fabtests' {@code fi_rdm -U}, {@code fi_bw -e msg|rdm -v -T 1} (± {@code -U}),
 * {@code fi_rdm_multi_client -C N -I 5} (± {@code -U}; {@code -R}: the later clients at the first one's
 * address), {@code fi_multi_ep -e msg|rdm -v} and {@code fi_av_xfer -e rdm} against the project's C stand-in
 * ({@code src/test/c/ft_peer_multi.c}: libfabric 1.17's tcp for MSG, tcp;ofi_rxm for RDM), each in
 * both roles, and JOFI against JOFI over tcp. {@code -U} asks {@code FI_DELIVERY_COMPLETE} as the
 * hints' transmit op flags, which getinfo must match and return. The C side's exit status 0 says its
 * checks held (the greeting, fabtests' data pattern in every receive of every window with
 * {@code -v}, every pingpong of every client).
 */
@Timeout(120)
class FtProgramsInteropMultiTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-multi-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    /** The line a passing server prints last (JOFI's and the C stand-in's alike). */
    private static String done(String program) {
        return switch (program) {
            case "fi_rdm" -> "Received data from client: Hello from Client!";
            case "fi_rdm_multi_client" -> "Ping-pong succeeds.";
            default -> "1m";
        };
    }

    private static String[] words(String options) {
        return options.isBlank() ? new String[0] : options.trim().split(" ");
    }

    private static String[] with(String options, String... more) {
        List<String> all = new ArrayList<>(List.of(words(options)));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @ParameterizedTest(name = "C server, jofi client: {0} -e {1} {2}")
    @CsvSource({"fi_rdm, rdm, -U", "fi_bw, msg, -v -T 1", "fi_bw, rdm, -v -T 1 -U", "fi_rdm_multi_client, rdm, -C 3 -I 5 -U",
            "fi_rdm_multi_client, rdm, -C 3 -I 5 -R"})
    void jofiClientAgainstCServer(String program, String endpoint, String options) {
        try (NativePeer peer = NativePeer.ftMultiServer(program, with(options, "-e", endpoint))) {
            CapturedRun client = jofi(program, endpoint, with(options, "-P", Integer.toString(peer.port()), NativePeer.HOST));
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            String peerOut = String.join("\n", peer.output());
            assertTrue(program.equals("fi_bw") ? peerOut.contains("bytes 1048576 window 64 ok")
                    : peerOut.contains(done(program)), peer::transcript);
            if (program.equals("fi_rdm_multi_client")) {
                assertTrue(client.out().contains("Starting client: 2"), client::out);
            }
        }
    }

    @ParameterizedTest(name = "jofi server, C client: {0} -e {1} {2}")
    @CsvSource({"fi_rdm, rdm, -U", "fi_bw, msg, -v -T 1", "fi_bw, rdm, -v -T 1 -U", "fi_rdm_multi_client, rdm, -C 3 -I 5 -U",
            "fi_rdm_multi_client, rdm, -C 3 -I 5 -R"})
    void cClientAgainstJofiServer(String program, String endpoint, String options) throws Exception {
        NativeProgram.require("ft_peer_multi");
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(program, endpoint,
                with(options, "-s", NativePeer.HOST, "-B", Integer.toString(port))));
        awaitListening(port, server);
        try (NativePeer peer = NativePeer.ftMultiClient(program, port, with(options, "-e", endpoint))) {
            CapturedRun s = server.get(90, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(s.out().contains(done(program)), s::out);
            if (program.equals("fi_rdm_multi_client")) {
                assertEquals(3, s.out().split("Ping-pong succeeds", -1).length - 1, s::out);
            }
        }
    }

    /**
     * fi_av_xfer -e rdm against the C stand-in (libfabric 1.17's tcp;ofi_rxm), both roles: the peer's
     * address removed from the AV on both sides and inserted again between two tagged messages. JOFI
     * keeps a removed peer's connection, as libfabric does unless FI_AV_REMOVE_CLEANUP is set; the C
     * peer relies on it (when JOFI closed it, the C side's next message raced the reset).
     */
    @ParameterizedTest(name = "fi_av_xfer -e rdm, C {0}")
    @ValueSource(strings = {"server", "client"})
    void avXferAgainstC(String cRole) throws Exception {
        NativeProgram.require("ft_peer_multi");
        String[] passes = {"AV address removal: PASS", "AV re-insertion address: PASS"};
        if (cRole.equals("server")) {
            try (NativePeer peer = NativePeer.ftMultiServer("fi_av_xfer", "-e", "rdm", "-E", "0")) {
                CapturedRun client = jofi("fi_av_xfer", "rdm", "-E=" + peer.port(), "-s", NativePeer.HOST,
                        NativePeer.HOST);
                assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
                peer.assertSucceeded();
                for (String pass : passes) {
                    assertTrue(client.out().contains(pass), client::out);
                    assertTrue(String.join("\n", peer.output()).contains(pass), peer::transcript);
                }
            }
            return;
        }
        int oob = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_av_xfer", "rdm", "-E=" + oob, "-s", NativePeer.HOST));
        awaitListening(oob, server);
        try (NativePeer peer = NativePeer.ftMultiClient("fi_av_xfer", oob, "-e", "rdm", "-E", Integer.toString(oob))) {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            for (String pass : passes) {
                assertTrue(s.out().contains(pass), s::out);
                assertTrue(String.join("\n", peer.output()).contains(pass), peer::transcript);
            }
        }
    }

    /**
     * fi_multi_ep -e msg|rdm -v against the C stand-in, C server and JOFI client, JOFI server and C client
     * (three more endpoints with CQs of their own, RDM names over the out-of-band socket, -E, which
     * listens first; the fabric port is -B). JOFI to JOFI over tcp: {@code FtMultiEpThreadsTest}.
     */
    @ParameterizedTest(name = "fi_multi_ep -e {0} -v, C server and C client")
    @ValueSource(strings = {"msg", "rdm"})
    void multiEpAgainstC(String endpoint) throws Exception {
        NativeProgram.require("ft_peer_multi");
        String port = Integer.toString(freePort());
        try (NativePeer peer = NativePeer.ftMultiServer("fi_multi_ep", "-e", endpoint, "-v", "-E", "0", "-B", port)) {
            CapturedRun client = jofi("fi_multi_ep", endpoint, "-v", "-E=" + peer.port(), "-s", NativePeer.HOST, "-P",
                    port, NativePeer.HOST);
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(client.out().contains("Data check OK\nPASSED multi ep"), client::out);
        }
        int oob = freePort();
        String fabricPort = Integer.toString(freePort());
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_multi_ep", endpoint, "-v", "-E=" + oob, "-s",
                NativePeer.HOST, "-B", fabricPort));
        awaitListening(oob, server);
        try (NativePeer peer = NativePeer.ftMultiClient("fi_multi_ep", Integer.parseInt(fabricPort), "-e", endpoint,
                "-v", "-E", Integer.toString(oob))) {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(s.out().contains("Creating 3 EPs") && s.out().contains("Data check OK\nPASSED multi ep"), s::out);
        }
    }

    /**
     * fi_av_xfer -e rdm JOFI to JOFI over tcp: both tests (the peer's address removed and inserted
     * again between two tagged messages) pass.
     */
    @org.junit.jupiter.api.Test
    void avXferJofiToJofi() throws Exception {
        String oob = "-E=" + freePort();
        CapturedRun[] client = new CapturedRun[1];
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_av_xfer", "rdm", oob, "-s", NativePeer.HOST));
        for (int attempt = 0; attempt < 100 && (client[0] == null || client[0].status() == 111) && !server.isDone(); attempt++) {
            if (client[0] != null) {
                Thread.sleep(100); // the server's out-of-band socket is not listening yet
            }
            client[0] = jofi("fi_av_xfer", "rdm", oob, "-s", NativePeer.HOST, NativePeer.HOST);
        }
        CapturedRun c = client[0];
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        for (CapturedRun run : new CapturedRun[] {s, c}) {
            assertTrue(run.out().contains("AV address removal: PASS\nAV re-insertion address: PASS"), run::out);
        }
    }

    /**
     * fi_multi_recv -e rdm -I 5 JOFI to JOFI over tcp (-v, ±-M): the receive op flags FI_MULTI_RECV (which
     * getinfo must match and return), each half of the buffer released after as many messages as it holds
     * and posted again. Not against C: libfabric 1.17's tcp excludes it (tcp.exclude).
     */
    @ParameterizedTest(name = "fi_multi_recv -e rdm {0}")
    @ValueSource(strings = {"-I 5 -v", "-I 300 -S 4096 -v -M"})
    void multiRecvJofiToJofi(String options) throws Exception {
        String oob = "-E=" + freePort();
        CapturedRun[] client = new CapturedRun[1];
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_multi_recv", "rdm", with(options, oob, "-s",
                NativePeer.HOST)));
        for (int attempt = 0; attempt < 100 && (client[0] == null || client[0].status() == 111) && !server.isDone(); attempt++) {
            if (client[0] != null) {
                Thread.sleep(100); // the server's out-of-band socket is not listening yet
            }
            client[0] = jofi("fi_multi_recv", "rdm", with(options, oob, "-s", NativePeer.HOST, NativePeer.HOST));
        }
        CapturedRun c = client[0];
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertTrue(s.out().contains("bytes   iters"), s::out);
    }

    @ParameterizedTest(name = "jofi to jofi over tcp: {0} -e {1} {2}")
    @CsvSource({"fi_rdm, rdm, -U", "fi_bw, msg, -v -T 1 -U", "fi_bw, rdm, -v -T 1", "fi_rdm_multi_client, rdm, -C 3 -I 5",
            "fi_rdm_multi_client, rdm, -C 3 -I 5 -R"})
    void jofiToJofi(String program, String endpoint, String options) throws Exception {
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(program, endpoint,
                with(options, "-s", NativePeer.HOST, "-B", Integer.toString(port))));
        awaitListening(port, server);
        CapturedRun client = jofi(program, endpoint, with(options, "-P", Integer.toString(port), NativePeer.HOST));
        for (int attempt = 0; attempt < 20 && client.status() == 111 && !server.isDone(); attempt++) {
            Thread.sleep(100); // bound is not yet listening (an MSG server binds, then listens): refused, again
            client = jofi(program, endpoint, with(options, "-P", Integer.toString(port), NativePeer.HOST));
        }
        CapturedRun s = server.get(90, TimeUnit.SECONDS);
        CapturedRun c = client;
        assertEquals(0, c.status(), () -> c.err() + c.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertTrue(s.out().contains(done(program)), s::out);
        assertTrue(c.out().contains(program.equals("fi_rdm") ? "Send completion received" : done(program)), c::out);
    }
}
