package io.jofi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.spi.util.stats.StatsFileDescriptor;
import io.jofi.spi.util.stats.StatsFileReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link StatReport}: what {@code jofi stat} prints for people and with {@code -m}. */
class StatReportTest {
    private static final int EP = StatsFileDescriptor.TYPE_ENDPOINT;
    private static final String LONG_NAME = "atomic request bytes waiting on a connection (high-water)";

    /** A file as an rxm endpoint leaves it: its groups interleaved with a CQ's, records reused. */
    private static final StatsFileReader.Snapshot SNAPSHOT = new StatsFileReader.Snapshot(
            Path.of("/dev/shm/jofi-stats-42.dat"), 42, 0, List.of(
                    new StatsFileReader.CounterValue(0, EP, "tcp/RxmEndpoint 4: sends posted", 7),
                    new StatsFileReader.CounterValue(1, StatsFileDescriptor.TYPE_COMPLETION_QUEUE,
                            "tcp/CompletionQueue 3: completions written", 14),
                    new StatsFileReader.CounterValue(2, EP, "tcp/RxmEndpoint 4: messages received", 7),
                    new StatsFileReader.CounterValue(3, EP, "tcp/RxmEndpoint 4: " + LONG_NAME, 0)));

    private static String print(boolean machine, String filter) {
        return print(machine, true, filter);
    }

    private static String print(boolean machine, boolean all, String filter) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        new StatReport(out, machine, all, pid -> pid == 42 ? Optional.of("jofi pingpong -p tcp") : Optional.empty())
                .print(Path.of("/dev/shm"), List.of(SNAPSHOT), filter);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void countersAtZeroAreLeftOutUnlessAllAndTheLeftOutAreCounted() {
        String text = print(false, false, null);
        assertFalse(text.contains(LONG_NAME), text);
        assertTrue(text.contains("  (1 counters at 0 not shown; -a shows them)\n"), text);
        assertTrue(print(false, true, null).contains(LONG_NAME));
        assertTrue(print(true, false, null).contains(LONG_NAME), "-m prints every counter");
    }

    @Test
    void theProcessHeaderNamesItsCommandLine() {
        assertTrue(print(false, null).contains("jofi-stats-42.dat\n  command: jofi pingpong -p tcp\n"));
        assertEquals("jofi pingpong -p shm -S 64", ProcessCommandLine.readable(List.of("java", "-Xmx1g",
                "-D" + CommandLineRunner.COMMAND_PROPERTY + "=" + CommandLineArgs.encode(List.of("pingpong", "-p", "shm", "-S", "64")),
                "-jar", "jofi.jar")));
        assertEquals("java -cp x Main", ProcessCommandLine.readable(List.of("java", "-cp", "x", "Main")));
        assertTrue(ProcessCommandLine.of(ProcessHandle.current().pid()).orElseThrow().contains("java"));
    }

    @Test
    void eachOwnerIsPrintedOnceWithAllItsCountersAndTheValuesAligned() {
        String text = print(false, null);
        String body = text.substring(text.indexOf('\n') + 1); // after the header with the time
        String name = "%-" + LONG_NAME.length() + "s %15d%n";
        assertEquals("\npid 42  started 1970-01-01T00:00:00Z  jofi-stats-42.dat\n"
                + "  command: jofi pingpong -p tcp\n"
                + "  tcp/RxmEndpoint 4\n"
                + String.format("    " + name, "sends posted", 7)
                + String.format("    " + name, "messages received", 7)
                + String.format("    " + name, LONG_NAME, 0)
                + "  tcp/CompletionQueue 3\n"
                + String.format("    " + name, "completions written", 14), body);
    }

    @Test
    void aFilterKeepsMatchingCountersAndTheirOwnersOnly() {
        String text = print(false, "received");
        assertEquals("  tcp/RxmEndpoint 4\n" + String.format("    %-40s %15d%n", "messages received", 7),
                text.substring(text.indexOf("  tcp/")));
    }

    /** Each endpoint is named by its owner, local and peer address (the description its group published). */
    @Test
    void anOwnerIsShownWithItsLocalAndPeerAddress() {
        StatsFileReader.Snapshot s = new StatsFileReader.Snapshot(SNAPSHOT.path(), 42, 0, SNAPSHOT.counters(),
                java.util.Map.of("tcp/RxmEndpoint 4", "local 127.0.0.1:9228 peer 127.0.0.1:41234"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new StatReport(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, false, pid -> Optional.empty())
                .print(Path.of("/dev/shm"), List.of(s), null);
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains(
                "\n  tcp/RxmEndpoint 4  (local 127.0.0.1:9228 peer 127.0.0.1:41234)\n    sends posted"), bytes::toString);
        bytes.reset();
        new StatReport(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, false, pid -> Optional.empty())
                .print(Path.of("/dev/shm"), List.of(s), null);
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("- { pid: 42, owner: \"tcp/RxmEndpoint 4\","
                + " description: \"local 127.0.0.1:9228 peer 127.0.0.1:41234\" }\n"), bytes::toString);
    }

    @Test
    void machineReadableIsOneLinePerCounterInFileOrder() {
        assertEquals("---\njofi stat /dev/shm :\n"
                + "- { pid: 42, id: 0, type: endpoint, value: 7, label: \"tcp/RxmEndpoint 4: sends posted\" }\n"
                + "- { pid: 42, id: 1, type: cq, value: 14, label: \"tcp/CompletionQueue 3: completions written\" }\n"
                + "- { pid: 42, id: 2, type: endpoint, value: 7, label: \"tcp/RxmEndpoint 4: messages received\" }\n"
                + "- { pid: 42, id: 3, type: endpoint, value: 0, label: \"tcp/RxmEndpoint 4: " + LONG_NAME + "\" }\n",
                print(true, null).replace(System.lineSeparator(), "\n"));
    }
}
