package io.jofi.tools;

import io.jofi.Info;
import picocli.CommandLine;

/**
 * {@code jofi bw}: fabtests' {@code fi_msg_bw} (benchmark_shared.c's bandwidth loop). Per size:
 * the 1-byte sync, then {@code -w} untimed plus {@code -I} timed MESSAGES from the client
 * (inject below the inject size, else send); after every {@code -W}th message the client waits
 * for its send completions and then for the server's 4-byte ack, and after the last message
 * once more (fabtests' extra ack), so both sides exchange floor(total/W) + 1 acks. The server
 * receives (keeping {@code -W} receives posted) and answers each window, and the end, with the
 * ack. With {@code -v} the server checks the last message of each window and the client each
 * timed ack, as fabtests does. The row counts one transfer per message.
 */
@CommandLine.Command(name = "bw", description = {
        "Bandwidth, as fabtests' fi_msg_bw (-e rdm --tagged: fi_rdm_tagged_bw): -I messages, an ack after every -W of them and at the end.",
        "Server: no SERVER argument. Client: the server's address."})
public final class BwCommand extends PerfCommand {

    @CommandLine.Option(names = "-W", paramLabel = "WINDOW", defaultValue = "64",
            description = "Messages between two acks (default 64, as fabtests); at most the endpoint's transmit and receive queue sizes.")
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
        return 1;
    }

    @Override
    int sendDepth() {
        return window();
    }

    /**
     * The window acks' path, warmed as often as the data's: at most {@value #ACK_WARM_UP_ROUND_TRIPS}
     * round trips, fewer for a shorter {@code --jit-warmup}.
     */
    @Override
    long controlWarmUpRoundTrips() {
        return Math.min(jitWarmup, ACK_WARM_UP_ROUND_TRIPS);
    }

    /** Enough invocations of the small-message path for C2 (its threshold is ~5000 at C1) in one warm-up round. */
    static final long ACK_WARM_UP_ROUND_TRIPS = 10_000;

    @Override
    long defaultIterations(int size) {
        return 2 * super.defaultIterations(size); // fabtests' size_to_count with FT_OPT_BW
    }

    @Override
    void checkAgainst(Info info) {
        checkWindow(window, info);
    }

    /**
     * A usage error unless {@code window} messages fit the endpoint's queues: the window's sends
     * are outstanding at once and as many receives stay posted, so a larger window could only
     * fail later with {@code EAGAIN}.
     */
    static void checkWindow(int window, Info info) {
        long tx = info.txAttr().size();
        long rx = info.rxAttr().size();
        if (window < 1) {
            throw new CommandFailure("-W must be >= 1, got " + window, ExitStatus.USAGE);
        }
        if (tx > 0 && window > tx || rx > 0 && window > rx) {
            throw new CommandFailure("-W " + window + " exceeds the endpoint's queues (" + info.fabricAttr().provName()
                    + ": tx_attr.size " + tx + ", rx_attr.size " + rx + "); use -W " + Math.min(tx > 0 ? tx : rx, rx > 0 ? rx : tx)
                    + " or less", ExitStatus.USAGE);
        }
    }

    private int window() {
        if (window < 1) {
            throw new CommandFailure("-W must be >= 1, got " + window, ExitStatus.USAGE);
        }
        return window;
    }

    /**
     * Per size: {@code warmup} untimed and {@code iterations} timed messages, then fabtests'
     * closing ack. The messages are moved by {@link #messages} in chunks of at most
     * {@value #CHUNK}, which end at every window's end, at the settle point and where the
     * timing starts; this loop only keeps the books between chunks.
     *
     * <p>Why chunks: this loop once moved every message itself, so the JIT could compile it
     * only as an on-stack replacement of its loop, after ~100 000 messages counted over the
     * warm-up and the measured run: at 64 KiB that C2 compilation ran on the pinned spinning
     * thread's core in the middle of a short timed run, and halved its figure
     * (benchmarks/results/shm-gaps-bw-jit.md). A method called per chunk is compiled as a
     * whole in the warm-up, which calls it thousands of times, and this loop runs few enough
     * rounds to stay out of the compiler's way.
     */
    @Override
    void runSize(PerfConnection c, boolean client, int size, long iterations, long warmup, PerfReport report) {
        long total = iterations + warmup;
        boolean check = verifyData && report != null;
        // --percentiles: one sample per window and one for the closing exchange, each its time
        // per message (a clock read per window, not per message)
        long[] samples = report != null && report.percentilesWanted() ? new long[(int) Math.min(iterations / window + 2, Integer.MAX_VALUE)] : null;
        int sampled = 0;
        ProgressLine progress = progressLine(report);
        progress.start(size);
        long settleAt = report == null ? -1 : settleIteration(warmup);
        if (settleAt < 0 && report != null) {
            settleBeforeTiming();
        }
        long start = System.nanoTime();
        long mark = start;
        long markedAt = warmup; // the message count at the mark: a sample is the time per message since
        int pending = 0; // the client's sends of the current window not yet waited for
        long i = 0;
        while (i < total) {
            if (i == warmup) {
                start = System.nanoTime();
                mark = start;
                markedAt = i;
            }
            if (i == settleAt) {
                settleBeforeTiming();
            }
            long windowEnd = i - i % window + window; // windows count from the size's first message
            long end = Math.min(Math.min(windowEnd, i + CHUNK), total);
            if (i < settleAt && settleAt < end) {
                end = settleAt;
            }
            if (i < warmup && warmup < end) {
                end = warmup;
            }
            boolean closesWindow = end == windowEnd;
            pending = messages(c, client, size, (int) (end - i), closesWindow, check && i >= warmup, pending);
            i = end;
            if (closesWindow && samples != null && i - markedAt > 0 && sampled < samples.length) {
                long now = System.nanoTime();
                samples[sampled++] = (now - mark) / (i - markedAt);
                mark = now;
                markedAt = i;
            }
            if (closesWindow && progress.due(i, total)) {
                mark = System.nanoTime(); // the printing is no message's time
                markedAt = Math.max(i, warmup);
            }
        }
        // fabtests' closing exchange: one more ack, whether or not the last window was full
        if (client) {
            awaitAck(c, pending, check && total > warmup);
        } else {
            answerWindow(c, size, check);
        }
        long elapsed = System.nanoTime() - start;
        if (samples != null && sampled < samples.length) {
            samples[sampled++] = (System.nanoTime() - mark) / Math.max(1, total - markedAt);
        }
        if (report == null) {
            return; // the JIT warm-up: no row
        }
        report.row(size, iterations, 1, elapsed);
        if (samples != null) {
            report.percentiles(size, samples, sampled, 1);
        }
    }

    /** The most messages one {@link #messages} call moves. */
    static final int CHUNK = 16;

    /**
     * {@code count} messages of a window (the client sends, the server receives), then, if
     * they close it, the window's ack (the client waits for its send completions and the
     * ack, the server answers). Its own method, called per chunk: see {@link #runSize}. The
     * count of sends to wait for travels as an argument, not in a field: the JIT warm-up runs
     * both roles of one command object at once.
     *
     * @param pending the client's sends of this window not yet waited for
     * @return the same after these messages (0 once the window is closed, and for the server)
     */
    private static int messages(PerfConnection c, boolean client, int size, int count, boolean closesWindow, boolean check,
                                int pending) {
        if (client) {
            for (int k = 0; k < count; k++) {
                if (c.send(size)) {
                    pending++;
                }
            }
            if (closesWindow) {
                awaitAck(c, pending, check);
                return 0;
            }
            return pending;
        }
        for (int k = 0; k < count; k++) {
            c.awaitReceive();
        }
        if (closesWindow) {
            answerWindow(c, size, check);
        }
        return 0;
    }

    /** The client's end of a window: its send completions, then the server's 4-byte ack (checked while timed). */
    private static void awaitAck(PerfConnection c, int pending, boolean check) {
        for (; pending > 0; pending--) {
            c.awaitSend();
        }
        c.awaitReceive();
        if (check) {
            c.checkReceived(PerfConnection.FINALIZE_BYTES);
        }
    }

    /** The server's end of a window: check the last message (-v), then the 4-byte ack. */
    private static void answerWindow(PerfConnection c, int size, boolean check) {
        if (check) {
            c.checkReceived(size);
        }
        c.sendPlain(PerfConnection.FINALIZE_BYTES);
    }
}
