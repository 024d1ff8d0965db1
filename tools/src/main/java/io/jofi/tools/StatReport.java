package io.jofi.tools;

import io.jofi.spi.util.stats.StatsFileDescriptor;
import io.jofi.spi.util.stats.StatsFileReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * Prints counters snapshots for {@code jofi stat}: for people, grouped by process (with its
 * command line) and owner (the label up to its {@code ": "}, with its local and peer address once
 * known) with aligned values, counters at 0 left out unless {@code -a}; with {@code -m}, every
 * owner's addresses and every counter, one line each in the fabtests-style of the other tools' {@code -m}:
 * {@code - { pid: 4242, owner: "tcp/RxmEndpoint 4", description: "local 127.0.0.1:9228" }},
 * {@code - { pid: 4242, id: 3, type: endpoint, value: 17, label: "tcp/RxmEndpoint 4: sends posted" }}.
 */
final class StatReport {
    /** The name column is at least this wide, wider when a name is longer (values stay aligned). */
    private static final int MIN_NAME_WIDTH = 40;

    private final PrintStream out;
    private final boolean machine;
    private final boolean all;
    private final LongFunction<Optional<String>> commandLines;

    /**
     * @param all          print counters at 0 too (for people; {@code -m} prints every counter)
     * @param commandLines the command line of a process id, when known
     */
    StatReport(PrintStream out, boolean machine, boolean all, LongFunction<Optional<String>> commandLines) {
        this.out = out;
        this.machine = machine;
        this.all = all;
        this.commandLines = commandLines;
    }

    void print(Path directory, List<StatsFileReader.Snapshot> snapshots, String filter) {
        if (machine) {
            out.println("---");
            out.println("jofi stat " + directory + " :");
        } else {
            out.printf(Locale.ROOT, "jofi stat  %s  %d process(es)  %s%n", Instant.now(), snapshots.size(), directory);
        }
        for (StatsFileReader.Snapshot s : snapshots) {
            if (machine) {
                for (Map.Entry<String, String> d : s.descriptions().entrySet()) {
                    if (filter == null || (d.getKey() + ": " + d.getValue()).contains(filter)) {
                        out.printf(Locale.ROOT, "- { pid: %d, owner: \"%s\", description: \"%s\" }%n", s.pid(),
                                quoted(d.getKey()), quoted(d.getValue()));
                    }
                }
                for (StatsFileReader.CounterValue c : s.counters()) {
                    if (filter == null || c.label().contains(filter)) {
                        out.printf(Locale.ROOT, "- { pid: %d, id: %d, type: %s, value: %d, label: \"%s\" }%n", s.pid(),
                                c.id(), typeName(c.typeId()), c.value(), quoted(c.label()));
                    }
                }
                continue;
            }
            out.printf(Locale.ROOT, "%npid %d  started %s  %s%n", s.pid(), Instant.ofEpochMilli(s.startMillis()),
                    s.path().getFileName());
            commandLines.apply(s.pid()).ifPresent(c -> out.println("  command: " + c));
            printByOwner(s.counters(), s.descriptions(), filter);
        }
    }

    /** {@code text} inside a double-quoted {@code -m} value. */
    private static String quoted(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /**
     * The counters under their owners: each owner once, in the order of its first counter in
     * the file, with all its counters (an object has several groups — an rxm endpoint's posts,
     * receives and connections — and freed records are reused, so a file interleaves owners).
     */
    private void printByOwner(List<StatsFileReader.CounterValue> counters, Map<String, String> descriptions, String filter) {
        Map<String, List<StatsFileReader.CounterValue>> byOwner = new LinkedHashMap<>();
        int width = MIN_NAME_WIDTH;
        int zeros = 0;
        for (StatsFileReader.CounterValue c : counters) {
            if (filter != null && !c.label().contains(filter)) {
                continue;
            }
            if (c.value() == 0 && !all) {
                zeros++; // most counters of a quiet object are 0: they hide what moved
                continue;
            }
            byOwner.computeIfAbsent(owner(c.label()), o -> new ArrayList<>()).add(c);
            width = Math.max(width, name(c.label()).length());
        }
        String line = "    %-" + width + "s %15d%n";
        for (Map.Entry<String, List<StatsFileReader.CounterValue>> e : byOwner.entrySet()) {
            String where = descriptions.get(e.getKey());
            out.println("  " + e.getKey() + (where == null ? "" : "  (" + where + ")"));
            for (StatsFileReader.CounterValue c : e.getValue()) {
                out.printf(Locale.ROOT, line, name(c.label()), c.value());
            }
        }
        if (zeros > 0) {
            out.printf(Locale.ROOT, "  (%d counters at 0 not shown; -a shows them)%n", zeros);
        }
    }

    /** A label's owner: the part before its {@code ": "} (none: ""). */
    static String owner(String label) {
        int colon = label.indexOf(": ");
        return colon < 0 ? "" : label.substring(0, colon);
    }

    /** A label's counter name: the part after its owner's {@code ": "}. */
    static String name(String label) {
        int colon = label.indexOf(": ");
        return colon < 0 ? label : label.substring(colon + 2);
    }

    /** The name of a counter's type id ({@code StatsFileDescriptor.TYPE_*}). */
    static String typeName(int typeId) {
        return switch (typeId) {
            case StatsFileDescriptor.TYPE_PROVIDER -> "provider";
            case StatsFileDescriptor.TYPE_ENDPOINT -> "endpoint";
            case StatsFileDescriptor.TYPE_RECEIVE_QUEUE -> "receive_queue";
            case StatsFileDescriptor.TYPE_COMPLETION_QUEUE -> "cq";
            case StatsFileDescriptor.TYPE_EVENT_QUEUE -> "eq";
            default -> "other";
        };
    }
}
