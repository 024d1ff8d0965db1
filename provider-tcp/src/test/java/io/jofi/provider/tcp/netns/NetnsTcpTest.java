package io.jofi.provider.tcp.netns;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.provider.tcp.interop.NativePeer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The tcp provider between two network namespaces joined by a veth ({@link NetnsPair}): a real
 * interface that is not loopback, IPv4 and IPv6, MTU 1280 and 9000. Each side is a child JVM
 * inside its namespace running {@code ./jofi}'s {@code pingpong}/{@code bw} ({@link ToolChild},
 * fabtests' {@code -v} data check on both sides), or the project's C peer over libfabric 1.17's
 * tcp provider ({@code jofi_peer}'s pingpong, bw and rma_bw -o write|read: fabtests' fi_msg_pingpong,
 * fi_msg_bw and fi_rma_bw choreographies, both roles); the server is found by its address (getInfo's
 * node and {@code -s}) or by the interface alone ({@code jofi.tcp.iface}, {@code FI_TCP_IFACE}).
 * Every case has a pair of its own, and three run at a time (started before the first test;
 * each test waits for its own), so the set takes a third of the cases' sum: mostly JVM starts.
 * The JOFI pingpong matrix runs two representatives here, all eight with {@code -Psoak}.
 * Skipped, saying why, where namespaces cannot be made; the C cases also without libfabric-dev.
 */
@Timeout(240)
class NetnsTcpTest {
    private static final Duration RUN = Duration.ofSeconds(90);
    private static final int PORT = 9228;
    private static final ExecutorService CASES = Executors.newFixedThreadPool(3, r -> {
        Thread t = new Thread(r, "netns-tcp-case");
        t.setDaemon(true);
        return t;
    });
    private static final Map<String, Future<?>> RUNNING = new ConcurrentHashMap<>();

    /** A case: the work in the pair it is given. */
    private interface Case {
        void run(NetnsPair pair) throws Exception;
    }

    @BeforeAll
    static void startEveryCase() {
        Netns.assumeUsable();
        pingpongs().forEach(a -> {
            Object[] p = a.get();
            start(pingpongName(p[0], p[1], p[2]), 1500, pair -> pingpong(pair, (String) p[0], (Boolean) p[1], (String) p[2]));
        });
        interop().forEach(a -> {
            Object[] p = a.get();
            start("c-" + p[0] + "-" + p[1], 1500, pair -> againstC(pair, "pingpong", (String) p[0], PINGPONG, (Boolean) p[1]));
        });
        for (boolean cServes : List.of(true, false)) {
            start("fipp-" + cServes, 1500, pair -> againstFiPingpong(pair, cServes));
        }
        streams().forEach(a -> {
            Object[] p = a.get();
            start("c-" + p[0] + "-" + p[1], 1500, pair -> againstC(pair, (String) p[0], "msg", STREAMS.get(p[0]), (Boolean) p[1]));
        });
        start("mtu9000", 9000, pair -> jofiToJofi(pair, "bw", false, List.of("-e", "msg", "-c", "sread",
                "-S", "r:1,4194303,8388608", "-I", "4", "-w", "1", "-W", "2", "-v")));
        start("mtu1280", 1280, pair -> jofiToJofi(pair, "bw", true, List.of("-e", "rdm",
                "-S", "r:1,4194303,8388608", "-I", "4", "-w", "1", "-W", "2", "-v")));
        start("iface", 1500, NetnsTcpTest::byInterface);
    }

    private static void start(String name, int mtu, Case c) {
        RUNNING.put(name, CASES.submit(() -> {
            try (NetnsPair pair = new NetnsPair(name, mtu)) {
                c.run(pair);
            }
            return null;
        }));
    }

    @AfterAll
    static void stop() {
        CASES.shutdownNow();
    }

    private static void await(String name) throws Exception {
        try {
            RUNNING.get(name).get(200, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw (Error) e.getCause();
        }
    }

    /**
     * Two representatives that between them take each value once: MSG over IPv4 in AUTO progress
     * ({@code -c sread}), RDM over IPv6 in MANUAL ({@code -c spin}). The other six of the matrix
     * (MSG and RDM, IPv4 and IPv6, spin and sread) run with {@code -Psoak}: {@link NetnsPingpongMatrixTest}.
     */
    static Stream<Arguments> pingpongs() {
        return Stream.of(Arguments.of("msg", false, "sread"), Arguments.of("rdm", true, "spin"));
    }

    static String pingpongName(Object ep, Object v6, Object wait) {
        return "pp-" + ep + "-" + ((Boolean) v6 ? "6" : "4") + "-" + wait;
    }

    /** 1 B to 8 MiB: fabtests' whole size table (46 sizes), each message checked. */
    @ParameterizedTest(name = "pingpong -e {0} ipv6={1} -c {2}, 1 B..8 MiB")
    @MethodSource("pingpongs")
    void pingpongAcrossTheLink(String ep, boolean v6, String wait) throws Exception {
        await(pingpongName(ep, v6, wait));
    }

    /**
     * A JOFI pingpong across the link: fabtests' whole size table (46 sizes, 1 B to 8 MiB) where MSG
     * runs over IPv4 in AUTO and RDM over IPv6 in MANUAL; 1 B, 4 MiB and 8 MiB - 1 otherwise.
     */
    static void pingpong(NetnsPair pair, String ep, boolean v6, String wait) throws Exception {
        boolean whole = ep.equals("msg") && !v6 && wait.equals("sread") || ep.equals("rdm") && v6 && wait.equals("spin");
        jofiToJofi(pair, "pingpong", v6, List.of("-e", ep, "-c", wait, "-S", whole ? "all" : "r:1,4194303,8388608",
                "-I", "2", "-w", "1", "-v"));
    }

    /** A 9000-byte MTU (jumbo frames, MSG over IPv4) and IPv6's minimum, 1280 (RDM): streams segment across it. */
    @Test
    void bwAcrossMtu9000And1280() throws Exception {
        await("mtu9000");
        await("mtu1280");
    }

    /**
     * The server gives no address, only the interface: {@code jofi.tcp.iface} in one run,
     * libfabric's {@code FI_TCP_IFACE} in the other. Without either, getInfo's first address is
     * loopback's, which the other namespace cannot reach, so the client's connect would fail.
     */
    @Test
    void serverChosenByInterfaceSettingOrFiTcpIface() throws Exception {
        await("iface");
    }

    private static void byInterface(NetnsPair pair) throws Exception {
        for (boolean environment : List.of(false, true)) {
            List<String> props = environment ? List.of() : List.of("jofi.tcp.iface=" + NetnsPair.IFACE);
            List<String> env = environment ? List.of("FI_TCP_IFACE=" + NetnsPair.IFACE) : List.of();
            NsProcess server = pair.start(pair.a, ChildJvm.command(ToolChild.class, props,
                    jofiArgs("pingpong", List.of("-S", "4096", "-I", "5", "-w", "1", "-v", "-B", Integer.toString(PORT)))), env);
            pair.awaitListening(pair.a, PORT, RUN);
            NsProcess client = pair.start(pair.b, ChildJvm.command(ToolChild.class, List.of(),
                    jofiArgs("pingpong", List.of("-S", "4096", "-I", "5", "-w", "1", "-v", "-P", Integer.toString(PORT),
                            pair.address(pair.a, false)))), List.of());
            client.assertSucceeded(RUN);
            server.assertSucceeded(RUN);
        }
        NsProcess info = pair.start(pair.a, ChildJvm.command(ToolChild.class, List.of(), List.of("info", "-e", "-p", "tcp")),
                List.of("FI_TCP_IFACE=" + NetnsPair.IFACE));
        info.assertSucceeded(RUN);
        String text = String.join("\n", info.output());
        assertTrue(text.contains("\"jofi0\" (FI_TCP_IFACE)"), text);
        assertTrue(text.contains("Here: available"), "TCP_USER_TIMEOUT available in a child JVM like ./jofi's\n" + text);
        NsProcess list = pair.start(pair.a, ChildJvm.command(ToolChild.class, List.of(), List.of("info", "-p", "tcp")),
                List.of("FI_TCP_IFACE=" + NetnsPair.IFACE));
        list.assertSucceeded(RUN);
        String infos = String.join("\n", list.output());
        assertTrue(infos.contains("198.18."), infos);
        assertFalse(infos.contains("127.0.0.1"), infos);
    }

    /** The C peer's fabtests choreographies: C server in "a", JOFI client in "b", and the other way round. */
    static Stream<Arguments> interop() {
        return Stream.of(
                Arguments.of("msg", false), Arguments.of("msg", true),
                Arguments.of("rdm", false), Arguments.of("rdm", true));
    }

    @ParameterizedTest(name = "pingpong -e {0} against C libfabric, C is the server: {1}")
    @MethodSource("interop")
    void pingpongAgainstC(String ep, boolean cServes) throws Exception {
        NativePeer.assumeNativeLibfabric();
        await("c-" + ep + "-" + cServes);
    }

    private static final List<String> PINGPONG = List.of("-S", "r:1,262143,1048576", "-I", "3", "-w", "1", "-v");
    /** fi_msg_bw's and fi_rma_bw's choreographies (jofi_peer's bw and rma_bw), MSG, as FabtestsChoreographyTest on loopback. */
    private static final Map<String, List<String>> STREAMS = Map.of(
            "bw", List.of("-S", "r:1,65536,1048576", "-I", "20", "-w", "2", "-W", "8", "-v"),
            "rma_bw", List.of("-o", "write", "-S", "r:64,65536,1048576", "-I", "20", "-w", "2", "-W", "8", "-v"),
            "rma_bw_read", List.of("-o", "read", "-S", "r:64,65536,1048576", "-I", "20", "-w", "2", "-W", "8", "-v"));

    /** bw, rma_bw -o write, rma_bw -o read; C the server or the client. */
    static Stream<Arguments> streams() {
        List<Arguments> out = new ArrayList<>();
        for (String mode : List.of("bw", "rma_bw", "rma_bw_read")) {
            out.add(Arguments.of(mode, true));
            out.add(Arguments.of(mode, false));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} against C libfabric across the link, C is the server: {1}")
    @MethodSource("streams")
    void bwAndRmaBwAgainstC(String mode, boolean cServes) throws Exception {
        NativePeer.assumeNativeLibfabric();
        await("c-" + mode + "-" + cServes);
    }

    private static void againstC(NetnsPair pair, String command, String ep, List<String> choreography, boolean cServes)
            throws Exception {
        NativePeer.executable(); // compiled once; a skip is the test's (assumeNativeLibfabric)
        String mode = command.startsWith("rma_bw") ? "rma_bw" : command;
        List<String> options = new ArrayList<>(List.of("-e", ep));
        options.addAll(choreography);
        String serverAddr = pair.address(pair.a, false);
        List<String> serverArgs = new ArrayList<>(options);
        serverArgs.addAll(List.of("-s", serverAddr, "-B", Integer.toString(PORT)));
        List<String> clientArgs = new ArrayList<>(options);
        clientArgs.addAll(List.of("-P", Integer.toString(PORT), serverAddr));
        NsProcess server = cServes ? pair.start(pair.a, cPeer(mode, serverArgs), List.of())
                : pair.start(pair.a, ChildJvm.command(ToolChild.class, List.of(), jofiArgs(mode, serverArgs)), List.of());
        pair.awaitListening(pair.a, PORT, RUN);
        NsProcess client = cServes
                ? pair.start(pair.b, ChildJvm.command(ToolChild.class, List.of(), jofiArgs(mode, clientArgs)), List.of())
                : pair.start(pair.b, cPeer(mode, clientArgs), List.of());
        client.assertSucceeded(RUN);
        server.assertSucceeded(RUN);
    }

    /**
     * libfabric's own {@code fi_pingpong -p tcp -e rdm} (libfabric-bin, {@code tcp;ofi_rxm}) across the link
     * against a JOFI rxm endpoint playing its choreography ({@link FiPingpongChild}), both roles:
     * 64 B to 1 MiB, eager and rendezvous, 10 round trips a size.
     */
    @ParameterizedTest(name = "fi_pingpong -e rdm across the link, fi_pingpong is the server: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void rdmAgainstFiPingpong(boolean cServes) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/fi_pingpong")),
                "fi_pingpong (apt-get install libfabric-bin) is not installed");
        await("fipp-" + cServes);
    }

    private static void againstFiPingpong(NetnsPair pair, boolean cServes) throws Exception {
        if (!java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/fi_pingpong"))) {
            return; // the test skips itself, saying so
        }
        String port = Integer.toString(PORT + 1);
        String serverAddr = pair.address(pair.a, false);
        List<String> fi = new ArrayList<>(List.of("fi_pingpong", "-p", "tcp", "-e", "rdm", "-d", NetnsPair.IFACE, "-I", "10",
                "-m", "msg"));
        NsProcess server;
        NsProcess client;
        if (cServes) {
            fi.addAll(List.of("-B", port));
            server = pair.start(pair.a, fi, List.of("FI_LOG_LEVEL=warn"));
            pair.awaitListening(pair.a, PORT + 1, RUN);
            client = pair.start(pair.b, ChildJvm.command(io.jofi.provider.tcp.FiPingpongChild.class, List.of(),
                    List.of("client", pair.address(pair.b, false), serverAddr, port)), List.of());
        } else {
            server = pair.start(pair.a, ChildJvm.command(io.jofi.provider.tcp.FiPingpongChild.class, List.of(),
                    List.of("server", serverAddr, port)), List.of());
            server.awaitLine("listening"::equals, RUN);
            fi.addAll(List.of("-P", port, serverAddr));
            client = pair.start(pair.b, fi, List.of("FI_LOG_LEVEL=warn"));
        }
        client.assertSucceeded(RUN);
        server.assertSucceeded(RUN);
        NsProcess c = cServes ? server : client;
        assertTrue(c.output().stream().anyMatch(l -> l.matches("1m\\s+10\\s+=10\\s.*")),
                "fi_pingpong's 1 MiB row, 10 sent and acknowledged\n" + c.transcript());
    }

    private static List<String> cPeer(String mode, List<String> args) {
        List<String> c = new ArrayList<>(List.of(NativePeer.executable().toString(), mode, "-t", "80"));
        c.addAll(args);
        return c;
    }

    /** A JOFI server in "a" at its address, a JOFI client in "b" naming that address (getInfo's node). */
    private static void jofiToJofi(NetnsPair pair, String command, boolean v6, List<String> options) throws Exception {
        String serverAddr = pair.address(pair.a, v6);
        List<String> serverArgs = new ArrayList<>(options);
        serverArgs.addAll(List.of("-s", serverAddr, "-B", Integer.toString(PORT)));
        NsProcess server = pair.start(pair.a, ChildJvm.command(ToolChild.class, List.of(), jofiArgs(command, serverArgs)),
                List.of());
        pair.awaitListening(pair.a, PORT, RUN);
        List<String> clientArgs = new ArrayList<>(options);
        clientArgs.addAll(List.of("-P", Integer.toString(PORT), serverAddr));
        NsProcess client = pair.start(pair.b, ChildJvm.command(ToolChild.class, List.of(), jofiArgs(command, clientArgs)),
                List.of());
        client.assertSucceeded(RUN);
        server.assertSucceeded(RUN);
    }

    private static List<String> jofiArgs(String command, List<String> options) {
        List<String> args = new ArrayList<>(List.of(command, "-p", "tcp", "--jit-warmup", "0", "--timeout", "60"));
        args.addAll(options);
        return args;
    }
}
