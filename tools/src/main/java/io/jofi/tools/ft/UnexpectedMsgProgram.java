package io.jofi.tools.ft;

import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ResourceMgmt;
import java.nio.ByteBuffer;

/**
 * fabtests' {@code fi_unexpected_msg} ({@code -e msg|rdm}, {@code -I} iterations, default 600):
 * the out-of-band socket for the address exchange and the syncs; per iteration each side sends
 * {@code -M} (default 5) tagged messages (tags {@code 0x1234 + j}, {@code -C}: CQ data = the
 * size) before any receive is posted, syncs, then posts the receives in the reverse tag order
 * and waits for each, so every message arrives unexpected; then the send completions.
 */
final class UnexpectedMsgProgram extends FtProgram {
    private static final long OP_TAG = 0x1234;
    private static final CqEntry[] NO_ENTRIES = {};
    private int concurrentMsgs = 5;
    private boolean sendData;

    @Override
    String name() {
        return "fi_unexpected_msg";
    }

    @Override
    String optstring() {
        return "CM:h" + CS_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "Unexpected message handling test.";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        switch (letter) {
            case 'C' -> sendData = true;
            case 'M' -> concurrentMsgs = (int) Long.decode(arg.strip()).longValue();
            default -> {
                return false;
            }
        }
        return true;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        if (!opts.iterationsGiven) {
            opts.iterations = 600;
        }
        opts.oobSync = true;
        opts.oobAddressExchange = true;
        opts.skipMsgAlloc = true;
        hints.mode(Fi.FI_CONTEXT);
        hints.domainAttr().resourceMgmt(ResourceMgmt.ENABLED);
        hints.rxAttr().totalBufferedRecv(0);
        hints.caps(Fi.FI_TAGGED);
    }

    @Override
    void run(FtSession s) {
        if (s.hints.epAttr().type() == EpType.MSG) {
            s.initFabricCm();
        } else {
            s.initFabric();
        }
        int size = (int) s.opts.transferSize;
        ByteBuffer tx = ByteBuffer.allocateDirect(size * concurrentMsgs);
        ByteBuffer rx = ByteBuffer.allocateDirect(Math.max(size, FtSession.MAX_CTRL_MSG) * concurrentMsgs);
        long data = sendData ? size : FtSession.NO_CQ_DATA;
        Object[] txCtx = new Object[concurrentMsgs];
        Object[] rxCtx = new Object[concurrentMsgs];
        for (int j = 0; j < concurrentMsgs; j++) {
            txCtx[j] = new Object();
            rxCtx[j] = new Object();
        }
        long pid = ProcessHandle.current().pid();
        for (int i = 0; i < s.opts.iterations; i++) {
            for (int j = 0; j < concurrentMsgs; j++) {
                ByteBuffer view = tx.duplicate().position(j * size).limit((j + 1) * size).slice();
                if (s.opts.verifyData) {
                    io.jofi.tools.DataPattern.fill(view, size);
                }
                s.postTxBuf(view, data, txCtx[j], OP_TAG + j);
                s.txCq.read(NO_ENTRIES, 0); // request send progress, as fabtests' fi_cq_read(txcq, NULL, 0)
            }
            s.sync();
            for (int j = 0; j < concurrentMsgs; j++) {
                ByteBuffer view = rx.duplicate().position(j * size).limit((j + 1) * size).slice();
                s.postRxBuf(view, rxCtx[j], OP_TAG + (concurrentMsgs - 1) - j);
                s.txCq.read(NO_ENTRIES, 0);
                waitRecv(s, size);
            }
            if (s.opts.verifyData) {
                for (int j = 0; j < concurrentMsgs; j++) {
                    ByteBuffer view = rx.duplicate().position(j * size).limit((j + 1) * size).slice();
                    try {
                        io.jofi.tools.DataPattern.check(view, size);
                    } catch (io.jofi.tools.CommandFailure e) {
                        s.out.println(e.getMessage());
                        throw new FtError(-Errno.FI_EOTHER, e.getMessage());
                    }
                }
            }
            for (int j = 0; j < concurrentMsgs; j++) {
                s.getTxComp(s.txSeq);
            }
            if (i % 100 == 0) {
                s.out.printf("PID %d GOOD iter %d/%d completed%n", pid, i, s.opts.iterations);
            }
        }
        s.sync();
        s.out.printf("PID %d GOOD all done%n", pid);
    }

    /** wait_recv: one receive completion (spin, or sread with -c sread), its CQ data checked with -C. */
    private void waitRecv(FtSession s, int size) {
        CqEntry entry = s.opts.compMethod == FtOptions.CompMethod.SREAD ? s.sreadRx() : s.readRx();
        if (sendData && entry.data() != size) {
            s.out.printf("ERROR incorrect remote CQ data value. Got %d, expected %d%n", entry.data(), size);
            throw new FtError(-Errno.FI_EOTHER, "incorrect remote CQ data value");
        }
    }
}
