package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Proves the C peer against itself (C server with C client, both on libfabric's tcp provider)
 * before it is used to judge JOFI: every scenario the interop tests use passes, and every
 * expectation the peer checks really fails when the other side does something else — so a
 * green interop test means the expectation held, not that the peer never looked.
 */
class NativePeerSelfTest {

    /** Per test, not per class: surefire shows a class-level assumption as 0 tests, hiding the reason. */
    @BeforeEach
    void nativeLibfabric() {
        NativePeer.assumeNativeLibfabric();
    }

    /** Runs both scripts against each other and asserts that both succeed. */
    private static Pair succeed(List<String> server, List<String> client) {
        Pair pair = run(server, client);
        pair.server.assertSucceeded();
        pair.client.assertSucceeded();
        return pair;
    }

    private static Pair run(List<String> server, List<String> client) {
        NativePeer s = NativePeer.server(server.toArray(String[]::new));
        NativePeer c;
        try {
            c = NativePeer.client(s.port(), client.toArray(String[]::new));
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
        return new Pair(s, c);
    }

    private record Pair(NativePeer server, NativePeer client) implements AutoCloseable {
        @Override
        public void close() {
            server.close();
            client.close();
        }
    }

    private static void assertPrinted(NativePeer peer, String line) {
        assertTrue(peer.output().contains(line), () -> "missing line '" + line + "'\n" + peer.transcript());
    }

    private static void assertFailedWith(NativePeer peer, int status, String failText) {
        int actual = peer.awaitExit(NativePeer.TIMEOUT);
        assertEquals(status, actual, () -> "exit status\n" + peer.transcript());
        assertTrue(peer.output().stream().anyMatch(l -> l.startsWith("FAIL") && l.contains(failText)),
                () -> "no FAIL line containing '" + failText + "'\n" + peer.transcript());
    }

    // ------------------------------------------------------------------ connection management

    @Test
    void connectionDataTravelsBothWays() {
        try (Pair p = succeed(
                List.of("expect-connreq:ClientData", "accept:ACCEPT", "expect-shutdown"),
                List.of("connect:ClientData", "expect-connected:ACCEPT", "shutdown"))) {
            assertPrinted(p.server, "FI_CONNREQ data=\"ClientData\" OK");
            assertPrinted(p.client, "FI_CONNECTED data=\"ACCEPT\" OK");
        }
    }

    @Test
    void connectionDataOfTheFull256BytesAndOfNone() {
        try (Pair p = succeed(
                List.of("expect-connreq:@256", "accept:", "expect-shutdown"),
                List.of("connect:@256", "expect-connected:", "shutdown"))) {
            assertPrinted(p.client, "FI_CONNECTED data=\"\" OK");
        }
    }

    @Test
    void rejectGivesEconnrefusedWithTheRejectDataAndTheListenerStaysUsable() {
        try (Pair p = succeed(
                List.of("expect-connreq:first", "reject:REJECT-DATA", "expect-connreq:second", "accept:ok",
                        "expect-shutdown"),
                List.of("connect:first", "expect-refused:REJECT-DATA", "connect:second", "expect-connected:ok",
                        "shutdown"))) {
            assertPrinted(p.client, "ECONNREFUSED err data=\"REJECT-DATA\" OK");
        }
    }

    @Test
    void shutdownFromTheServerGivesOneShutdownOnEachSide() {
        // libfabric 1.17 reports FI_SHUTDOWN to the side that called fi_shutdown as well
        succeed(List.of("expect-connreq:", "accept:", "shutdown", "expect-shutdown", "quiet:200"),
                List.of("connect:", "expect-connected:", "expect-shutdown", "quiet:200")).close();
    }

    @Test
    void shutdownFromTheClientGivesOneShutdownOnEachSide() {
        succeed(List.of("expect-connreq:", "accept:", "expect-shutdown", "quiet:200"),
                List.of("connect:", "expect-connected:", "shutdown", "expect-shutdown", "quiet:200")).close();
    }

    // ------------------------------------------------------------------ data transfer

    @Test
    void sendAndReceiveEverySizeInBothDirections() {
        succeed(List.of("expect-connreq:", "accept:",
                        "recv:0", "recv:1", "recv:4096", "recv:1M",
                        "send:0", "send:1", "send:4096", "send:1M", "expect-shutdown"),
                List.of("connect:", "expect-connected:",
                        "send:0", "send:1", "send:4096", "send:1M",
                        "recv:0", "recv:1", "recv:4096", "recv:1M", "shutdown")).close();
    }

    @Test
    void remoteCqDataInBothDirections() {
        succeed(List.of("expect-connreq:", "accept:",
                        "recvdata:8:0xa1b2c3d4e5f60718", "recvdata:0:1", "recvdata:1M:0xffffffffffffffff",
                        "senddata:17:0x0102030405060708", "expect-shutdown"),
                List.of("connect:", "expect-connected:",
                        "senddata:8:0xa1b2c3d4e5f60718", "senddata:0:1", "senddata:1M:0xffffffffffffffff",
                        "recvdata:17:0x0102030405060708", "shutdown")).close();
    }

    @Test
    void deliveryCompleteSendsInBothDirections() {
        succeed(List.of("expect-connreq:", "accept:", "recv:4096", "recvdata:1M:9", "recv:0",
                        "send:1:dc", "send:1M:dc", "expect-shutdown"),
                List.of("connect:", "expect-connected:", "send:4096:dc", "senddata:1M:9:dc", "send:0:dc",
                        "recv:1", "recv:1M", "shutdown")).close();
    }

    @Test
    void injectAndReceiveIntoALargerBuffer() {
        succeed(List.of("expect-connreq:", "accept:", "recv:64", "recv:17:4096", "expect-shutdown"),
                List.of("connect:", "expect-connected:", "inject:64", "send:17", "shutdown")).close();
    }

    // ------------------------------------------------------------------ the peer's checks bite

    @Test
    void wrongConnectionDataFails() {
        try (Pair p = run(List.of("expect-connreq:expected", "accept:"),
                List.of("connect:other", "sleep:100"))) {
            assertFailedWith(p.server, 1, "FI_CONNREQ data \"other\", expected \"expected\"");
        }
    }

    @Test
    void wrongAcceptDataFails() {
        try (Pair p = run(List.of("expect-connreq:", "accept:yes", "sleep:300"),
                List.of("connect:", "expect-connected:no"))) {
            assertFailedWith(p.client, 1, "FI_CONNECTED data \"yes\", expected \"no\"");
        }
    }

    @Test
    void rejectWhereAcceptWasExpectedFails() {
        try (Pair p = run(List.of("expect-connreq:", "reject:nope"),
                List.of("connect:", "expect-connected:"))) {
            assertFailedWith(p.client, 1, "got error 111 (Connection refused) with err_data \"nope\"");
        }
    }

    @Test
    void wrongSizeFails() {
        try (Pair p = run(List.of("expect-connreq:", "accept:", "recv:10:64"),
                List.of("connect:", "expect-connected:", "send:11", "sleep:300"))) {
            assertFailedWith(p.server, 1, "received 11 bytes, expected 10");
        }
    }

    @Test
    void wrongOrMissingCqDataFails() {
        try (Pair p = run(List.of("expect-connreq:", "accept:", "recvdata:10:6"),
                List.of("connect:", "expect-connected:", "senddata:10:5", "sleep:300"))) {
            assertFailedWith(p.server, 1, "CQ data 0x5, expected 0x6");
        }
        try (Pair p = run(List.of("expect-connreq:", "accept:", "recvdata:10:6"),
                List.of("connect:", "expect-connected:", "send:10", "sleep:300"))) {
            assertFailedWith(p.server, 1, "no FI_REMOTE_CQ_DATA");
        }
        try (Pair p = run(List.of("expect-connreq:", "accept:", "recv:10"),
                List.of("connect:", "expect-connected:", "senddata:10:5", "sleep:300"))) {
            assertFailedWith(p.server, 1, "unexpected FI_REMOTE_CQ_DATA");
        }
    }

    @Test
    void anEventDuringQuietFails() {
        try (Pair p = run(List.of("expect-connreq:", "accept:", "quiet:5000"),
                List.of("connect:", "expect-connected:", "shutdown"))) {
            assertFailedWith(p.server, 1, "unexpected FI_SHUTDOWN");
        }
    }

    @Test
    void theWatchdogEndsAPeerThatWaitsForever() {
        // a later -t overrides NativePeer's default; nobody connects within that second
        try (NativePeer lonely = NativePeer.server("-t", "1", "expect-connreq:")) {
            assertFailedWith(lonely, 3, "watchdog fired during expect-connreq:");
        }
    }

    // ------------------------------------------------------------------ fabtests choreography

    private static final Pattern TABLE_ROW =
            Pattern.compile("\\S+\\s+\\S+\\s+\\S+\\s+\\d+\\.\\d\\ds\\s+\\d+\\.\\d\\d\\s+\\d+\\.\\d\\d\\s+\\d+\\.\\d\\d");
    private static final String HEADER = "bytes   iters   total       time     MB/sec    usec/xfer   Mxfers/sec";

    @Test
    void pingpongOneSizeBothRolesPrintFabtestsTable() {
        NativePeer server = NativePeer.pingpongServer("-S", "4096", "-I", "50", "-w", "3");
        try (server; NativePeer client = NativePeer.pingpongClient(server.port(), "-S", "4096", "-I", "50", "-w", "3")) {
            client.assertSucceeded();
            server.assertSucceeded();
            for (NativePeer peer : List.of(server, client)) {
                assertPrinted(peer, HEADER);
                assertTrue(peer.output().stream().anyMatch(l -> l.startsWith("4k      50      400k    ")
                        && TABLE_ROW.matcher(l).matches()), peer::transcript);
            }
        }
    }

    @Test
    void pingpongDefaultSizes() {
        NativePeer server = NativePeer.pingpongServer("-I", "5");
        try (server; NativePeer client = NativePeer.pingpongClient(server.port(), "-I", "5")) {
            client.assertSucceeded();
            server.assertSucceeded();
            for (NativePeer peer : List.of(server, client)) {
                List<String> rows = peer.output().stream().filter(l -> TABLE_ROW.matcher(l).matches())
                        .map(l -> l.split("\\s+")[0]).toList();
                assertEquals(List.of("64", "256", "1k", "4k", "64k", "1m"), rows, peer::transcript);
            }
        }
    }
}
