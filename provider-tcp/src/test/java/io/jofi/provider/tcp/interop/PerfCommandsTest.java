package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The tools' {@code pingpong} and {@code bw} commands over JOFI's tcp provider, run through
 * their public entry point {@link Commands#run} with {@link Fabrics#standalone()}: JOFI ↔ JOFI
 * on 127.0.0.1, and JOFI ↔ the C peer's fabtests {@code fi_msg_pingpong} choreography in both
 * roles. Small iteration counts; only the table's rows and the exit status are checked. The
 * default JIT warm-up (seconds: its wait for a quiet compiler) runs in the MSG pingpong and the RDM
 * pingpong of each completion wait; the other runs skip it ({@code --jit-warmup 0}), it is not theirs to test.
 */
class PerfCommandsTest {
    private static final ExecutorService SERVERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "perf-server");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SERVERS.shutdownNow();
    }

    static CapturedRun run(String command, String... args) {
        return CapturedRun.of(command, List.of(args), Fabrics.standalone());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Future<CapturedRun> server(String command, String... args) {
        return SERVERS.submit(() -> run(command, args));
    }

    /** Runs the client once the server listens (retrying while the connection is refused). */
    private static CapturedRun client(String command, String... args) throws InterruptedException {
        CapturedRun r = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            r = run(command, args);
            if (r.status() == 0 || !r.err().contains("refused")) {
                return r;
            }
            Thread.sleep(100);
        }
        return r;
    }

    private static void assertTable(CapturedRun r, String... sizes) {
        assertEquals(0, r.status(), () -> "exit status; stdout:\n" + r.out() + "stderr:\n" + r.err());
        assertTrue(r.out().startsWith("bytes   iters   total       time     MB/sec    usec/xfer   Mxfers/sec\n"),
                () -> "fabtests' header:\n" + r.out());
        List<String> rows = r.rows();
        assertEquals(sizes.length, rows.size(), () -> "one row per size:\n" + r.out());
        for (int i = 0; i < sizes.length; i++) {
            String[] cols = rows.get(i).trim().split("\\s+");
            assertEquals(7, cols.length, "seven columns: " + rows.get(i));
            assertEquals(sizes[i], cols[0], "bytes column: " + rows.get(i));
            assertTrue(cols[3].endsWith("s"), "time column in seconds: " + rows.get(i));
        }
    }

    @Test
    void jofiPingpongServerAndClient() throws Exception {
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = server("pingpong", "-p", "tcp", "-e", "msg", "-I", "20", "-w", "2", "-B", port, "-s", "127.0.0.1");
        CapturedRun client = client("pingpong", "-p", "tcp", "-e", "msg", "-I", "20", "-w", "2", "-P", port, "127.0.0.1");
        assertTable(client, "64", "256", "1k", "4k", "64k", "1m");
        assertTable(server.get(30, TimeUnit.SECONDS), "64", "256", "1k", "4k", "64k", "1m");
        assertTrue(client.rows().get(0).trim().split("\\s+")[1].equals("20"), "iters column: " + client.out());
    }

    /**
     * The JIT warm-up runs on a private loopback connection on both sides (MSG and RDM), once
     * the measured connection is made, and is off with {@code --jit-warmup 0}; the
     * measured run is unchanged (the C peer tests prove its bytes are fabtests').
     */
    @Test
    void jitWarmupRunsOnBothSidesAndCanBeTurnedOff() throws Exception {
        for (String type : new String[] {"msg", "rdm"}) {
            String port = Integer.toString(freePort());
            Future<CapturedRun> server = server("bw", "-p", "tcp", "-e", type, "-S", "4k", "-I", "3", "-W", "8", "--percentiles",
                    "--jit-warmup", "300", "-B", port, "-s", "127.0.0.1");
            CapturedRun client = client("bw", "-p", "tcp", "-e", type, "-S", "4k", "-I", "3", "-W", "8", "--percentiles",
                    "--jit-warmup", "300", "-P", port, "127.0.0.1");
            CapturedRun s = server.get(30, TimeUnit.SECONDS);
            assertEquals(0, client.status(), () -> type + ": " + client.err());
            assertEquals(0, s.status(), () -> type + " server: " + s.err());
            assertTrue(client.out().contains("p50"), client::out);
            assertTrue(client.err().contains("JIT warm-up over loopback took"), type + " client: " + client.err());
            assertTrue(s.err().contains("JIT warm-up over loopback took"), type + " server: " + s.err());
        }
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = server("pingpong", "-p", "tcp", "-S", "64", "-I", "5", "--percentiles", "--jit-warmup", "0",
                "-B", port, "-s", "127.0.0.1");
        CapturedRun client = client("pingpong", "-p", "tcp", "-S", "64", "-I", "5", "--percentiles", "--jit-warmup", "0", "-P", port, "127.0.0.1");
        CapturedRun s = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, client.status(), client::err);
        assertEquals(0, s.status(), s::err);
        assertFalse(client.err().contains("warm-up"), client.err());
        assertFalse(s.err().contains("warm-up"), s.err());
    }

    @Test
    void everyCompletionWaitWorksWithPercentilesAndMachineLines() throws Exception {
        for (String mode : new String[] {"sread", "fd", "yield"}) {
            String port = Integer.toString(freePort());
            Future<CapturedRun> server = server("pingpong", "-p", "tcp", "--jit-warmup", "0", "-S", "4k", "-I", "30", "-c", mode, "-B", port, "-s", "127.0.0.1");
            CapturedRun client = client("pingpong", "-p", "tcp", "--jit-warmup", "0", "-S", "4k", "-I", "30", "-c", mode, "--percentiles", "-P", port, "127.0.0.1");
            assertEquals(0, client.status(), () -> mode + ": " + client.err());
            assertTrue(client.out().contains("p50") && client.out().contains("p99.9"), () -> mode + " --percentiles:\n" + client.out());
            CapturedRun s = server.get(30, TimeUnit.SECONDS);
            assertEquals(0, s.status(), () -> mode + " server: " + s.err());
        }
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = server("pingpong", "-p", "tcp", "--jit-warmup", "0", "-S", "100", "-I", "10", "-m", "-B", port, "-s", "127.0.0.1");
        CapturedRun client = client("pingpong", "-p", "tcp", "--jit-warmup", "0", "-S", "100", "-I", "10", "-m", "-P", port, "127.0.0.1");
        assertEquals(0, client.status(), client::err);
        assertTrue(client.out().contains("- { xfer_size: 100, iterations: 10, total: 2000, time: "), client::out);
        assertEquals(0, server.get(30, TimeUnit.SECONDS).status());
    }

    @Test
    void jofiBandwidth() throws Exception {
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = server("bw", "-p", "tcp", "--jit-warmup", "0", "-S", "64k", "-I", "5", "-W", "16", "-B", port, "-s", "127.0.0.1");
        CapturedRun client = client("bw", "-p", "tcp", "--jit-warmup", "0", "-S", "64k", "-I", "5", "-W", "16", "-P", port, "127.0.0.1");
        assertTable(client, "64k");
        assertTable(server.get(30, TimeUnit.SECONDS), "64k");
        String[] cols = client.rows().get(0).trim().split("\\s+");
        assertEquals("5", cols[1], "iters: messages, as fi_msg_bw's -I");
        assertEquals("320k", cols[2], "total = iters x size = 5 x 64k (fabtests counts messages, not windows)");
    }

    /** {@code -e rdm}: the server listens on -B, the client inserts it in its AV, the server learns the client (FI_SOURCE_ERR). */
    @Test
    void jofiRdmPingpongInEveryCompletionWait() throws Exception {
        for (String mode : new String[] {"spin", "sread"}) {
            String port = Integer.toString(freePort());
            Future<CapturedRun> server = server("pingpong", "-p", "tcp", "-e", "rdm", "-S", "1k", "-I", "20", "-w", "2", "-c", mode,
                    "-B", port, "-s", "127.0.0.1");
            CapturedRun client = client("pingpong", "-p", "tcp", "-e", "rdm", "-S", "1k", "-I", "20", "-w", "2", "-c", mode,
                    "-P", port, "127.0.0.1");
            assertTable(client, "1k");
            assertTable(server.get(30, TimeUnit.SECONDS), "1k");
        }
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = server("pingpong", "-p", "tcp", "-e", "rdm", "-I", "10", "-w", "2", "-B", port, "-s", "127.0.0.1");
        CapturedRun client = client("pingpong", "-p", "tcp", "-e", "rdm", "-I", "10", "-w", "2", "-P", port, "127.0.0.1");
        assertTable(client, "64", "256", "1k", "4k", "64k", "1m");
        assertTable(server.get(30, TimeUnit.SECONDS), "64", "256", "1k", "4k", "64k", "1m");
    }

    @Test
    void aClientWithoutAServerSaysThePeerIsNotThere() throws Exception {
        // before: "a send completion failed: Connection refused" and nothing more, the same
        // line that a server killed mid-run leaves (rxm connects again and meets no listener)
        // (MSG's connect names it already: "... after connect: Connection refused (is the server running?)")
        String[][] cases = {{"msg", "Connection refused (is the server running?)"},
                {"rdm", "Connection refused (the peer is not running, or went away?)"}};
        for (String[] c : cases) {
            CapturedRun client = run("pingpong", "-p", "tcp", "-e", c[0], "-I", "10", "-P", Integer.toString(freePort()),
                    "127.0.0.1");
            assertEquals(1, client.status(), () -> c[0] + ": " + client.err());
            assertTrue(client.err().contains(c[1]), () -> c[0] + ": " + client.err());
        }
    }

    /**
     * Connect first, warm up after: a client with the default JIT warm-up against a port nobody
     * listens on (pingpong msg and rdm, bw, rma_bw), and a server on a port that is taken (msg, rdm),
     * fail within two seconds, with the reason, and before any warm-up message (before, the client
     * warmed up for seconds and only then met the closed port).
     */
    @Test
    void aClosedOrBusyPortFailsAtOnceBeforeTheWarmUp() throws Exception {
        // untimed: the first command of this JVM loads the provider's and the tools' classes, which on a
        // loaded machine takes seconds of its own (2.8 s at load 17); what is bounded below is the command's wait
        run("pingpong", "-p", "tcp", "-e", "msg", "--jit-warmup", "0", "-P", Integer.toString(freePort()), "127.0.0.1");
        for (String type : new String[] {"msg", "rdm"}) {
            long start = System.nanoTime();
            CapturedRun client = run("pingpong", "-p", "tcp", "-e", type, "-P", Integer.toString(freePort()), "127.0.0.1");
            long millis = (System.nanoTime() - start) / 1_000_000L;
            assertEquals(1, client.status(), () -> type + ": " + client.err());
            assertTrue(client.err().contains("refused"), () -> type + ": " + client.err());
            assertFalse(client.err().contains("warming up"), () -> type + ", no warm-up before the connection: " + client.err());
            assertTrue(millis < 2_000, () -> type + ": the closed port took " + millis + " ms to report: " + client.err());
        }
        // bw and rma_bw share the flow: connect first there too
        for (String command : new String[] {"bw", "rma_bw"}) {
            long start = System.nanoTime();
            CapturedRun client = run(command, "-p", "tcp", "-e", "msg", "-P", Integer.toString(freePort()), "127.0.0.1");
            long millis = (System.nanoTime() - start) / 1_000_000L;
            assertEquals(1, client.status(), () -> command + ": " + client.err());
            assertTrue(client.err().contains("refused"), () -> command + ": " + client.err());
            assertFalse(client.err().contains("warming up"), () -> command + ": " + client.err());
            assertTrue(millis < 2_000, () -> command + ": the closed port took " + millis + " ms to report: " + client.err());
        }
        for (String type : new String[] {"msg", "rdm"}) {
            try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
                long start = System.nanoTime();
                CapturedRun server = run("pingpong", "-p", "tcp", "-e", type, "-B", Integer.toString(taken.getLocalPort()),
                        "-s", "127.0.0.1");
                long millis = (System.nanoTime() - start) / 1_000_000L;
                assertEquals(1, server.status(), () -> type + ": " + server.err());
                assertTrue(server.err().contains("in use"), () -> type + ": " + server.err());
                assertFalse(server.err().contains("warming up"), () -> type + ": " + server.err());
                assertTrue(millis < 2_000, () -> type + ": the busy port took " + millis + " ms to report: " + server.err());
            }
        }
    }

    /**
     * A connect that does not complete is no silent wait: against a socket that accepts in the kernel
     * but never answers JOFI's connection request, the client says after two seconds what it waits for
     * (before, nothing until --timeout's failure).
     */
    @Test
    void aClientWhoseConnectLastsSaysSo() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            String port = Integer.toString(silent.getLocalPort());
            CapturedRun client = run("pingpong", "-p", "tcp", "-e", "msg", "--jit-warmup", "0", "--timeout", "4",
                    "-P", port, "127.0.0.1");
            assertEquals(1, client.status(), client::err);
            assertTrue(client.err().contains("pingpong: connecting to 127.0.0.1 -P " + port + ", 2 s so far (is the server"
                    + " running there?; --timeout 4 bounds each wait)"), client::err);
        }
    }

    /**
     * A server says how long it waits for its client, and a wait that ends says for what: an RDM
     * server waits for the client's first message (before: "a receive completion did not come").
     */
    @Test
    void aServerWithoutAClientSaysWhatItWaitedFor() throws Exception {
        String port = Integer.toString(freePort());
        CapturedRun server = run("pingpong", "-p", "tcp", "-e", "rdm", "--jit-warmup", "0", "--timeout", "2", "-B", port,
                "-s", "127.0.0.1");
        assertEquals(1, server.status(), server::err);
        assertTrue(server.err().contains("pingpong: listening (tcp;ofi_rxm rdm, -s 127.0.0.1 -B " + port + "); waiting for the client"
                + " (at most --timeout 2 s): "), server::err);
        assertTrue(server.err().contains("the client's first message (its address) did not come within 2 s"), server::err);
    }

    @Test
    void jofiRdmBandwidth() throws Exception {
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = server("bw", "-p", "tcp", "--jit-warmup", "0", "-e", "rdm", "-S", "64k", "-I", "5", "-W", "16", "-B", port, "-s", "127.0.0.1");
        CapturedRun client = client("bw", "-p", "tcp", "--jit-warmup", "0", "-e", "rdm", "-S", "64k", "-I", "5", "-W", "16", "-P", port, "127.0.0.1");
        assertTable(client, "64k");
        assertTable(server.get(30, TimeUnit.SECONDS), "64k");
    }

    @Test
    void jofiClientAgainstCPingpongServer() throws Exception {
        NativePeer.assumeNativeLibfabric();
        try (NativePeer peer = NativePeer.pingpongServer("-p", "tcp", "-e", "msg", "-I", "20", "-w", "2")) {
            CapturedRun client = run("pingpong", "-p", "tcp", "--jit-warmup", "0", "-e", "msg", "-I", "20", "-w", "2", "-P", Integer.toString(peer.port()), NativePeer.HOST);
            assertTable(client, "64", "256", "1k", "4k", "64k", "1m");
            peer.assertSucceeded();
            assertEquals(6, peer.output().stream().filter(l -> l.matches("^\\d+[km]?\\s+20\\s.*")).count(), peer::transcript);
        }
    }

    @Test
    void cClientAgainstJofiPingpongServer() throws Exception {
        NativePeer.assumeNativeLibfabric();
        String port = Integer.toString(freePort());
        Future<CapturedRun> server = server("pingpong", "-p", "tcp", "--jit-warmup", "0", "-e", "msg", "-S", "4k", "-I", "20", "-w", "2", "-B", port, "-s", NativePeer.HOST);
        NativePeer peer = null;
        try {
            for (int attempt = 0; attempt < 50; attempt++) {
                peer = NativePeer.pingpongClient(Integer.parseInt(port), "-p", "tcp", "-e", "msg", "-S", "4k", "-I", "20", "-w", "2");
                if (peer.awaitExit(NativePeer.TIMEOUT) == 0 || !String.join("\n", peer.output()).toLowerCase().contains("refused")) {
                    break;
                }
                peer.close();
                Thread.sleep(100);
            }
            NativePeer p = peer;
            assertEquals(0, p.awaitExit(NativePeer.TIMEOUT), p::transcript);
            assertTable(server.get(30, TimeUnit.SECONDS), "4k");
        } finally {
            if (peer != null) {
                peer.close();
            }
        }
    }
}
