package io.jofi.tools;

import picocli.CommandLine;

/**
 * {@code jofi bw}: fabtests' bandwidth pattern over the pingpong set-up. Per size: the 1-byte
 * sync, then per iteration the client sends a window of {@code -W} messages (inject below the
 * inject size, else send, completions collected after the window) and waits for the server's
 * 4-byte ack; the server receives the window (reposting each receive) and sends the ack. Both
 * sides keep {@code -W} receives posted. The row counts {@code -W} transfers per iteration.
 */
@CommandLine.Command(name = "bw", description = {
        "Bandwidth, as fabtests' bandwidth tests: windows of sends, each acknowledged by a message.",
        "Server: no SERVER argument. Client: the server's address."})
public final class BwCommand extends PerfCommand {

    @CommandLine.Option(names = "-W", paramLabel = "WINDOW", defaultValue = "64", description = "Sends per window (default 64, as fabtests).")
    int window;

    @Override
    String name() {
        return "bw";
    }

    @Override
    int receiveDepth() {
        return window();
    }

    @Override
    int messagesPerIteration() {
        return window();
    }

    @Override
    int sendDepth() {
        return window();
    }

    private int window() {
        if (window < 1 || window > 4096) {
            throw new CommandFailure("-W must be between 1 and 4096, got " + window, ExitStatus.USAGE);
        }
        return window;
    }

    @Override
    void runSize(PerfConnection c, boolean client, int size, long iterations, long warmup, PerfReport report) {
        long total = iterations + warmup;
        long[] samples = report != null && report.verbose() ? new long[(int) Math.min(iterations, Integer.MAX_VALUE)] : null;
        ProgressLine progress = progressLine(report);
        progress.start(size);
        // settle in the last untimed iteration, where this side is about to send and the peer
        // waits untimed (PerfCommand.settleIteration); without untimed iterations, before the first
        long settleAt = report == null ? -1 : settleIteration(warmup);
        if (settleAt < 0 && report != null) {
            settleBeforeTiming();
        }
        long start = System.nanoTime();
        // -v: one clock read per timed iteration (its end is the next one's start), not two
        long mark = start;
        for (long i = 0; i < total; i++) {
            if (i == warmup) {
                start = System.nanoTime();
                mark = start;
            }
            if (client && i == settleAt) {
                settleBeforeTiming(); // before its last untimed window (the server waits untimed)
            }
            if (client) {
                int pending = 0;
                for (int j = 0; j < window; j++) {
                    if (c.send(size)) {
                        pending++;
                    }
                }
                for (; pending > 0; pending--) {
                    c.awaitSend();
                }
                c.awaitReceive();
            } else {
                for (int j = 0; j < window; j++) {
                    c.awaitReceive();
                }
                if (i == settleAt) {
                    settleBeforeTiming(); // before the ack of the last untimed window (the client waits untimed)
                }
                c.sendAndWait(PerfConnection.FINALIZE_BYTES);
            }
            if (samples != null && i >= warmup && i - warmup < samples.length) {
                long now = System.nanoTime();
                samples[(int) (i - warmup)] = now - mark;
                mark = now;
            }
            if (progress.tick(i, total)) {
                mark = System.nanoTime(); // the printing is no iteration's time
            }
        }
        long elapsed = System.nanoTime() - start;
        if (report == null) {
            return; // the JIT warm-up: no row
        }
        report.row(size, iterations, window, elapsed);
        if (samples != null) {
            report.percentiles(size, samples, samples.length, window);
        }
    }
}
