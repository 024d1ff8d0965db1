package io.jofi.tools.ft;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import java.nio.ByteBuffer;

/**
 * fabtests' {@code fi_recv_cancel} ({@code -e rdm|msg}, {@code -V} verbose): the server posts
 * two tagged receives ({@code 0xC}, then {@code 0xA}) and cancels the first with
 * {@code fi_cancel}; within 500 reads 1 ms apart its CQ must answer {@code FI_EAVAIL} with one
 * error entry ({@code FI_ECANCELED}, {@code FI_RECV} among its flags) and no second one. Then the
 * 1-byte sync lets the client send {@code 0xA} and {@code 0xC}: the first completes the standing
 * receive, the second waits unexpected until the server posts {@code 0xC} again.
 */
final class RecvCancelProgram extends FtProgram {
    private static final long CANCEL_TAG = 0xC;
    private static final long STANDARD_TAG = 0xA;
    private static final int CANCEL_READS = 500;
    private boolean verbose;

    @Override
    String name() {
        return "fi_recv_cancel";
    }

    @Override
    String optstring() {
        return "Vh" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "Recv Cancel Functional test";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        if (letter == 'V') {
            verbose = true;
            return true;
        }
        return false;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        hints.caps(Fi.FI_TAGGED);
        hints.mode(Fi.FI_CONTEXT);
    }

    @Override
    void run(FtSession s) {
        if (s.hints.epAttr().type() == EpType.MSG) {
            s.initFabricCm();
        } else {
            s.initFabric();
        }
        if (s.opts.client()) {
            client(s);
        } else {
            host(s);
        }
    }

    private void client(FtSession s) {
        s.rx(1); // the server's sync
        int size = (int) s.opts.transferSize;
        s.postTxBuf(txView(s, size), FtSession.NO_CQ_DATA, s.txCtx, STANDARD_TAG);
        verbose(s, "STANDARD msg posted to server");
        s.postTxBuf(txView(s, size), FtSession.NO_CQ_DATA, s.txCtx, CANCEL_TAG);
        verbose(s, "CANCEL msg posted to server");
        s.getTxComp(s.txSeq);
    }

    private void host(FtSession s) {
        Object cancelCtx = new Object();
        Object standardCtx = new Object();
        int size = (int) s.opts.transferSize;
        s.postRxBuf(rxView(s, size), cancelCtx, CANCEL_TAG);
        s.postRxBuf(rxView(s, size), standardCtx, STANDARD_TAG);
        int rc = s.ep.cancel(cancelCtx);
        if (rc != 0) {
            throw FtCalls.printErr("fi_cancel", rc, null);
        }
        CqEntry[] comp = {new CqEntry()};
        int retries = 0;
        do {
            rc = s.rxCq.read(comp, 1);
            if (rc == -Errno.EAVAIL) {
                break;
            }
            retries++;
            sleepMillis(1);
        } while (rc == -Errno.EAGAIN && retries < CANCEL_READS);
        if (retries >= CANCEL_READS) {
            throw FtCalls.printErr("ERROR: no error CQ entry in cq_read deteceted", -Errno.FI_EOTHER, null);
        }
        verbose(s, "GOOD: detected error cq entry");
        CqErrEntry error = new CqErrEntry();
        if (s.rxCq.readErr(error, 0) != 1) {
            throw FtCalls.printErr("ERROR: No cancel CQ error entry was populated", -Errno.FI_EOTHER, null);
        }
        if (error.err() != Errno.ECANCELED) {
            throw FtCalls.printErr("ERROR: error code is incorrect", -Errno.FI_EOTHER, "err " + error.err());
        }
        if ((error.flags() & Fi.FI_RECV) == 0) {
            throw FtCalls.printErr("ERROR: cancelled completion flags are incorrect", -Errno.FI_EOTHER,
                    Fi.opFlagsToString(error.flags()));
        }
        verbose(s, "GOOD: error entry has expected values");
        if (s.rxCq.readErr(error, 0) != -Errno.EAGAIN) {
            throw FtCalls.printErr("ERROR: Another CQ error entry was populated", -Errno.FI_EOTHER, null);
        }
        verbose(s, "GOOD: no extra error entries detected");
        s.tx(1, s.txCtx); // the sync that starts the client's sends
        expectCompletion(s, standardCtx);
        verbose(s, "GOOD: Completed uncancelled recv");
        s.postRxBuf(rxView(s, size), cancelCtx, CANCEL_TAG);
        expectCompletion(s, cancelCtx);
        verbose(s, "GOOD: Completed reposted cancelled recv");
        s.out.println("GOOD: Completed Recv Cancel Test");
    }

    /** The next receive completion, which must be the receive of {@code context}. */
    private static void expectCompletion(FtSession s, Object context) {
        CqEntry entry = new CqEntry();
        int rc = FtCompletions.readOne(s, s.rxCq, entry, new CqErrEntry(), false);
        if (rc < 0) {
            throw FtCalls.printErr("fi_cq_read", rc, null);
        }
        if (entry.context() != context) {
            throw FtCalls.printErr("ERROR: op_context does not match", -Errno.FI_EOTHER, null);
        }
    }

    /** ft_post_rx's length: at least FT_MAX_CTRL_MSG, in the one receive buffer. */
    private static ByteBuffer rxView(FtSession s, int size) {
        return s.rxBuf.duplicate().clear().limit(Math.min(Math.max(size, FtSession.MAX_CTRL_MSG), s.rxBuf.capacity()));
    }

    private static ByteBuffer txView(FtSession s, int size) {
        return s.txBuf.duplicate().clear().limit(size);
    }

    private void verbose(FtSession s, String line) {
        if (verbose) {
            s.out.println(line);
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FtError(-Errno.EINTR, "interrupted");
        }
    }
}
