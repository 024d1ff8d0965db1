package io.jofi.tools.ft;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.TaggedMsg;

/**
 * The completion steps the programs that read their CQs themselves share, each bounded by
 * {@code --timeout}: one completion read as {@code fi_cq_sread(cq, &comp, 1, NULL, -1)} or a
 * {@code fi_cq_read} loop answers it (an error entry read and answered as its negative errno),
 * {@code ft_cq_read_verify} (the completion's context checked), and {@code ft_finalize}.
 */
final class FtCompletions {
    private FtCompletions() {
    }

    /**
     * One completion into {@code entry}: 1, or the negative errno of the error entry read in its
     * place ({@code err} holds it then), or of the read that failed.
     */
    static int readOne(FtSession s, CompletionQueue cq, CqEntry entry, CqErrEntry err, boolean blocking) {
        CqEntry[] one = {entry};
        long deadline = deadline(s);
        while (true) {
            int rc = blocking ? cq.sread(one, 1, 0, 100) : cq.read(one, 1);
            if (rc > 0) {
                return rc;
            }
            if (rc == -Errno.EAVAIL) {
                int r = cq.readErr(err, 0);
                return r < 0 ? r : -err.err();
            }
            if (rc != -Errno.EAGAIN && rc != -Errno.ETIMEDOUT) {
                return rc;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new FtError(-Errno.ENODATA, s.opts.timeoutSeconds + "s timeout expired");
            }
            if (!blocking) {
                Thread.onSpinWait();
            }
        }
    }

    /** ft_cq_read_verify: fi_cq_read until a completion, whose context must be {@code context}. */
    static void readVerify(FtSession s, CompletionQueue cq, Object context, long tag) {
        CqEntry entry = new CqEntry();
        int rc = readOne(s, cq, entry, new CqErrEntry(), false);
        if (rc < 0) {
            throw FtCalls.printErr("POLL: Error\n", rc, null);
        }
        if (entry.context() != context) {
            throw new FtError(-Errno.FI_EOTHER, "ERROR: op ctx=" + context + " cq_ctx=" + entry.context());
        }
        if (cq == s.rxCq && (s.hints.caps() & Fi.FI_TAGGED) != 0 && entry.tag() != tag) {
            throw new FtError(-Errno.FI_EOTHER, "Tag mismatch!. Expected: " + tag + ", actual: " + entry.tag());
        }
    }

    /**
     * ft_finalize: 4 bytes from the transmit buffer with {@code FI_TRANSMIT_COMPLETE} (tagged:
     * the transmit sequence number as tag), its completion, then the peer's, in the receive
     * posted last.
     */
    static void finalizeEp(FtSession s) {
        TaggedMsg msg = new TaggedMsg(1);
        msg.buffer(s.txBuf.duplicate().clear().limit(4), null).addr(s.remoteFiAddr).context(new Object());
        msg.tag(s.txSeq);
        boolean tagged = (s.hints.caps() & Fi.FI_TAGGED) != 0;
        while (true) {
            int rc = tagged ? s.ep.tsendMsg(msg, Fi.FI_TRANSMIT_COMPLETE) : s.ep.sendMsg(msg, Fi.FI_TRANSMIT_COMPLETE);
            if (rc == 0) {
                break;
            }
            if (rc != -Errno.EAGAIN) {
                throw FtCalls.printErr(tagged ? "tsendmsg" : "sendmsg", rc, null);
            }
            // FT_POST's ft_progress: one transmit completion taken and counted, so the queue drains
            CqEntry[] one = {new CqEntry()};
            int r = s.txCq.read(one, 1);
            if (r > 0) {
                s.txCqCntr++;
            } else if (r == -Errno.EAVAIL) {
                throw s.cqReadErr(s.txCq);
            }
        }
        s.txSeq++;
        s.getTxComp(s.txSeq);
        s.getRxComp(s.rxSeq);
    }

    private static long deadline(FtSession s) {
        return s.opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + s.opts.timeoutSeconds * 1_000_000_000L;
    }
}
