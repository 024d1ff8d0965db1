package io.jofi.tools;

import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import picocli.CommandLine;

/**
 * {@code jofi rma_bw}: fabtests' {@code fi_rma_bw} (benchmark_shared.c's RMA bandwidth loop).
 * After the connection the sides exchange the keys of their receive buffers ({@link RmaPeer}),
 * then per size the 1-byte sync and {@code -w} untimed plus {@code -I} timed operations. write
 * and read run from both sides at once, each waiting for its completions after every
 * {@code -W} operations and at the end; writedata runs from the client only, acknowledged as
 * {@code bw}'s messages are: after every {@code -W} writes and at the end the server collects
 * their completions (remote CQ data; on tcp no receive is consumed), checks its buffer with
 * {@code -v}, and sends the 4-byte ack. {@code -U}: every operation asks for delivery complete.
 */
@CommandLine.Command(name = "rma_bw", description = {
        "RMA bandwidth, as fabtests' fi_rma_bw: -o write|read (both sides at once) or writedata (client to server, acked per window).",
        "Server: no SERVER argument. Client: the server's address."})
public final class RmaBwCommand extends PerfCommand {

    @CommandLine.Option(names = "-o", paramLabel = "write|read|writedata", defaultValue = "write",
            description = "The RMA operation (default write).")
    String operation;

    @CommandLine.Option(names = "-U", description = "Delivery complete (FI_DELIVERY_COMPLETE) for every operation, as fi_rma_bw -U.")
    boolean deliveryComplete;

    @CommandLine.Option(names = "-W", paramLabel = "WINDOW", defaultValue = "64",
            description = "Operations between two waits for their completions (default 64); at most the endpoint's queue sizes.")
    int window;

    @Override
    String name() {
        return "rma_bw";
    }

    @Override
    int receiveDepth() {
        return 1;
    }

    @Override
    int sendDepth() {
        return Math.max(1, window);
    }

    @Override
    int messagesPerIteration() {
        return 1;
    }

    @Override
    long defaultIterations(int size) {
        return 2 * super.defaultIterations(size); // fabtests' size_to_count with FT_OPT_BW
    }

    @Override
    long extraCaps() {
        return Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;
    }

    @Override
    void checkAgainst(Info info) {
        op();
        BwCommand.checkWindow(window, info);
    }

    private RmaPeer.RmaOp op() {
        return switch (operation) {
            case "write" -> RmaPeer.RmaOp.WRITE;
            case "read" -> RmaPeer.RmaOp.READ;
            case "writedata" -> RmaPeer.RmaOp.WRITEDATA;
            default -> throw new CommandFailure("-o must be write, read or writedata, got '" + operation + "'", ExitStatus.USAGE);
        };
    }

    @Override
    void prepare(PerfConnection c) throws FabricException {
        c.rmaPeer(RmaPeer.exchangeKeys(c, deliveryComplete));
    }

    @Override
    void runSize(PerfConnection c, boolean client, int size, long iterations, long warmup, PerfReport report) {
        RmaPeer.RmaOp op = op();
        RmaPeer rma = c.rmaPeer();
        boolean writedata = op == RmaPeer.RmaOp.WRITEDATA;
        boolean check = verifyData && report != null;
        long total = iterations + warmup;
        ProgressLine progress = progressLine(report);
        progress.start(size);
        if (report != null) {
            settleBeforeTiming();
        }
        long start = System.nanoTime();
        int inWindow = 0;
        int pending = 0;
        for (long i = 0; i < total; i++) {
            if (i == warmup) {
                start = System.nanoTime();
            }
            if (!writedata || client) {
                if (rma.post(op, size)) {
                    pending++;
                }
            } else {
                pending++; // a write with CQ data to collect
            }
            if (++inWindow == window) {
                endWindow(c, writedata, client, pending, size, check, i >= warmup);
                pending = 0;
                inWindow = 0;
            }
            progress.tick(i, total);
        }
        endWindow(c, writedata, client, pending, size, check, total > warmup);
        long elapsed = System.nanoTime() - start;
        if (report != null) {
            report.row(size, iterations, 1, elapsed);
        }
    }

    /** After a window: the initiator's completions; writedata also the server's ack. */
    private static void endWindow(PerfConnection c, boolean writedata, boolean client, int pending, int size,
            boolean check, boolean timed) {
        if (writedata && !client) {
            for (; pending > 0; pending--) {
                c.awaitRemoteWrite();
            }
            if (check) {
                c.checkReceived(size);
            }
            c.sendPlain(PerfConnection.FINALIZE_BYTES);
            return;
        }
        for (; pending > 0; pending--) {
            c.awaitSend();
        }
        if (writedata) {
            c.awaitReceive();
            if (check && timed) {
                c.checkReceived(PerfConnection.FINALIZE_BYTES);
            }
        }
    }
}
