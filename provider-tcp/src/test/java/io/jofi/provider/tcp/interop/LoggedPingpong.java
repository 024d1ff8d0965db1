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

/**
 * {@code jofi pingpong} (MSG, spin, 64 B, with {@code --percentiles}) in a child JVM under HotSpot's
 * compilation log ({@code -XX:+LogCompilation}), as the client of a C peer's ping-pong: its output,
 * the log, and the JVM uptimes the tool prints (for the tests that read what the JIT did when).
 */
record LoggedPingpong(String out, String compilation) {

    /** Runs it against {@code peer} with {@code untimed} and {@code iterations} timed round trips and that JIT warm-up. */
    static LoggedPingpong run(Path dir, NativePeer peer, String untimed, String iterations, String jitWarmup) throws Exception {
        Path log = dir.resolve("compilation.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UnlockDiagnosticVMOptions", "-XX:+LogCompilation", "-XX:LogFile=" + log,
                "-cp", System.getProperty("java.class.path"), PingpongChild.class.getName(),
                "-p", "tcp", "-e", "msg", "-c", "spin", "-S", "64", "-I", iterations, "-w", untimed,
                "--jit-warmup", jitWarmup, "--percentiles", "-P", Integer.toString(peer.port()), NativePeer.HOST));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child's pingpong hangs");
        assertEquals(0, child.exitValue(), () -> "pingpong against the C peer:\n" + out);
        return new LoggedPingpong(out, Files.readString(log, StandardCharsets.ISO_8859_1));
    }

    /** The JVM uptime, in seconds (the log's stamps), of the first line of the output that {@code p} matches. */
    double uptime(Pattern p) {
        Matcher m = p.matcher(out);
        assertTrue(m.find(), () -> "no '" + p.pattern() + "' in:\n" + out);
        return Long.parseLong(m.group(1)) / 1000.0;
    }
}
