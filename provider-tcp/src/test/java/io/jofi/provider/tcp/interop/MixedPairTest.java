package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Fabrics;
import io.jofi.tools.CapturedRun;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a JOFI peer costs a C peer: libfabric's own fabtests 1.17 {@code fi_<ep>_pingpong -c spin} as the server,
 * against fabtests as the client (C↔C) and against {@code pingpong -c spin} of this JVM (a JOFI client), the two
 * pairings alternated in the same run, 64 B and 4 KiB. A JOFI client must not make the C server's round trip much
 * slower than a C client does: the median one-way time of the mixed pair stays within {@link #BOUND} times C↔C's
 * (a generous bound: a ratio from one run, not a timing, so a loaded machine slows both alike). The C server's
 * voluntary context switches per round trip are reported beside it (a spinning C peer that goes to sleep shows
 * there). Skipped, saying so, without fabtests 1.17 (in {@code FABTESTS}, default {@code /opt/fabtests-1.17/bin}).
 *
 * <p>Tagged {@code soak} (run it with {@code mvn -Psoak verify -pl provider-tcp -Dtest=MixedPairTest}): its JOFI client
 * runs in the test's JVM, unpinned, after a short JIT warm-up, so its ratio is the test JVM's as much as the
 * provider's. The figure is {@code compare-tcp.sh}'s mixed pairs (pinned, warmed: MSG 0.91–1.04, RDM 0.92–1.20 on
 * 2026-12-07, benchmarks/results/tcp-mixed-pair.md); what made a C peer pay for a JOFI one, the JIT recompiling
 * the data path on the peer's kind, is held by {@link PeerKindRecompileTest} in the default set.
 */
@Tag("soak")
class MixedPairTest {
    /** Mixed pair against C↔C, median one-way time: the issue measured 2–3.5 where the bound is 1.1. */
    static final double BOUND = 1.8;
    private static final int ROUNDS = 3;
    private static final int ITERATIONS = 2000;
    private static final long TIMEOUT_S = 120;

    private static Path fabtests(String ep) {
        String dir = System.getenv().getOrDefault("FABTESTS", "/opt/fabtests-1.17/bin");
        Path p = Path.of(dir, "fi_" + ep + "_pingpong");
        Assumptions.assumeTrue(Files.isExecutable(p), "fabtests 1.17 (" + p + ") not installed: mixed-pair test skipped");
        return p;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** One ping-pong: fabtests server, fabtests (C) or JOFI client; the client's one-way usec and the server's switches. */
    private record Run(double usec, long serverSwitches) {
    }

    private static List<String> common(String size) {
        return List.of("-c", "spin", "-S", size, "-I", Integer.toString(ITERATIONS), "-w", Integer.toString(ITERATIONS / 10));
    }

    private static Run run(Path program, String ep, String size, boolean jofiClient) throws Exception {
        int port = freePort();
        List<String> server = new ArrayList<>(List.of(program.toString(), "-p", "tcp"));
        server.addAll(common(size));
        server.addAll(List.of("-B", Integer.toString(port), "-s", "127.0.0.1"));
        Process s = new ProcessBuilder(server).redirectErrorStream(true).start();
        SwitchSampler sampler = new SwitchSampler(s.pid());
        sampler.start();
        try {
            String table;
            if (jofiClient) {
                List<String> args = new ArrayList<>(List.of("-p", "tcp", "-e", ep, "--jit-warmup", "3000"));
                args.addAll(common(size));
                args.addAll(List.of("-P", Integer.toString(port), "127.0.0.1"));
                CapturedRun r = null;
                for (int attempt = 0; attempt < 50; attempt++) {
                    r = CapturedRun.of("pingpong", args, Fabrics.standalone());
                    if (r.status() == 0 || !r.err().contains("refused")) {
                        break;
                    }
                    Thread.sleep(100);
                }
                CapturedRun done = r;
                assertEquals(0, done.status(), () -> "JOFI client: " + done.err());
                table = done.out();
            } else {
                List<String> client = new ArrayList<>(List.of(program.toString(), "-p", "tcp"));
                client.addAll(common(size));
                client.addAll(List.of("-P", Integer.toString(port), "127.0.0.1"));
                String out = "";
                int status = -1;
                for (int attempt = 0; attempt < 50 && status != 0; attempt++) {
                    Process c = new ProcessBuilder(client).redirectErrorStream(true).start();
                    out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertTrue(c.waitFor(TIMEOUT_S, TimeUnit.SECONDS), "C client hangs");
                    status = c.exitValue();
                    if (status != 0) {
                        Thread.sleep(100);
                    }
                }
                String o = out;
                assertEquals(0, status, () -> "C client: " + o);
                table = out;
            }
            String serverOut = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(s.waitFor(TIMEOUT_S, TimeUnit.SECONDS), "C server hangs");
            assertEquals(0, s.exitValue(), () -> "C server: " + serverOut);
            return new Run(oneWay(table), sampler.last());
        } finally {
            sampler.interrupt();
            s.destroyForcibly();
        }
    }

    /** usec/xfer of fabtests' last data row ({@code bytes iters total time MB/sec usec/xfer Mxfers/sec}). */
    private static double oneWay(String table) {
        double usec = -1;
        for (String line : table.split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length == 7 && Character.isDigit(cols[0].charAt(0))) {
                usec = Double.parseDouble(cols[5]);
            }
        }
        assertTrue(usec > 0, () -> "no data row in:\n" + table);
        return usec;
    }

    /** The sum of a process's threads' voluntary context switches, read every 20 ms until it ends (the last seen). */
    private static final class SwitchSampler extends Thread {
        private final long pid;
        private volatile long last;

        SwitchSampler(long pid) {
            this.pid = pid;
            setDaemon(true);
        }

        long last() {
            return last;
        }

        @Override
        public void run() {
            Path tasks = Path.of("/proc", Long.toString(pid), "task");
            while (!isInterrupted()) {
                long sum = 0;
                try (var ts = Files.list(tasks)) {
                    for (Path t : (Iterable<Path>) ts::iterator) {
                        for (String line : Files.readAllLines(t.resolve("status"))) {
                            if (line.startsWith("voluntary_ctxt_switches:")) {
                                sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                            }
                        }
                    }
                    last = Math.max(last, sum);
                    Thread.sleep(20);
                } catch (IOException | RuntimeException e) {
                    return; // the process ended: the last sample stands
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdm:64", "rdm:4096", "msg:64"})
    void aJofiClientCostsTheCServerLittleMoreThanACClient(String variant) throws Exception {
        String ep = variant.split(":")[0];
        String size = variant.split(":")[1];
        Path program = fabtests(ep);
        double[] cc = new double[ROUNDS];
        double[] cj = new double[ROUNDS];
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < ROUNDS; i++) {
            Run c = run(program, ep, size, false);
            Run j = run(program, ep, size, true);
            cc[i] = c.usec();
            cj[i] = j.usec();
            log.append(String.format("round %d: C<->C %.2f us (server %d voluntary switches), C server/JOFI client %.2f us "
                    + "(%d)%n", i + 1, c.usec(), c.serverSwitches(), j.usec(), j.serverSwitches()));
        }
        double ratio = median(cj) / median(cc);
        System.err.printf("[mixed pair %s] %s mixed/C<->C = %.2f%n", variant, log, ratio);
        assertTrue(ratio <= BOUND, () -> String.format("a JOFI client makes the C server's round trip %.2fx C<->C's "
                + "(bound %.1f):%n%s", ratio, BOUND, log));
    }
}
