package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.tools.CommandFailure;
import io.jofi.tools.DataPattern;
import io.jofi.tools.PerfReport;
import java.nio.ByteBuffer;

/**
 * fabtests' {@code fi_bw}: after the connection (MSG) or the address exchange (RDM) one byte each
 * way, then per size (fabtests' default sizes, or {@code -S}) one window: the client posts
 * {@code -W} sends (default 64) and waits for them, the server, after sleeping {@code -T} seconds
 * so that the sends arrive before their receives, posts as many receives and checks each with
 * {@code -v}; a 1-byte sync each way closes the window and each side prints fabtests' result row.
 * {@code -U}: the sends with {@code FI_DELIVERY_COMPLETE} (the hints' transmit op flags).
 */
final class BwProgram extends FtProgram {
    /** fabtests' sizes marked FT_DEFAULT_SIZE, the ones fi_bw runs without -S. */
    static final int[] DEFAULT_SIZES = {1 << 6, 1 << 8, 1 << 10, 1 << 12, 1 << 16, 1 << 20};

    private int sleepSeconds;
    private boolean verify;

    @Override
    String name() {
        return "fi_bw";
    }

    @Override
    String optstring() {
        return "UW:vT:h" + CS_OPTS + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "A bandwidth test with data verification.";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        switch (letter) {
            case 'U' -> opts.applyDeliveryComplete(hints);
            case 'W' -> opts.windowSize = FtOptions.atoi(arg);
            case 'v' -> verify = true;
            case 'T' -> sleepSeconds = FtOptions.atoi(arg);
            default -> {
                return false;
            }
        }
        return true;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        if (hints.epAttr().type() == null || hints.epAttr().type() == EpType.UNSPEC) {
            hints.epAttr().type(EpType.RDM);
        }
        if (hints.epAttr().type() == EpType.DGRAM) {
            throw new FtError(-io.jofi.Errno.EINVAL, "This test does not support DGRAM endpoints");
        }
        hints.caps(Fi.FI_MSG);
        hints.mode(Fi.FI_CONTEXT);
        if (verify) {
            hints.txAttr().msgOrder(hints.txAttr().msgOrder() | Fi.FI_ORDER_SAS);
            hints.rxAttr().msgOrder(hints.rxAttr().msgOrder() | Fi.FI_ORDER_SAS);
        }
    }

    @Override
    void run(FtSession s) {
        if (s.hints.epAttr().type() == EpType.MSG) {
            s.initFabricCm();
        } else {
            s.initFabric();
        }
        s.tx(1, s.txCtx);
        s.getTxComp(s.txSeq);
        s.getRxComp(s.rxSeq);
        int[] sizes = sizes(s);
        int largest = 0;
        for (int size : sizes) {
            largest = Math.max(largest, size);
        }
        int stride = Math.max(largest, FtSession.MAX_CTRL_MSG);
        // one send buffer serves the whole window (each send reads the same pattern); a receive
        // buffer per window slot, as fabtests' rx_ctx_arr
        ByteBuffer sends = ByteBuffer.allocateDirect(stride);
        ByteBuffer receives = ByteBuffer.allocateDirect(Math.multiplyExact(stride, s.opts.windowSize));
        PerfReport report = new PerfReport(s.out, s.opts.machineReadable, false, "", name());
        for (int size : sizes) {
            runLoop(s, size, sends, receives, report);
        }
    }

    private int[] sizes(FtSession s) {
        if (s.opts.transferSizeGiven) {
            return new int[] {(int) s.opts.transferSize};
        }
        long max = s.info.epAttr().maxMsgSize();
        return java.util.Arrays.stream(DEFAULT_SIZES).filter(size -> max <= 0 || size <= max).toArray();
    }

    private void runLoop(FtSession s, int size, ByteBuffer sends, ByteBuffer receives, PerfReport report) {
        int window = s.opts.windowSize;
        if (!s.opts.client() && sleepSeconds > 0) {
            sleep(sleepSeconds);
        }
        long start = System.nanoTime();
        if (s.opts.client()) {
            if (verify) {
                DataPattern.fill(sends, size);
            }
            for (int i = 0; i < window; i++) {
                s.postTxBuf(sends.duplicate().clear().limit(size), FtSession.NO_CQ_DATA, s.txCtx, 0);
            }
            s.getTxComp(s.txSeq);
        } else {
            int slot = Math.max(size, FtSession.MAX_CTRL_MSG);
            for (int i = 0; i < window; i++) {
                s.postRxBuf(receives.duplicate().clear().position(i * slot).limit(i * slot + slot).slice(), s.rxCtx, 0);
            }
            s.getRxComp(s.rxSeq);
            if (verify) {
                for (int i = 0; i < window; i++) {
                    check(receives.duplicate().clear().position(i * slot).slice(), size);
                }
            }
        }
        long elapsed = System.nanoTime() - start;
        // post_rx_sync: a receive, then one byte each way, the client first
        s.postRx(s.rxSize, s.rxCtx);
        if (s.opts.client()) {
            s.tx(1, s.txCtx);
            s.getRxComp(s.rxSeq);
        } else {
            s.getRxComp(s.rxSeq);
            s.tx(1, s.txCtx);
        }
        report.row(size, window, 1, elapsed);
    }

    private static void check(ByteBuffer slot, int size) {
        try {
            DataPattern.check(slot, size);
        } catch (CommandFailure e) {
            throw new FtError(-io.jofi.Errno.EIO, e.getMessage());
        }
    }

    private static void sleep(int seconds) {
        try {
            Thread.sleep(seconds * 1000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FtError(-io.jofi.Errno.EINTR, "interrupted in the receive side's delay");
        }
    }
}
