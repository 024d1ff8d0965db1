package io.jofi.tools.ft;

import static io.jofi.tools.ft.FtCalls.printErr;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * fabtests' {@code fi_av_xfer}: two tests on fresh fabrics, names exchanged and syncs done over the
 * out-of-band socket (which both keep): "AV address removal" (one tagged message client to server,
 * the peer's address removed on both sides, a sync, the names exchanged and inserted again, one
 * message server to client) and "AV re-insertion address" (the same but both messages go client to
 * server), each printing {@code PASS} or {@code FAIL}.
 */
final class AvXferProgram extends FtProgram {
    @Override
    String name() {
        return "fi_av_xfer";
    }

    @Override
    String optstring() {
        return "h" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "AV communication unit test.";
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        opts.oobSync = true;
        opts.oobAddressExchange = true;
        if (hints.epAttr().type() == null || hints.epAttr().type() == EpType.UNSPEC) {
            hints.epAttr().type(EpType.RDM);
        }
        hints.caps(hints.epAttr().type() == EpType.RDM ? Fi.FI_TAGGED : Fi.FI_MSG);
        hints.mode(Fi.FI_CONTEXT);
    }

    @Override
    void run(FtSession s) {
        FtSession next = test(s, "AV address removal: ", true);
        if (s.opts.client()) {
            sleep();
        }
        try (FtSession second = next) {
            test(second, "AV re-insertion address: ", false).close();
        }
        if (lastFailure != null) {
            throw lastFailure; // the exit status is the last test's, as fabtests'
        }
    }

    /** The failure of the test run last when it was -FI_ENODATA (the others end the program). */
    private FtError lastFailure;

    /** One test; returns the session for the next one (the out-of-band socket handed over). */
    private FtSession test(FtSession s, String title, boolean answerBack) {
        s.out.print(title);
        int size = (int) s.opts.transferSize;
        FtError failed = null;
        try {
            s.initFabric();
            boolean client = s.opts.client();
            if (client) {
                s.tx(size, s.txCtx);
            } else {
                s.rx(size);
            }
            int rc = s.av.remove(new long[] {s.remoteFiAddr}, 0);
            if (rc != 0) {
                throw printErr("fi_av_remove", rc, null);
            }
            s.sync();
            FtAddressExchange.initAv(s);
            // removal: the answer goes the other way; re-insertion: client to server again
            if (client == answerBack) {
                s.rx(size);
            } else {
                s.tx(size, s.txCtx);
            }
            try {
                s.sync();
            } catch (FtError ignored) {
                // fabtests: (void) ft_sync() -- the test's result is already decided
            }
        } catch (FtError e) {
            failed = e;
        }
        s.out.println(failed != null ? "FAIL" : "PASS");
        FtSession next = s.another();
        s.close();
        if (failed != null && failed.ret() != -Errno.ENODATA) {
            next.close();
            throw failed;
        }
        lastFailure = failed;
        return next;
    }

    private static void sleep() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FtError(-Errno.EINTR, "interrupted between the tests");
        }
    }
}
