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
 * {@code jofi pingpong}'s own code is not compiled inside its timed iterations. A child JVM under
 * HotSpot's compilation log runs {@code pingpong -c spin} with its JIT warm-up and 2 000 untimed
 * round trips against a C peer (fabtests' ping-pong of libfabric 1.17's tcp), then 20 000 timed
 * ones; no method of {@code io.jofi.tools} may be compiled between the start and the end of the
 * timed iterations — such a compilation runs on the pinned spinning thread's core and stalls round
 * trips for milliseconds (1 to 5 of 1 ms or more in 1 000 at 64 KiB over shm, the mean 1.5-3 times
 * the median). The loop that made every round trip itself was compiled only as an on-stack
 * replacement, once ~60 000 round trips had been counted — inside the timed part (fails so). Its
 * chunks ({@code PingpongCommand.exchanges}) must also reach C2 in the warm-up, with its "timed
 * yet?" branch taken both ways there: a chunk method compiled without it was deoptimized by the
 * measured run's untimed part and recompiled by C2 inside the timed part (64 B over tcp: 7.4 µs
 * one-way instead of 3.3; fails so too).
 */
@Timeout(180)
class PingpongLoopCompileTest {
    private static final Pattern NMETHOD = Pattern.compile("<nmethod [^>]*>");
    private static final Pattern METHOD = Pattern.compile("method='([^']+)'");
    private static final Pattern STAMP = Pattern.compile("stamp='([\\d.]+)'");
    private static final Pattern TIMED_START = Pattern.compile("timed iterations start after JVM uptime (\\d+) ms");
    private static final Pattern TIMED_END = Pattern.compile("timed iterations end after JVM uptime (\\d+) ms");

    @Test
    void noLoopOfTheToolIsCompiledInsideTheTimedIterations(@TempDir Path dir) throws Exception {
        // few untimed round trips: what the measured run makes the JIT redo lands in the timed part
        String untimed = "2000";
        String iterations = "20000";
        try (NativePeer peer = NativePeer.pingpongServer("-S", "64", "-I", iterations, "-w", untimed, "-t", "150")) {
            LoggedPingpong run = LoggedPingpong.run(dir, peer, untimed, iterations, "20000");
            double start = run.uptime(TIMED_START);
            double end = run.uptime(TIMED_END);
            String compilation = run.compilation();
            List<String> inside = new ArrayList<>();
            int toolCompilations = 0;
            Matcher m = NMETHOD.matcher(compilation);
            while (m.find()) {
                String tag = m.group();
                Matcher method = METHOD.matcher(tag);
                Matcher stamp = STAMP.matcher(tag);
                if (!method.find() || !stamp.find() || !method.group(1).startsWith("io.jofi.tools.")) {
                    continue;
                }
                toolCompilations++;
                double at = Double.parseDouble(stamp.group(1));
                if (at > start && at <= end) {
                    inside.add(method.group(1) + " at " + at + " s");
                }
            }
            assertTrue(inside.isEmpty(), () -> "the tool's code compiled inside the timed iterations (" + start + " to "
                    + end + " s):\n" + String.join("\n", inside));
            assertTrue(compilation.contains("io.jofi.tools.PingpongCommand exchanges"),
                    "the log names the tool's methods (else the check above proves nothing)");
            System.out.println("io.jofi.tools compilations in the whole run: " + toolCompilations);
        }
    }
}
