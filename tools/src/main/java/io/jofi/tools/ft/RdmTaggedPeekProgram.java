package io.jofi.tools.ft;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.ResourceMgmt;
import io.jofi.TaggedMsg;

/**
 * fabtests' {@code fi_rdm_tagged_peek}: the server sends five tagged messages ({@code 0x900d}
 * to {@code 0x900d + 4}); the client, all of them unexpected, searches them with
 * {@code fi_trecvmsg}: {@code FI_PEEK} for a tag nobody sent ({@code FI_ENOMSG}, also with
 * {@code FI_CLAIM}), peek then receive the first, peek-claim then claim the second, peek-discard
 * the third (a second peek finds it gone), peek-claim then claim-discard the fourth, receive the
 * fifth; then a 1-byte tagged sync ({@code 0xabc}) to the server and {@code ft_finalize}. Every
 * completion is read with {@code fi_cq_sread}, one at a time, under manual progress.
 */
final class RdmTaggedPeekProgram extends FtProgram {
    private static final long FIRST_TAG = 0x900d;
    private static final long BAD_TAG = 0xbad;
    private static final long SYNC_TAG = 0xabc;
    private static final int MESSAGES = 5;
    /** fabtests' one fi_context for every trecvmsg: a claim names the context of its peek. */
    private final Object context = new Object();
    private final CqEntry entry = new CqEntry();
    private final CqErrEntry error = new CqErrEntry();

    @Override
    String name() {
        return "fi_rdm_tagged_peek";
    }

    @Override
    String optstring() {
        return "h" + CS_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "An RDM client-server example that uses tagged search.\n";
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        opts.compMethod = FtOptions.CompMethod.SREAD;
        opts.windowSize = MESSAGES;
        // Manual progress, which libfabric 1.17's tcp, rxm and shm give the C program unasked. The
        // choreography has a race of its own (docs/FABTESTS.md item 18): the client's ft_finalize
        // message may arrive before the server posts the sync's receive; matched first, it completes
        // the receive posted at start-up, and the server's sync read takes its completion. A progress
        // thread matches whenever it arrives; manual progress only inside the server's calls, which
        // closes the window once the server has read its send completions.
        hints.domainAttr().resourceMgmt(ResourceMgmt.ENABLED).dataProgress(Progress.MANUAL);
        hints.txAttr().msgOrder(Fi.FI_ORDER_SAS);
        hints.epAttr().type(EpType.RDM);
        hints.caps(Fi.FI_TAGGED);
        hints.mode(Fi.FI_CONTEXT);
    }

    @Override
    void run(FtSession s) {
        s.initFabric();
        if (s.opts.client()) {
            search(s);
        } else {
            send(s);
        }
        try {
            FtCompletions.finalizeEp(s);
        } catch (FtError e) {
            s.printIgnored(e); // fabtests' run() returns 0 whatever ft_finalize() returned: its error is printed only
        }
    }

    private void search(FtSession s) {
        step(s, "Searching for a bad msg", BAD_TAG, Fi.FI_PEEK, false, -Errno.ENOMSG, "FI_PEEK");
        step(s, "Searching for a bad msg with claim", BAD_TAG, Fi.FI_PEEK | Fi.FI_CLAIM, false, -Errno.ENOMSG, "FI_PEEK");
        step(s, "Searching for first msg", FIRST_TAG, Fi.FI_PEEK, true, 1, "FI_PEEK");
        step(s, "Receiving first msg", FIRST_TAG, 0, false, 1, "Receive after peek");
        step(s, "Searching for second msg to claim", FIRST_TAG + 1, Fi.FI_PEEK | Fi.FI_CLAIM, true, 1, "FI_PEEK | FI_CLAIM");
        step(s, "Receiving second msg", FIRST_TAG + 1, Fi.FI_CLAIM, false, 1, "FI_CLAIM");
        step(s, "Searching for third msg to peek and discard", FIRST_TAG + 2, Fi.FI_PEEK | Fi.FI_DISCARD, true, 1,
                "FI_PEEK | FI_DISCARD");
        step(s, "Checking to see if third msg was discarded", FIRST_TAG + 2, Fi.FI_PEEK, false, -Errno.ENOMSG, "FI_PEEK");
        step(s, "Searching for fourth msg to claim and discard", FIRST_TAG + 3, Fi.FI_PEEK | Fi.FI_CLAIM, true, 1,
                "FI_DISCARD");
        step(s, "Discarding fourth msg", FIRST_TAG + 3, Fi.FI_CLAIM | Fi.FI_DISCARD, false, 1, "FI_CLAIM");
        step(s, "Retrieving fifth message", FIRST_TAG + 4, 0, false, 1, "Receive after peek");
        // the sync outside the sequence numbers, before ft_finalize
        int rc = s.ep.tsend(s.txBuf.duplicate().clear().limit(1), null, s.remoteFiAddr, SYNC_TAG, new Object());
        if (rc != 0) {
            throw new FtError(rc, "fi_tsend(): ret=" + rc + " (" + Errno.strerror(-rc) + ")");
        }
        waitForSendComp(s, 1);
    }

    private void send(FtSession s) {
        s.out.println("Sending five tagged messages");
        for (int i = 0; i < MESSAGES; i++) {
            int rc = s.ep.tsend(s.txBuf.duplicate().clear().limit(s.txSize), null, s.remoteFiAddr, FIRST_TAG + i,
                    new Object());
            if (rc != 0) {
                throw new FtError(rc, "fi_tsend(): ret=" + rc + " (" + Errno.strerror(-rc) + ")");
            }
        }
        s.out.println("Waiting for messages to complete");
        waitForSendComp(s, MESSAGES);
        int rc = trecv(s, SYNC_TAG, 0, false);
        if (rc != 1) {
            throw FtCalls.printErr("Receive sync", rc, null);
        }
    }

    /** One search step: its line, the trecvmsg, the answer fabtests expects (1 or -FI_ENOMSG). */
    private void step(FtSession s, String line, long tag, long flags, boolean ignoreNoMsg, int expected, String what) {
        s.out.println(line);
        int rc = trecv(s, tag, flags, ignoreNoMsg);
        if (rc != expected) {
            throw FtCalls.printErr(what, rc, null);
        }
    }

    /**
     * trecv_op: fi_trecvmsg with {@code flags} (no buffer with FI_PEEK or FI_DISCARD), then one
     * completion by fi_cq_sread; an error entry answers its negative errno. With
     * {@code ignoreNoMsg} an FI_ENOMSG answer is asked again, until the message is there.
     */
    private int trecv(FtSession s, long tag, long flags, boolean ignoreNoMsg) {
        int rc;
        do {
            TaggedMsg msg = new TaggedMsg(1);
            if ((flags & (Fi.FI_PEEK | Fi.FI_DISCARD)) == 0) {
                msg.buffer(s.rxBuf.duplicate().clear().limit(s.rxSize), null);
            }
            msg.addr(s.remoteFiAddr).context(context);
            msg.tag(tag);
            rc = s.ep.trecvMsg(msg, flags);
            if (rc != 0) {
                throw FtCalls.printErr("fi_trecvmsg", rc, null);
            }
            rc = FtCompletions.readOne(s, s.rxCq, entry, error, true);
        } while (ignoreNoMsg && rc == -Errno.ENOMSG);
        return rc;
    }

    /** wait_for_send_comp: {@code count} transmit completions by fi_cq_sread. */
    private void waitForSendComp(FtSession s, int count) {
        for (int i = 0; i < count; i++) {
            int rc = FtCompletions.readOne(s, s.txCq, entry, error, true);
            if (rc != 1) {
                throw FtCalls.printErr("fi_cq_sread", rc, null);
            }
        }
    }
}
