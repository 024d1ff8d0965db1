package io.jofi.tools;

import picocli.CommandLine;

/**
 * {@code jofi pingpong}: fabtests' {@code fi_msg_pingpong} (docs/TCP-WIRE.md, "fabtests'
 * fi_msg_pingpong choreography"). Per size: the 1-byte sync, {@code -w} warm-up iterations,
 * then {@code -I} timed ones — the client sends then receives, the server receives then sends —
 * and a row of the table; then fabtests' finalize. Interoperates with a C
 * {@code fi_msg_pingpong} in both roles. With {@code -v} each timed iteration's received
 * message is checked against fabtests' pattern (the sent ones always carry it).
 */
@CommandLine.Command(name = "pingpong", description = {
        "Ping-pong latency, as fabtests' fi_msg_pingpong (same options, choreography and table).",
        "Server: no SERVER argument. Client: the server's address."})
public final class PingpongCommand extends PerfCommand {

    @Override
    String name() {
        return "pingpong";
    }

    @Override
    int receiveDepth() {
        return 1;
    }

    @Override
    int messagesPerIteration() {
        return 1;
    }

    @Override
    int sendDepth() {
        return 1;
    }

    @Override
    void runSize(PerfConnection c, boolean client, int size, long iterations, long warmup, PerfReport report) {
        long total = iterations + warmup;
        boolean check = verifyData && report != null;
        long[] samples = report != null && report.percentilesWanted() ? new long[(int) Math.min(iterations, Integer.MAX_VALUE)] : null;
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
        // the timed loop: no allocation (views, contexts and CQ entries are preallocated)
        for (long i = 0; i < total; i++) {
            if (i == warmup) {
                start = System.nanoTime();
                mark = start;
            }
            if (client) {
                if (i == settleAt) {
                    settleBeforeTiming();
                }
                c.sendAndWait(size);
                c.awaitReceive();
                if (check && i >= warmup) {
                    c.checkReceived(size); // fabtests checks the timed iterations only (ft_rx while active)
                }
            } else {
                c.awaitReceive();
                if (check && i >= warmup) {
                    c.checkReceived(size);
                }
                if (i == settleAt) {
                    settleBeforeTiming();
                }
                c.sendAndWait(size);
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
        timedIterationsEnded();
        report.row(size, iterations, 2, elapsed);
        if (samples != null) {
            report.percentiles(size, samples, samples.length, 2);
        }
    }
}
