package io.jofi.tools.ft;

import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * fabtests' {@code fi_poll} ({@code -t queue|counter}): an RDM endpoint whose CQs (and with
 * {@code -t counter} its counters, the CQs then selective) are members of a poll set; after the
 * in-band address exchange each side sends one message of the transfer size (1024 bytes) and
 * polls the set until its send and the peer's message are complete, printing each poll's events:
 * a CQ's context names the CQ whose completion it then reads, a counter's context is a counter
 * event whose value must not exceed what was posted.
 */
final class PollProgram extends FtProgram {
    private static final int MAX_POLL_CNT = 10;

    @Override
    String name() {
        return "fi_poll";
    }

    @Override
    String optstring() {
        return "h" + CS_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "A client-server example that uses poll.\n";
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        hints.epAttr().type(EpType.RDM);
        hints.caps(Fi.FI_MSG);
        hints.mode(Fi.FI_CONTEXT);
    }

    @Override
    void run(FtSession s) {
        s.pollSetWanted = true;
        s.initFabric();
        s.out.println("Posting a send...");
        s.postTx(s.txSize, FtSession.NO_CQ_DATA, s.txCtx);
        boolean queue = !s.opts.counters;
        long txCntrVal = 0;
        long rxCntrVal = 0;
        Object[] context = new Object[MAX_POLL_CNT];
        CqEntry[] comp = {new CqEntry()};
        long deadline = s.opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + s.opts.timeoutSeconds * 1_000_000_000L;
        while ((queue && s.txCqCntr < s.txSeq) || (!queue && txCntrVal < s.txSeq)
                || (queue && s.rxCqCntr < s.rxSeq) || (!queue && rxCntrVal < s.rxSeq)) {
            int count;
            while ((count = s.pollSet.poll(context)) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new FtError(-Errno.ENODATA, s.opts.timeoutSeconds + "s timeout expired");
                }
                Thread.onSpinWait();
            }
            if (count < 0) {
                throw FtCalls.printErr("fi_poll", count, null);
            }
            s.out.println("Retrieved " + count + " event(s)");
            for (int i = 0; i < count; i++) {
                io.jofi.CompletionQueue cq;
                if (context[i] == FtSession.TX_CQ) {
                    s.out.println("Send completion received");
                    cq = s.txCq;
                    s.txCqCntr++;
                } else if (context[i] == FtSession.RX_CQ) {
                    s.out.println("Recv completion received");
                    cq = s.rxCq;
                    s.rxCqCntr++;
                } else if (context[i] == FtSession.TX_CNTR) {
                    s.out.println("Send counter poll-event");
                    txCntrVal = s.txCntr.read();
                    if (txCntrVal > s.txSeq) {
                        throw new FtError(-1, "Invalid tx counter event: expected: " + s.txSeq + ", found: " + txCntrVal);
                    }
                    continue;
                } else if (context[i] == FtSession.RX_CNTR) {
                    s.out.println("Recv counter poll-event");
                    rxCntrVal = s.rxCntr.read();
                    if (rxCntrVal > s.rxSeq) {
                        throw new FtError(-1, "Invalid rx counter event: expected: " + s.rxSeq + ", found: " + rxCntrVal);
                    }
                    continue;
                } else {
                    throw new FtError(-1, "Unknown completion received");
                }
                int rc = cq.read(comp, 1);
                if (rc == -Errno.EAVAIL) {
                    throw s.cqReadErr(cq);
                }
                if (rc < 0) {
                    throw FtCalls.printErr("fi_cq_read", rc, null);
                }
            }
        }
    }
}
