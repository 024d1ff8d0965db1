package io.jofi.provider.tcp.interop;

import static io.jofi.provider.tcp.interop.FabtestsChoreographyTest.assertSameTable;
import static io.jofi.provider.tcp.interop.FabtestsChoreographyTest.connectWithRetry;
import static io.jofi.provider.tcp.interop.FabtestsChoreographyTest.freePort;
import static io.jofi.provider.tcp.interop.FabtestsChoreographyTest.jofi;
import static io.jofi.provider.tcp.interop.FabtestsChoreographyTest.jofiArgs;
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
 * {@code ./jofi}'s RDM choreographies against the project's C peer over libfabric 1.17's
 * {@code tcp;ofi_rxm} (jofi_peer.c with {@code -e rdm}), each in both roles, with fabtests'
 * {@code -v} data check on both sides: {@code pingpong -e rdm} as fi_rdm_pingpong,
 * {@code --tagged} as fi_rdm_tagged_pingpong / fi_rdm_tagged_bw (the C side checks every
 * received tag as fabtests does), {@code bw -e rdm} untagged, and {@code rma_bw -e rdm -o
 * write|read|writedata} (and {@code -U}) as fi_rma_bw -e rdm. Every run starts with fabtests'
 * in-band address exchange; the ranges cross rxm's 16 KiB eager limit, so messages go eager
 * and by rendezvous, and single sizes far above it. Both sides must print the same table
 * rows; the C side's exit status 0 says every check held. Skipped without libfabric-dev.
 */
@Timeout(120)
class RdmFabtestsChoreographyTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "rdm-fabtests-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    /** The choreographies: the tools command and C mode, and their options (fabtests' letters, ./jofi's --tagged). */
    static Stream<Arguments> choreographies() {
        return Stream.of(
                Arguments.of("pingpong", List.of("-S", "r:1,6000,36001", "-I", "20", "-w", "2", "-v")),
                Arguments.of("pingpong", List.of("-S", "262144", "-I", "10", "-w", "1", "-v")),
                Arguments.of("pingpong", List.of("--tagged", "-S", "r:1,6000,36001", "-I", "20", "-w", "2", "-v")),
                Arguments.of("bw", List.of("--tagged", "-S", "r:100,8000,40100", "-I", "45", "-w", "3", "-W", "8", "-v")),
                Arguments.of("bw", List.of("--tagged", "-S", "131072", "-I", "20", "-w", "1", "-W", "16", "-v")),
                Arguments.of("bw", List.of("-S", "r:100,8000,40100", "-I", "45", "-w", "3", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "write", "-S", "r:64,8000,40064", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "write", "-U", "-S", "4096", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "read", "-S", "r:64,8000,40064", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "writedata", "-S", "r:64,8000,40064", "-I", "30", "-w", "2", "-W", "8", "-v")),
                Arguments.of("rma_bw", List.of("-o", "writedata", "-U", "-S", "65536", "-I", "21", "-w", "1", "-W", "4", "-v")));
    }

    private static String[] cOptions(List<String> options) {
        List<String> c = new ArrayList<>(List.of("-e", "rdm"));
        c.addAll(options);
        return c.toArray(String[]::new);
    }

    @ParameterizedTest(name = "C server, jofi client, rdm: {0} {1}")
    @MethodSource("choreographies")
    void jofiClientAgainstCServer(String mode, List<String> options) {
        NativePeer.assumeNativeLibfabric();
        try (NativePeer peer = NativePeer.fabtestsServer(mode, cOptions(options))) {
            CapturedRun client = jofi(mode, jofiArgs("rdm", options, "-P", Integer.toString(peer.port()), NativePeer.HOST));
            assertEquals(0, client.status(), () -> "jofi " + mode + " client: " + client.err() + "\n" + client.out()
                    + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(peer.output().contains("provider tcp;ofi_rxm"), peer::transcript);
            assertSameTable(client, peer);
        }
    }

    @ParameterizedTest(name = "jofi server, C client, rdm: {0} {1}")
    @MethodSource("choreographies")
    void cClientAgainstJofiServer(String mode, List<String> options) throws Exception {
        NativePeer.assumeNativeLibfabric();
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = SERVERS.submit(() -> jofi(mode, jofiArgs("rdm", options, "-B", port, "-s", NativePeer.HOST)));
        NativePeer peer = connectWithRetry(mode, Integer.parseInt(port), List.of(cOptions(options)));
        try {
            CapturedRun s = server.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> "jofi " + mode + " server: " + s.err() + "\n" + s.out() + "\n" + peer.transcript());
            peer.assertSucceeded();
            assertTrue(peer.output().contains("provider tcp;ofi_rxm"), peer::transcript);
            assertSameTable(s, peer);
        } finally {
            peer.close();
        }
    }

    /**
     * -v over rxm catches a wrong byte in an eager message and in a rendezvous one: the C
     * server sends byte 5 of every message wrong (-X), the JOFI client fails its check.
     */
    @Test
    void aWrongByteIsADataCheckError() {
        NativePeer.assumeNativeLibfabric();
        for (String size : new String[] {"1024", "40000"}) {
            List<String> options = List.of("--tagged", "-S", size, "-I", "5", "-w", "1");
            List<String> corrupt = new ArrayList<>(options);
            corrupt.add("-X");
            try (NativePeer peer = NativePeer.fabtestsServer("pingpong", cOptions(corrupt))) {
                CapturedRun client = jofi("pingpong", jofiArgs("rdm", options, "-v", "-P", Integer.toString(peer.port()), NativePeer.HOST));
                assertEquals(1, client.status(), () -> client.err() + client.out());
                assertTrue(client.err().contains("Data check error (5!=#) at byte 5 for buffer size " + size), client::err);
            }
        }
    }

    /**
     * The C side's tag check can fail: a JOFI client without {@code --tagged} against a tagged
     * C server sends untagged messages no tagged receive matches, so the C server's address
     * exchange never completes (its watchdog fires) and the JOFI client's own wait times out.
     */
    @Test
    void untaggedAgainstTaggedDoesNotPass() {
        NativePeer.assumeNativeLibfabric();
        List<String> options = List.of("-S", "64", "-I", "3", "-w", "0");
        List<String> tagged = new ArrayList<>(List.of("--tagged", "-t", "5"));
        tagged.addAll(options);
        try (NativePeer peer = NativePeer.fabtestsServer("pingpong", cOptions(tagged))) {
            List<String> args = new ArrayList<>(jofiArgs("rdm", options, "-P", Integer.toString(peer.port()), NativePeer.HOST));
            args.set(args.indexOf("--timeout") + 1, "3");
            CapturedRun client = jofi("pingpong", args);
            assertEquals(1, client.status(), () -> client.err() + client.out());
            assertTrue(peer.awaitExit(NativePeer.TIMEOUT) != 0, peer::transcript);
        }
    }
}
