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
    /** The most round trips one {@link #exchanges} call makes. */
    static final int CHUNK = 4;

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

    /**
     * Per size: {@code warmup} untimed and {@code iterations} timed round trips. The round trips
     * are made by {@link #exchanges} in chunks of at most {@value #CHUNK}, which end where the
     * timing starts and before the settle iteration (made here, with the settle inside it); this
     * loop only keeps the books between chunks.
     *
     * <p>Why chunks (as {@code BwCommand}'s): this loop once made every round trip itself, so the
     * JIT compiled it only as an on-stack replacement of its loop, once ~60 000 round trips had
     * been counted over the warm-up pair and the measured run: a C1 compilation of it, and then of
     * the wait it calls, ran on the pinned spinning thread's core inside short timed runs — 1 to 3
     * round trips of 1 ms or more in 1 000 at 64 KiB over shm, which took its mean to 1.6 times
     * its median (a compilation log, {@code JOFI_JAVA_OPTS="-XX:+PrintCompilation"}, showed them
     * inside the timed part). A method called per chunk is compiled as a whole in the warm-up,
     * and this loop runs few enough rounds to stay out of the compiler's way.
     */
    @Override
    void runSize(PerfConnection c, boolean client, int size, long iterations, long warmup, PerfReport report) {
        long total = iterations + warmup;
        boolean check = verifyData && report != null;
        // --percentiles: one sample per timed iteration. The JIT warm-up (no report) samples on the
        // client's side only, so that the compiled code has both ways of Timing.sample: the
        // measured run takes either (a branch the warm-up never took is a deoptimization and a
        // recompilation inside the timed iterations, seen with --percentiles)
        boolean sampled = report != null ? report.percentilesWanted() : client;
        long[] samples = sampled ? new long[(int) Math.min(iterations, Integer.MAX_VALUE)] : null;
        ProgressLine progress = progressLine(report);
        progress.start(size);
        // settle in the last untimed iteration, where this side is about to send and the peer
        // waits untimed (PerfCommand.settleIteration); without untimed iterations, before the first
        long settleAt = report == null ? -1 : settleIteration(warmup);
        if (settleAt < 0 && report != null) {
            settleBeforeTiming();
        }
        Timing t = new Timing(System.nanoTime(), samples, warmup, total, progress);
        long i = 0;
        while (i < total) {
            if (i == warmup) {
                t.start = System.nanoTime();
                t.mark = t.start;
            }
            if (i == settleAt) {
                settleExchange(c, client, size); // untimed: settleAt < warmup
                t.tick(i);
                i++;
                continue;
            }
            long end = Math.min(i + CHUNK, total);
            if (i < warmup && warmup < end) {
                end = warmup;
            }
            if (i < settleAt && settleAt < end) {
                end = settleAt;
            }
            exchanges(c, client, size, i, end, check, t);
            i = end;
        }
        long elapsed = System.nanoTime() - t.start;
        if (report == null) {
            return; // the JIT warm-up: no row
        }
        timedIterationsEnded();
        report.row(size, iterations, 2, elapsed);
        if (samples != null) {
            report.percentiles(size, samples, samples.length, 2);
        }
    }

    /**
     * Round trips {@code from} (inclusive) to {@code to} (exclusive): the client sends then
     * receives, the server receives then sends; -v checks the timed ones' messages. No allocation
     * (views, contexts and CQ entries are preallocated).
     */
    private static void exchanges(PerfConnection c, boolean client, int size, long from, long to, boolean check,
                                  Timing t) {
        for (long i = from; i < to; i++) {
            boolean timed = i >= t.warmup;
            if (client) {
                c.sendAndWait(size);
                c.awaitReceive();
                if (check && timed) {
                    c.checkReceived(size); // fabtests checks the timed iterations only (ft_rx while active)
                }
            } else {
                c.awaitReceive();
                if (check && timed) {
                    c.checkReceived(size);
                }
                c.sendAndWait(size);
            }
            if (timed) {
                t.sample(i);
            }
            t.tick(i);
        }
    }

    /** The settle iteration (untimed): the settle where this side is about to send. */
    private void settleExchange(PerfConnection c, boolean client, int size) {
        if (client) {
            settleBeforeTiming();
            c.sendAndWait(size);
            c.awaitReceive();
        } else {
            c.awaitReceive();
            settleBeforeTiming();
            c.sendAndWait(size);
        }
    }

    /**
     * The clock of one size's run, carried between chunks: when the timing started, the mark the
     * next sample counts from (--percentiles: one clock read per timed iteration, its end the next
     * one's start), the samples and the progress line.
     */
    private static final class Timing {
        long start;
        long mark;
        final long[] samples;
        final long warmup;
        final long total;
        final ProgressLine progress;

        Timing(long start, long[] samples, long warmup, long total, ProgressLine progress) {
            this.start = start;
            this.mark = start;
            this.samples = samples;
            this.warmup = warmup;
            this.total = total;
            this.progress = progress;
        }

        /** Timed iteration {@code i} ended: its time since the mark. */
        void sample(long i) {
            if (samples != null && i - warmup < samples.length) {
                long now = System.nanoTime();
                samples[(int) (i - warmup)] = now - mark;
                mark = now;
            }
        }

        /** The progress line; the printing is no iteration's time. */
        void tick(long i) {
            if (progress.tick(i, total)) {
                mark = System.nanoTime();
            }
        }
    }
}
