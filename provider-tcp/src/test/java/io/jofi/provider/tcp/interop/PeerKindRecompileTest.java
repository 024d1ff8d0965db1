package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tcp data path that JOFI peers made the JIT compile stays compiled when a C peer comes. A child
 * JVM under HotSpot's compilation log ({@code -XX:+LogCompilation}) runs {@code pingpong -e msg -c spin}
 * with its JIT warm-up (JOFI to JOFI over a private connection), then against jofi_peer's fabtests
 * ping-pong (libfabric 1.17's tcp, a C peer: no JOFI marker in its handshake). No {@code unstable_if}
 * uncommon trap may hit the tcp provider's code from the warm-up's end to the timed iterations': such a trap is a branch the warm-up
 * never took, and it throws the compiled method away and recompiles it while messages flow — on a
 * pinned process, on the core of the spinning thread (the mixed pair's 1.2–1.6× C↔C of 2026-12-07,
 * benchmarks/results/tcp-mixed-pair.md). The data path held three such branches on the peer's kind
 * (the receive loop's highest op, the match-complete flag on receive and on send); it now reads
 * values the handshake set ({@code TcpPeerLink.maxOp}, {@code jofiFlags}).
 */
@Timeout(180)
class PeerKindRecompileTest {
    private static final Pattern TRAP = Pattern.compile("<uncommon_trap thread='\\d+' reason='([^']+)'[^>]*stamp='([\\d.]+)'>\\s*"
            + "<jvms bci='(\\d+)' method='([^']+)'");
    private static final Pattern C2_READ_LOOP = Pattern.compile("<nmethod [^>]*compiler='c2'[^>]*"
            + "method='io\\.jofi\\.provider\\.tcp\\.TcpReceiver readLoop \\(\\)V'[^>]*stamp='([\\d.]+)'");
    private static final Pattern WARM_UP_END = Pattern.compile("JIT warm-up over .* ended after JVM uptime (\\d+) ms");
    private static final Pattern TIMED_END = Pattern.compile("timed iterations end after JVM uptime (\\d+) ms");

    @Test
    void aCPeerAfterJofiPeersTrapsNoCompiledTcpCode(@TempDir Path dir) throws Exception {
        String iterations = "5000";
        try (NativePeer peer = NativePeer.pingpongServer("-S", "64", "-I", iterations, "-w", iterations, "-t", "150")) {
            LoggedPingpong run = LoggedPingpong.run(dir, peer, iterations, iterations, "5000");
            double warmUpEnd = run.uptime(WARM_UP_END);
            // up to the end of the timed iterations: the closing exchange after them takes branches
            // no data message takes (fabtests' finalize message asks for an acknowledgement)
            double measuredEnd = run.uptime(TIMED_END);
            String compilation = run.compilation();
            Matcher c2 = C2_READ_LOOP.matcher(compilation);
            assertTrue(c2.find() && Double.parseDouble(c2.group(1)) < warmUpEnd,
                    "the warm-up did not make C2 compile TcpReceiver.readLoop: the check below would prove nothing");
            List<String> traps = new ArrayList<>();
            Matcher t = TRAP.matcher(compilation);
            while (t.find()) {
                double at = Double.parseDouble(t.group(2));
                if (t.group(1).equals("unstable_if") && at > warmUpEnd && at <= measuredEnd
                        && t.group(4).startsWith("io.jofi.provider.tcp.")) {
                    traps.add(t.group(4) + " @" + t.group(3) + " at " + t.group(2) + " s");
                }
            }
            assertTrue(traps.isEmpty(), () -> "compiled tcp code thrown away once the C peer came (warm-up ended at "
                    + warmUpEnd + " s, the timed iterations at " + measuredEnd + " s):\n" + String.join("\n", traps));
        }
    }
}
