package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jofi pingpong}'s own loop is never compiled inside its timed iterations. A child JVM under
 * HotSpot's compilation log runs {@code pingpong -c spin} with its JIT warm-up and 20 000 untimed
 * round trips against a C peer (fabtests' ping-pong of libfabric 1.17's tcp), then 20 000 timed
 * ones; no on-stack replacement of a {@code io.jofi.tools} method may be compiled between the
 * start and the end of the timed iterations. The loop that made every round trip itself was
 * compiled only that way, once ~60 000 round trips had been counted over the warm-up, the untimed
 * and the timed ones — here inside the timed part, on the pinned spinning thread's core (1 to 5
 * round trips of 1 ms or more in 1 000 at 64 KiB over shm, its mean 1.5-3 times its median). The
 * round trips now run in chunks, a method the warm-up compiles as a whole
 * ({@code PingpongCommand.exchanges}).
 */
@Timeout(180)
class PingpongLoopCompileTest {
    private static final Pattern OSR = Pattern.compile("<nmethod [^>]*compile_kind='osr'[^>]*>");
    private static final Pattern METHOD = Pattern.compile("method='([^']+)'");
    private static final Pattern STAMP = Pattern.compile("stamp='([\\d.]+)'");
    private static final Pattern TIMED_START = Pattern.compile("timed iterations start after JVM uptime (\\d+) ms");
    private static final Pattern TIMED_END = Pattern.compile("timed iterations end after JVM uptime (\\d+) ms");

    @Test
    void noLoopOfTheToolIsCompiledInsideTheTimedIterations(@TempDir Path dir) throws Exception {
        String iterations = "20000";
        try (NativePeer peer = NativePeer.pingpongServer("-S", "64", "-I", iterations, "-w", iterations, "-t", "150")) {
            Path log = dir.resolve("compilation.log");
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:+UnlockDiagnosticVMOptions", "-XX:+LogCompilation", "-XX:LogFile=" + log,
                    "-cp", System.getProperty("java.class.path"), PingpongChild.class.getName(),
                    "-p", "tcp", "-e", "msg", "-c", "spin", "-S", "64", "-I", iterations, "-w", iterations,
                    "--jit-warmup", "20000", "--percentiles", "-P", Integer.toString(peer.port()), NativePeer.HOST));
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child's pingpong hangs");
            assertEquals(0, child.exitValue(), () -> "pingpong against the C peer:\n" + out);
            double start = uptime(TIMED_START, out);
            double end = uptime(TIMED_END, out);
            String compilation = Files.readString(log, StandardCharsets.ISO_8859_1);
            List<String> inside = new ArrayList<>();
            int toolOsr = 0;
            Matcher m = OSR.matcher(compilation);
            while (m.find()) {
                String tag = m.group();
                Matcher method = METHOD.matcher(tag);
                Matcher stamp = STAMP.matcher(tag);
                if (!method.find() || !stamp.find() || !method.group(1).startsWith("io.jofi.tools.")) {
                    continue;
                }
                toolOsr++;
                double at = Double.parseDouble(stamp.group(1));
                if (at > start && at <= end) {
                    inside.add(method.group(1) + " at " + at + " s");
                }
            }
            assertTrue(inside.isEmpty(), () -> "a loop of the tool compiled inside the timed iterations (" + start + " to "
                    + end + " s):\n" + String.join("\n", inside));
            assertTrue(compilation.contains("io.jofi.tools.PingpongCommand exchanges"),
                    "the log names the tool's methods (else the check above proves nothing)");
            System.out.println("io.jofi.tools OSR compilations in the whole run: " + toolOsr);
        }
    }

    private static double uptime(Pattern p, String out) {
        Matcher m = p.matcher(out);
        assertTrue(m.find(), () -> "no '" + p.pattern() + "' in:\n" + out);
        return Long.parseLong(m.group(1)) / 1000.0;
    }
}
