package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.spi.util.stats.StatsFileDescriptor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live counters seen from another process (issue 17): a real child JVM
 * ({@link StatsTrafficMain}) moves a known traffic mix over the provider through the public
 * API; {@code jofi stat -n -m} (the provider's test runs it, {@link #stat}) reads the child's
 * counters file and finds exactly those numbers, JMX inside the child the same; once the
 * child is killed, the next {@code jofi stat} removes its file.
 */
public abstract class StatsConformance extends ProviderTest {
    private static final Pattern LINE = Pattern.compile(
            "- \\{ pid: (\\d+), id: (\\d+), type: (\\w+), value: (\\d+), label: \"(.*)\" \\}");

    @TempDir
    Path dir;

    /**
     * Runs {@code jofi stat} with {@code args} in this JVM (the tools module's command) and
     * returns what it printed; fails the test when it does not exit 0.
     */
    protected abstract String stat(String... args);

    @Test
    void jofiStatFindsTheChildsTrafficAndRemovesADeadChildsFile() throws Exception {
        String prov = provider();
        Process child = start(prov);
        BlockingQueue<String> lines = drain(child);
        Map<String, String> said = new HashMap<>();
        try {
            String line;
            while (!(line = next(lines, child)).startsWith("READY")) {
                if (line.startsWith("LABEL ") || line.startsWith("JMX ")) {
                    String[] p = line.split(" ", 4); // LABEL|JMX provider role value
                    said.put(p[0] + " " + p[2], p[3]);
                }
            }
            Map<String, Long> values = values(child.pid());
            int n = StatsTrafficMain.SENDS + StatsTrafficMain.UNEXPECTED;
            int m = StatsTrafficMain.TAGGED;
            String sender = said.get("LABEL sender");
            String receiver = said.get("LABEL receiver");
            assertEquals(n, values.get(sender + ": sends posted"), "sends of " + sender + " in " + values);
            assertEquals(m, values.get(sender + ": tagged sends posted"));
            assertEquals(0, values.get(sender + ": receives posted"));
            assertEquals(n, values.get(receiver + ": receives posted"));
            assertEquals(m, values.get(receiver + ": tagged receives posted"));
            assertEquals(0, values.get(receiver + ": sends posted"));
            assertEquals(0, values.get(sender + ": posts refused -EAGAIN"), "no back-pressure at these depths");
            assertEquals(n + m, values.get(said.get("LABEL txcq") + ": completions written"));
            assertEquals(n + m, values.get(said.get("LABEL rxcq") + ": completions written"));
            assertEquals(0, values.get(said.get("LABEL rxcq") + ": overruns"));
            assertEquals(StatsTrafficMain.UNEXPECTED, sum(values, prov + "/", ": unexpected messages queued"));
            long bytes = sum(values, prov + "/", ": unexpected bytes queued"); // payload plus the provider's storage
            assertTrue(bytes >= (long) StatsTrafficMain.UNEXPECTED * StatsTrafficMain.SIZE, "unexpected bytes " + bytes);
            assertEquals(2, values.get(prov + ": endpoints opened"));
            assertEquals(String.valueOf(n), said.get("JMX sends"), "the sender's sends through JMX");
        } finally {
            child.destroyForcibly(); // killed: no shutdown hook runs, the file stays behind
            child.waitFor(30, TimeUnit.SECONDS);
        }
        Path file = dir.resolve(StatsFileDescriptor.fileName(child.pid()));
        assertTrue(Files.exists(file), "a killed JVM leaves its file");
        assertTrue(values(child.pid()).isEmpty(), "a dead process shows nothing");
        assertFalse(Files.exists(file), "jofi stat removed the dead process's file");
    }

    /** {@code jofi stat -n -m -d DIR -p PID}: label to value. */
    private Map<String, Long> values(long pid) {
        String out = stat("-n", "-m", "-d", dir.toString(), "-p", String.valueOf(pid));
        Map<String, Long> values = new HashMap<>();
        for (String l : out.split("\n")) {
            Matcher mt = LINE.matcher(l);
            if (mt.matches()) {
                assertEquals(pid, Long.parseLong(mt.group(1)));
                values.put(mt.group(5), Long.parseLong(mt.group(4)));
            }
        }
        return values;
    }

    private static long sum(Map<String, Long> values, String prefix, String suffix) {
        return values.entrySet().stream().filter(e -> e.getKey().startsWith(prefix) && e.getKey().endsWith(suffix))
                .mapToLong(Map.Entry::getValue).sum();
    }

    private Process start(String prov) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djofi.stats.dir=" + dir,
                "-cp", System.getProperty("java.class.path"), StatsTrafficMain.class.getName(), prov);
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static BlockingQueue<String> drain(Process child) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = in.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException e) {
                // ended
            }
            lines.add("EOF");
        }, "stats-child-stdout");
        t.setDaemon(true);
        t.start();
        return lines;
    }

    private static String next(BlockingQueue<String> lines, Process child) throws InterruptedException {
        String l = lines.poll(90, TimeUnit.SECONDS);
        if (l == null || l.equals("EOF")) {
            throw new AssertionError("child " + child.pid() + " ended or stalled before READY");
        }
        return l;
    }
}
