package io.jofi.tools;

import io.jofi.spi.util.stats.StatsFileDescriptor;
import io.jofi.spi.util.stats.StatsFileReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Prints counters snapshots for {@code jofi stat}: for people, grouped by process and owner
 * (the label up to its {@code ": "}) with aligned values; with {@code -m}, one line per counter
 * in the fabtests-style of the other tools' {@code -m}:
 * {@code - { pid: 4242, id: 3, type: endpoint, value: 17, label: "tcp/TcpRdmEndpoint 1: sends posted" }}.
 */
final class StatReport {
    private final PrintStream out;
    private final boolean machine;

    StatReport(PrintStream out, boolean machine) {
        this.out = out;
        this.machine = machine;
    }

    void print(Path directory, List<StatsFileReader.Snapshot> snapshots, String filter) {
        if (machine) {
            out.println("---");
            out.println("jofi stat " + directory + " :");
        } else {
            out.printf(Locale.ROOT, "jofi stat  %s  %d process(es)  %s%n", Instant.now(), snapshots.size(), directory);
        }
        for (StatsFileReader.Snapshot s : snapshots) {
            if (!machine) {
                out.printf(Locale.ROOT, "%npid %d  started %s  %s%n", s.pid(), Instant.ofEpochMilli(s.startMillis()),
                        s.path().getFileName());
            }
            String owner = null;
            for (StatsFileReader.CounterValue c : s.counters()) {
                if (filter != null && !c.label().contains(filter)) {
                    continue;
                }
                if (machine) {
                    out.printf(Locale.ROOT, "- { pid: %d, id: %d, type: %s, value: %d, label: \"%s\" }%n", s.pid(),
                            c.id(), typeName(c.typeId()), c.value(), c.label().replace("\\", "\\\\").replace("\"", "\\\""));
                    continue;
                }
                int colon = c.label().indexOf(": ");
                String o = colon < 0 ? "" : c.label().substring(0, colon);
                String name = colon < 0 ? c.label() : c.label().substring(colon + 2);
                if (!o.equals(owner)) {
                    out.println("  " + o);
                    owner = o;
                }
                out.printf(Locale.ROOT, "    %-40s %15d%n", name, c.value());
            }
        }
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
