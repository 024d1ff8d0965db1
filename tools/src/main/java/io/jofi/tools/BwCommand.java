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

    @Override
    void runSize(PerfConnection c, boolean client, int size, long iterations, long warmup, PerfReport report) {
        long total = iterations + warmup;
        boolean check = verifyData && report != null;
        // --percentiles: one sample per window and one for the closing exchange, each its time
        // per message (a clock read per window, not per message)
        long[] samples = report != null && report.percentilesWanted() ? new long[(int) Math.min(iterations / window + 2, Integer.MAX_VALUE)] : null;
        int sampled = 0;
        int sinceMark = 0;
        ProgressLine progress = progressLine(report);
        progress.start(size);
        long settleAt = report == null ? -1 : settleIteration(warmup);
        if (settleAt < 0 && report != null) {
            settleBeforeTiming();
        }
        long start = System.nanoTime();
        long mark = start;
        int inWindow = 0;
        int pending = 0;
        for (long i = 0; i < total; i++) {
            if (i == warmup) {
                start = System.nanoTime();
                mark = start;
            }
            if (i == settleAt) {
                settleBeforeTiming();
            }
            if (client) {
                if (c.send(size)) {
                    pending++;
                }
                if (++inWindow == window) {
                    awaitAck(c, pending, check && i >= warmup);
                    pending = 0;
                    inWindow = 0;
                }
            } else {
                c.awaitReceive();
                if (++inWindow == window) {
                    answerWindow(c, size, check);
                    inWindow = 0;
                }
            }
            if (i >= warmup) {
                sinceMark++;
            }
            if (inWindow == 0 && samples != null && sinceMark > 0 && sampled < samples.length) {
                long now = System.nanoTime();
                samples[sampled++] = (now - mark) / sinceMark;
                mark = now;
                sinceMark = 0;
            }
            if (progress.tick(i, total)) {
                mark = System.nanoTime(); // the printing is no iteration's time
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
            samples[sampled++] = (System.nanoTime() - mark) / Math.max(1, sinceMark);
        }
        if (report == null) {
            return; // the JIT warm-up: no row
        }
        report.row(size, iterations, 1, elapsed);
        if (samples != null) {
            report.percentiles(size, samples, sampled, 1);
        }
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
