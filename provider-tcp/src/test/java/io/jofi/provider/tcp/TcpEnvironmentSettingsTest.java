package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * libfabric's environment names of the tcp settings, read when the settings leave them unset:
 * {@code FI_TCP_PORT_LOW_RANGE}/{@code FI_TCP_PORT_HIGH_RANGE} (the listener's port range) — in
 * effect and shown so by {@code jofi info -e}; a value that is no port is ignored with a warning.
 * A child JVM, since a JVM cannot change its own environment.
 */
class TcpEnvironmentSettingsTest {
    private static String infoEnv(Map<String, String> env) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "io.jofi.tools.PlainJvmMain", "info", "-e", "-p", "tcp", "-g", "port").redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ended");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void thePortRangeComesFromLibfabricsVariablesWhenTheSettingsLeaveItUnset() throws Exception {
        String out = infoEnv(Map.of(TcpProvider.PORT_LOW_VARIABLE, "47100", TcpProvider.PORT_HIGH_VARIABLE, "47110"));
        List<String> lines = out.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(
                "# jofi.tcp.portLow: Integer (default: 0; current: 47100 (FI_TCP_PORT_LOW_RANGE))")), out);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(
                "# jofi.tcp.portHigh: Integer (default: 0; current: 47110 (FI_TCP_PORT_HIGH_RANGE))")), out);
    }

    @Test
    void aValueThatIsNoPortIsIgnoredAndNamed() throws Exception {
        String out = infoEnv(Map.of(TcpProvider.PORT_LOW_VARIABLE, "lots"));
        assertTrue(out.contains("FI_TCP_PORT_LOW_RANGE='lots' is not a port (1..65535): ignored"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("# jofi.tcp.portLow: Integer (default: 0; current: 0)")), out);
    }
}
