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
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ./jofi ft PROGRAM} against the C stand-in {@code src/test/c/ft_peer_more.c} (libfabric
 * 1.17's tcp;ofi_rxm, tcp for fi_msg_sockets), each program in both roles, and JOFI to JOFI over
 * tcp: {@code fi_rdm_tagged_peek} (FI_PEEK, FI_CLAIM, FI_DISCARD on unexpected tagged messages),
 * {@code fi_recv_cancel -e rdm} (fi_cancel's FI_ECANCELED error entry, the cancelled tag received
 * once posted again), {@code fi_msg_inject} in the four variants runfabtests runs (FI_INJECT and
 * FI_INJECT_COMPLETE, as hinted transmit op flags or with {@code -N} as fi_tsendmsg flags, the
 * data checked) and {@code fi_msg_sockets} (passive endpoints on each side's socket address, the
 * endpoint's name checked after accept and before and after connect). The C side exits 0 only when
 * each search, completion, error entry or address it checked was what fabtests expects.
 */
@Timeout(120)
class FtProgramsInteropMoreTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ft-more-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    /** The RDM programs: JOFI's options, the C peer's, the line the server prints last, the client's. */
    static Stream<Arguments> programs() {
        return Stream.of(
                Arguments.of("fi_rdm_tagged_peek", "", "", "Waiting for messages to complete", "Retrieving fifth message"),
                Arguments.of("fi_recv_cancel", "-V", "", "GOOD: Completed Recv Cancel Test", "CANCEL msg posted to server"),
                Arguments.of("fi_msg_inject", "-A inject -v", "-A inject", "GOOD: Completed FI_INJECT Testing",
                        "GOOD: Completed FI_INJECT Testing"),
                Arguments.of("fi_msg_inject", "-N -A inject -v", "-N -A inject", "GOOD: Completed FI_INJECT Testing",
                        "GOOD: Completed FI_INJECT Testing"),
                Arguments.of("fi_msg_inject", "-A inj_complete -v", "-A inj_complete",
                        "GOOD: Completed FI_INJECT_COMPLETE Testing", "GOOD: Completed FI_INJECT_COMPLETE Testing"),
                Arguments.of("fi_msg_inject", "-N -A inj_complete -v", "-N -A inj_complete",
                        "GOOD: Completed FI_INJECT_COMPLETE Testing", "GOOD: Completed FI_INJECT_COMPLETE Testing"));
    }

    private static String[] words(String options, String... more) {
        List<String> all = new ArrayList<>();
        if (!options.isEmpty()) {
            all.addAll(List.of(options.split(" ")));
        }
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @ParameterizedTest(name = "C server, jofi client: {0} {1}")
    @MethodSource("programs")
    void jofiClientAgainstCServer(String program, String options, String cOptions, String serverLine, String clientLine) {
        try (NativePeer peer = NativePeer.ftMoreServer(program, words(cOptions))) {
            CapturedRun client = jofi(program, "rdm", words(options, "-P", Integer.toString(peer.port()), NativePeer.HOST));
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(client.out().contains(clientLine), client::out);
            assertTrue(String.join("\n", peer.output()).contains(serverLine), peer::transcript);
        }
    }

    @ParameterizedTest(name = "jofi server, C client: {0} {1}")
    @MethodSource("programs")
    void cClientAgainstJofiServer(String program, String options, String cOptions, String serverLine, String clientLine)
            throws Exception {
        NativeProgram.require("ft_peer_more");
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(program, "rdm", words(options, "-s", NativePeer.HOST,
                "-B", Integer.toString(port))));
        awaitListening(port, server);
        try (NativePeer peer = NativePeer.ftMoreClient(program, port, words(cOptions))) {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(s.out().contains(serverLine), s::out);
            assertTrue(String.join("\n", peer.output()).contains(clientLine), peer::transcript);
        }
    }

    /**
     * fabtests' {@code fi_rdm_tagged_peek} race, made certain (docs/FABTESTS.md item 18): the C
     * client sends its {@code ft_finalize} message before the sync, so the server's sync read takes
     * the finalize message's completion and its {@code ft_finalize} the sync's. The C program prints
     * the mismatch and exits 0 (its {@code run()} ignores {@code ft_finalize}'s return); so must
     * {@code ./jofi ft}, which exited 1.
     */
    @Test
    void taggedPeekServerPrintsAFinalizeMismatchAndExitsZeroAsC() throws Exception {
        NativeProgram.require("ft_peer_more");
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_rdm_tagged_peek", "rdm", "-s", NativePeer.HOST,
                "-B", Integer.toString(port)));
        awaitListening(port, server);
        try (NativePeer peer = NativePeer.ftMoreClient("fi_rdm_tagged_peek", port, "-F")) {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out() + "\n" + peer.transcript());
            assertTrue(s.err().contains("Tag mismatch!. Expected: 1, actual: 2748"), s::err);
            peer.assertSucceeded();
        }
    }

    @ParameterizedTest(name = "jofi to jofi over tcp: {0} {1}")
    @MethodSource("programs")
    void jofiToJofi(String program, String options, String cOptions, String serverLine, String clientLine) throws Exception {
        int port = freePort();
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(program, "rdm", words(options, "-s", NativePeer.HOST,
                "-B", Integer.toString(port))));
        awaitListening(port, server);
        CapturedRun client = jofi(program, "rdm", words(options, "-P", Integer.toString(port), NativePeer.HOST));
        CapturedRun s = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, client.status(), () -> client.err() + client.out());
        assertEquals(0, s.status(), () -> s.err() + s.out());
        assertTrue(s.out().contains(serverLine) && client.out().contains(clientLine), () -> s.out() + client.out());
    }

    /**
     * fi_msg_sockets: each side's passive endpoint on its own -s/-B address, printed as
     * {@code bound_addr}; C server and JOFI client, JOFI server and C client, JOFI to JOFI. The
     * client's address is a free port too (fabtests' default 9229 could be taken).
     */
    @Test
    void msgSocketsBothRolesAndJofiToJofi() throws Exception {
        String clientPort = Integer.toString(freePort());
        try (NativePeer peer = NativePeer.ftMoreServer("fi_msg_sockets")) {
            CapturedRun client = jofi("fi_msg_sockets", "msg", "-s", NativePeer.HOST, "-B", clientPort,
                    "-P", Integer.toString(peer.port()), NativePeer.HOST);
            assertEquals(0, client.status(), () -> client.err() + client.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(client.out().contains("bound_addr: \"[" + NativePeer.HOST + "]:" + clientPort + "\"\nSending message..."),
                    client::out);
            assertTrue(String.join("\n", peer.output()).contains("Received data from client: Hello from Client!"),
                    peer::transcript);
        }
        for (boolean cClient : new boolean[] {true, false}) {
            int port = freePort();
            String from = Integer.toString(freePort());
            Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_msg_sockets", "msg", "-s", NativePeer.HOST,
                    "-B", Integer.toString(port)));
            awaitListening(port, server);
            if (cClient) {
                try (NativePeer peer = NativePeer.ftMoreClient("fi_msg_sockets", port, "-s", NativePeer.HOST, "-B", from)) {
                    peer.assertSucceeded();
                }
            } else {
                CapturedRun client = jofi("fi_msg_sockets", "msg", "-s", NativePeer.HOST, "-B", from,
                        "-P", Integer.toString(port), NativePeer.HOST);
                assertEquals(0, client.status(), () -> client.err() + client.out());
            }
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> s.err() + s.out());
            assertTrue(s.out().startsWith("bound_addr: \"[" + NativePeer.HOST + "]:" + port + "\"\n")
                    && s.out().contains("Data check OK\nReceived data from client: Hello from Client!"), s::out);
        }
    }

    /**
     * fi_unexpected_msg -e msg -I 10, JOFI to JOFI over tcp (libfabric 1.17's tcp fails it C to C:
     * fi_getinfo -61): a MSG connection, the out-of-band socket for the syncs, five tagged messages
     * per iteration sent before their receives.
     */
    @Test
    void unexpectedMessagesOverMsgJofiToJofi() throws Exception {
        int port = freePort();
        String bsync = "-b=" + freePort(); // the out-of-band port: not fabtests' 3000, which may be taken
        Future<CapturedRun> server = SERVERS.submit(() -> jofi("fi_unexpected_msg", "msg", "-I", "10", bsync, "-s",
                NativePeer.HOST, "-B", Integer.toString(port)));
        CapturedRun client = null;
        for (int attempt = 0; attempt < 100 && !server.isDone(); attempt++) {
            client = jofi("fi_unexpected_msg", "msg", "-I", "10", bsync, "-s", NativePeer.HOST, "-P",
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
        assertTrue(s.out().contains("GOOD all done") && c.out().contains("GOOD all done"), s::out);
    }

    /** fi_msg_sockets without -s is fabtests' usage failure, before anything is opened. */
    @Test
    void msgSocketsNeedsTheSourceAddress() {
        CapturedRun run = jofi("fi_msg_sockets", "msg", "-P", "1", NativePeer.HOST);
        assertEquals(1, run.status(), run::err);
        assertTrue(run.err().contains("Source address (-s) is required for this test"), run::err);
    }
}
