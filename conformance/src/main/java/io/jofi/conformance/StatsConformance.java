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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live counters seen from another process: a real child JVM
 * ({@link StatsTrafficMain}, running a flight recording) moves a known traffic mix over the
 * provider through the public API — sends, tagged sends, an unexpected burst, RMA reads, and a
 * peer JVM it kills; {@code jofi stat -n -m} (run by the provider's test, {@link #stat}, in a
 * JVM of its own) reads the child's counters file and finds exactly those numbers, JMX inside
 * the child the same, and the child's recording holds the connection events of its sender;
 * once the child is killed, the next {@code jofi stat} removes its file.
 */
public abstract class StatsConformance extends ProviderTest {
    private static final Pattern LINE = Pattern.compile(
            "- \\{ pid: (\\d+), id: (\\d+), type: (\\w+), value: (\\d+), label: \"(.*)\" \\}");
    private static final Pattern DESCRIPTION = Pattern.compile("- \\{ pid: (\\d+), owner: \"(.*)\", description: \"(.*)\" \\}");

    /** What the last {@link #values} call's {@code jofi stat -m} said of where each owner is (owner to text). */
    private final Map<String, String> described = new HashMap<>();

    @TempDir
    Path dir;

    /**
     * Runs {@code jofi stat} with {@code args} in a JVM of its own (the tools module's
     * {@code io.jofi.tools.PlainJvmMain}, which the provider's test class path must hold) and
     * returns what it printed; fails the test when it does not exit 0.
     */
    protected String stat(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "stat";
        System.arraycopy(args, 0, command, 1, args.length);
        return runInAnotherJvm("io.jofi.tools.PlainJvmMain", command);
    }

    /**
     * {@link #senderConnectionCounters()} of a provider whose RDM endpoint is the util rxm layer
     * (tcp, verbs): connected to the receiver and the victim, the victim's connection lost, the
     * reconnect to it refused — two peers declared failed.
     */
    protected static final Map<String, Long> RXM_SENDER_COUNTERS = Map.of("peers connected", 2L,
            "peers reconnected", 0L, "connections lost", 1L, "connects refused", 1L, "requests refused", 0L,
            "peers declared failed", 2L);

    /** {@link #senderEvents()} of a provider whose RDM endpoint is the util rxm layer (tcp, verbs). */
    protected static final Map<String, Integer> RXM_SENDER_EVENTS = Map.of("io.jofi.ConnectionEstablished", 2,
            "io.jofi.ConnectionLost", 1, "io.jofi.ConnectionRefused", 1, "io.jofi.PeerFailed", 2,
            "io.jofi.ProviderChange arrived", 1);

    /**
     * The sender's provider counters after the mix (name after {@code "<owner>: "} to value):
     * its connections made, lost and refused, the peers it declared failed.
     */
    protected abstract Map<String, Long> senderConnectionCounters();

    /** The provider's "endpoints opened" after the mix: the sender and the receiver. */
    protected long endpointsOpened() {
        return 2;
    }

    /**
     * Checks the provider's transport counters (those only it has: verbs' empty CQ polls and
     * RNR counters, its MSG connections under rxm) in what {@code jofi stat} read after the mix
     * ({@code values}: label to value). Nothing by default: tcp's and shm's transport counters
     * depend on timing (partial writes, ring-full waits).
     */
    protected void checkTransportCounters(Map<String, Long> values) {
    }

    /** The sender's JOFI flight-recorder events after the mix: event name to how many. */
    protected abstract Map<String, Integer> senderEvents();

    /**
     * Runs {@code mainClass} with {@code args} in a JVM of its own on this test's class path
     * (as {@code ./jofi stat} runs: another process) and returns what it printed; fails the
     * test when it does not exit 0.
     */
    protected static String runInAnotherJvm(String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djofi.stats=false",
                "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jofi stat ended");
            assertEquals(0, p.exitValue(), "jofi stat said: " + out);
            return out;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

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
                    String[] p = line.split(" ", 4); // LABEL|JMX provider role|attribute value
                    said.put(p[0] + " " + p[2], p[3]);
                }
            }
            Map<String, Long> values = values(child.pid());
            int n = StatsTrafficMain.SENDS + StatsTrafficMain.UNEXPECTED;
            int m = StatsTrafficMain.TAGGED;
            // the reads where the provider offers RMA on RDM (its getInfo's answer, asked here as in the child)
            int r = StatsTrafficMain.offersRdmRma(fabrics(), prov) ? StatsTrafficMain.READS : 0;
            String sender = said.get("LABEL sender");
            String receiver = said.get("LABEL receiver");
            // the killed peer: one send before the kill, one after (it fails)
            assertEquals(n + 2, values.get(sender + ": sends posted"), "sends of " + sender + " in " + values);
            assertEquals(r, values.get(sender + ": RMA reads posted"));
            assertEquals(m, values.get(sender + ": tagged sends posted"));
            assertEquals(0, values.get(sender + ": receives posted"));
            assertEquals(n, values.get(receiver + ": receives posted"));
            assertEquals(m, values.get(receiver + ": tagged receives posted"));
            assertEquals(0, values.get(receiver + ": sends posted"));
            long size = StatsTrafficMain.SIZE;
            assertEquals((n + 2) * size, values.get(sender + ": send bytes posted"));
            assertEquals(m * size, values.get(sender + ": tagged send bytes posted"));
            assertEquals(r * size, values.get(sender + ": RMA read bytes posted"));
            assertEquals(0, values.get(sender + ": RMA write bytes posted"));
            assertEquals(n, values.get(receiver + ": messages received"), "messages received by " + receiver);
            assertEquals(n * size, values.get(receiver + ": bytes received"));
            assertEquals(m, values.get(receiver + ": tagged messages received"));
            assertEquals(m * size, values.get(receiver + ": tagged bytes received"));
            assertEquals(0, values.get(sender + ": messages received"));
            assertEquals(0, values.get(sender + ": posts refused -EAGAIN"), "no back-pressure at these depths");
            assertEquals(n + m + r + 2, values.get(said.get("LABEL txcq") + ": completions written"));
            assertEquals(1, values.get(said.get("LABEL txcq") + ": errors connection"), "the send after the kill");
            assertEquals(0, values.get(said.get("LABEL txcq") + ": errors other"));
            assertEquals(n + m, values.get(said.get("LABEL rxcq") + ": completions written"));
            for (Map.Entry<String, Long> e : senderConnectionCounters().entrySet()) {
                assertEquals(e.getValue(), values.get(sender + ": " + e.getKey()), e.getKey() + " of " + sender);
            }
            assertEquals(0, values.get(said.get("LABEL rxcq") + ": overruns"));
            assertEquals(StatsTrafficMain.UNEXPECTED, sum(values, prov + "/", ": unexpected messages queued"));
            long bytes = sum(values, prov + "/", ": unexpected bytes queued"); // payload plus the provider's storage
            assertTrue(bytes >= (long) StatsTrafficMain.UNEXPECTED * StatsTrafficMain.SIZE, "unexpected bytes " + bytes);
            assertEquals(endpointsOpened(), values.get(prov + ": endpoints opened"));
            // where each endpoint is: its local address, and the peers it reached (the sender two: "and others")
            String senderAt = described.get(sender);
            String receiverAt = described.get(receiver);
            assertTrue(senderAt != null && senderAt.startsWith("local ") && senderAt.endsWith(" and others"),
                    () -> "the sender's addresses: " + described);
            assertTrue(receiverAt != null && receiverAt.startsWith("local "), () -> "the receiver's address: " + described);
            checkTransportCounters(values);
            assertEquals(String.valueOf(n + 2), said.get("JMX sends_posted"), "the sender's sends through JMX");
            assertEquals(String.valueOf(r), said.get("JMX RMA_reads_posted"), "the sender's reads through JMX");
            assertEquals(String.valueOf(senderConnectionCounters().get("peers declared failed")),
                    said.get("JMX peers_declared_failed"), "the sender's failed peers through JMX");
            Map<String, Integer> events = events(dir.resolve("child.jfr"), sender, prov);
            assertEquals(new TreeMap<>(senderEvents()), events, "the sender's events in the child's recording");
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
            Matcher d = DESCRIPTION.matcher(l);
            if (d.matches()) {
                described.put(d.group(2), d.group(3));
            }
        }
        return values;
    }

    /**
     * The JOFI events of the recording at {@code file}: those of {@code owner} by event name,
     * and {@code "io.jofi.ProviderChange arrived"} for the arrival of {@code provider}.
     */
    private static Map<String, Integer> events(Path file, String owner, String provider) throws IOException {
        Map<String, Integer> counts = new TreeMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            String type = e.getEventType().getName();
            if (type.equals("io.jofi.ProviderChange")) {
                if (provider.equals(e.getString("provider")) && e.getBoolean("arrived")) {
                    counts.merge(type + " arrived", 1, Integer::sum);
                }
            } else if (type.startsWith("io.jofi.") && owner.equals(e.getString("owner"))) {
                counts.merge(type, 1, Integer::sum);
            }
        }
        return counts;
    }

    /** The sum of the values whose labels start with {@code prefix} and end with {@code suffix}. */
    protected static long sum(Map<String, Long> values, String prefix, String suffix) {
        return values.entrySet().stream().filter(e -> e.getKey().startsWith(prefix) && e.getKey().endsWith(suffix))
                .mapToLong(Map.Entry::getValue).sum();
    }

    private Process start(String prov) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djofi.stats.dir=" + dir,
                "-XX:StartFlightRecording=name=jofi,settings=default",
                "-cp", System.getProperty("java.class.path"), StatsTrafficMain.class.getName(), prov,
                dir.resolve("child.jfr").toString());
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
