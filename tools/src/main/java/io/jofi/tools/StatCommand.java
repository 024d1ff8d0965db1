package io.jofi.tools;

import io.jofi.spi.util.stats.StatsDirectory;
import io.jofi.spi.util.stats.StatsFileReader;
import io.jofi.spi.util.stats.StatsSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * {@code jofi stat [-n] [-m] [-a] [-i SECONDS] [-p PID] [-f TEXT] [-d DIR]}: reads the counters
 * file of every live JOFI JVM on this machine without attaching to it (as Aeron's AeronStat) and
 * prints the counters by process and owner, refreshing like {@code top}; removes the files of
 * processes that died.
 */
@CommandLine.Command(name = "stat", description = {
        "Live counters of every JOFI JVM on this machine, read from their counters files",
        "(jofi-stats-<pid>.dat in /dev/shm, else java.io.tmpdir; -Djofi.stats.dir) without",
        "attaching; refreshes like top until interrupted. Files of dead processes are removed."})
final class StatCommand extends Command {
    @CommandLine.Option(names = "-n", description = "One snapshot, then exit.")
    boolean once;

    @CommandLine.Option(names = "-m", description = "Machine-readable output: one line per counter, every counter.")
    boolean machine;

    @CommandLine.Option(names = {"-a", "--all"}, description = "Counters at 0 too (they are left out by default).")
    boolean all;

    @CommandLine.Option(names = {"-i", "--interval"}, paramLabel = "SECONDS", defaultValue = "1",
            description = "Seconds between refreshes (default ${DEFAULT-VALUE}).")
    double interval;

    @CommandLine.Option(names = {"-p", "--pid"}, paramLabel = "PID", description = "Only process PID.")
    Long pid;

    @CommandLine.Option(names = {"-f", "--filter"}, paramLabel = "TEXT", description = "Only counters whose label contains TEXT.")
    String filter;

    @CommandLine.Option(names = {"-d", "--dir"}, paramLabel = "DIR",
            description = "The directory of the counters files (default: as the JOFI JVMs, jofi.stats.dir).")
    Path dir;

    @Override
    protected int execute() throws IOException, InterruptedException {
        if (!(interval > 0)) {
            throw new CommandFailure("the interval must be above 0 seconds", ExitStatus.USAGE);
        }
        Path directory = dir != null ? dir : StatsSettings.directory();
        StatReport report = new StatReport(out(), machine, all, ProcessCommandLine::of);
        while (true) {
            List<StatsFileReader.Snapshot> snapshots = read(directory);
            if (once && !machine && pid != null && snapshots.isEmpty()) {
                // a typo'd or ended process: say so instead of an empty table and success (with
                // -m, no line is the answer a script reads: StatsConformance asks of a dead child)
                throw new CommandFailure("no live JOFI process " + pid + " has a counters file in " + directory
                        + (pid == ProcessHandle.current().pid() ? " (that is this jofi stat)" : ""));
            }
            if (!once && !machine) {
                out().print("\033[H\033[2J"); // top's refresh: home, clear
            }
            report.print(directory, snapshots, filter);
            out().flush();
            if (once) {
                return ExitStatus.OK;
            }
            Thread.sleep((long) (interval * 1000));
        }
    }

    /** The snapshots of the live processes' files, this one's own left out. */
    private List<StatsFileReader.Snapshot> read(Path directory) throws IOException {
        long self = ProcessHandle.current().pid();
        List<StatsFileReader.Snapshot> snapshots = new ArrayList<>();
        for (Path file : StatsDirectory.live(directory)) {
            try {
                StatsFileReader.Snapshot s = StatsFileReader.read(file);
                if (s.pid() != self && (pid == null || s.pid() == pid)) {
                    snapshots.add(s);
                }
            } catch (IOException e) {
                // a file being made or removed right now: it shows in the next refresh, or not at all
            }
        }
        return snapshots;
    }
}
