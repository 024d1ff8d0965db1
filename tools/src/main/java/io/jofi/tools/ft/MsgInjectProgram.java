package io.jofi.tools.ft;

import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ResourceMgmt;
import io.jofi.TaggedMsg;
import io.jofi.tools.DataPattern;
import java.nio.ByteBuffer;

/**
 * fabtests' {@code fi_msg_inject} (RDM, tagged, {@code -I} iterations, default 1): the client
 * sends tagged messages ({@code 0xabcd}) with {@code -A inject} ({@code FI_INJECT}) or
 * {@code -A inj_complete} ({@code FI_INJECT_COMPLETE}), as transmit op flags in the hints, or
 * with {@code -N} in each {@code fi_tsendmsg}'s flags; the server receives each and checks it
 * ({@code -v}). The buffer-reuse check: with {@code FI_INJECT} the client overwrites its transmit
 * buffer ({@code 0xb}) before it reads the send's completion, with {@code FI_INJECT_COMPLETE}
 * right after it. With {@code FI_INJECT} the size is the hints' {@code inject_size}, which
 * fabtests leaves 0: zero-byte messages, as the C program sends them.
 */
final class MsgInjectProgram extends FtProgram {
    private static final long INJECT_TAG = 0xabcd;
    private static final byte REUSED = 0xb;
    private boolean useSendMsg;
    /**
     * -v: the pattern sent and checked. Not {@code opts.verifyData}: fabtests' ft_tx fills its
     * buffer only with FT_OPT_ACTIVE too, which this program does not set, so the address
     * exchange must send the name as it is.
     */
    private boolean verify;
    private long flag;

    @Override
    String name() {
        return "fi_msg_inject";
    }

    @Override
    String optstring() {
        return "NvhA:" + CS_OPTS + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "FI_Inject_Completion Functional Test";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        switch (letter) {
            case 'N' -> useSendMsg = true;
            case 'v' -> verify = true;
            case 'A' -> {
                if (arg.regionMatches(true, 0, "inj_complete", 0, 12)) {
                    flag = Fi.FI_INJECT_COMPLETE;
                } else if (arg.regionMatches(true, 0, "inject", 0, 6)) {
                    flag = Fi.FI_INJECT;
                } else {
                    throw new FtError(-1, "Unsupported flag");
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        if (!opts.iterationsGiven) {
            opts.iterations = 1;
        }
        hints.epAttr().type(EpType.RDM);
        hints.mode(Fi.FI_CONTEXT);
        hints.caps(Fi.FI_TAGGED);
        hints.domainAttr().resourceMgmt(ResourceMgmt.ENABLED);
        if (!useSendMsg) {
            hints.txAttr().opFlags(hints.txAttr().opFlags() | flag);
        }
    }

    @Override
    void run(FtSession s) {
        s.initFabric();
        long size = s.opts.transferSize;
        if ((flag & Fi.FI_INJECT) != 0 && size > s.hints.txAttr().injectSize()) {
            size = s.hints.txAttr().injectSize();
        }
        String flags = Fi.opFlagsToString(flag);
        s.out.println("Start testing " + flags);
        for (int i = 0; i < s.opts.iterations; i++) {
            if (s.opts.client()) {
                send(s, (int) size);
            } else {
                receive(s, (int) size);
            }
        }
        s.out.println("GOOD: Completed " + flags + " Testing");
    }

    private void send(FtSession s, int size) {
        if (verify) {
            DataPattern.fill(s.txBuf, size);
        }
        if (useSendMsg) {
            TaggedMsg msg = new TaggedMsg(1);
            msg.buffer(s.txBuf.duplicate().clear().limit(size), null).addr(s.remoteFiAddr).context(s.txCtx);
            msg.tag(INJECT_TAG);
            CqEntry[] one = {new CqEntry()};
            while (true) {
                int rc = s.ep.tsendMsg(msg, flag);
                if (rc == 0) {
                    break;
                }
                if (rc != -Errno.EAGAIN) {
                    throw FtCalls.printErr("fi_tsendmsg", rc, null);
                }
                int r = s.txCq.read(one, 1); // ft_progress
                if (r > 0) {
                    s.txCqCntr++;
                } else if (r == -Errno.EAVAIL) {
                    throw s.cqReadErr(s.txCq);
                }
            }
        } else {
            s.postTxBuf(s.txBuf.duplicate().clear().limit(size), FtSession.NO_CQ_DATA, s.txCtx, INJECT_TAG);
        }
        if ((flag & Fi.FI_INJECT) != 0) {
            overwrite(s.txBuf, size);
            FtCompletions.readVerify(s, s.txCq, s.txCtx, INJECT_TAG);
            s.txCqCntr++;
        } else if ((flag & Fi.FI_INJECT_COMPLETE) != 0) {
            FtCompletions.readVerify(s, s.txCq, s.txCtx, INJECT_TAG);
            s.txCqCntr++;
            overwrite(s.txBuf, size);
        }
    }

    private void receive(FtSession s, int size) {
        Object injCtx = new Object();
        int length = Math.min(Math.max(size, FtSession.MAX_CTRL_MSG), s.rxBuf.capacity());
        s.postRxBuf(s.rxBuf.duplicate().clear().limit(length), injCtx, INJECT_TAG);
        FtCompletions.readVerify(s, s.rxCq, injCtx, INJECT_TAG);
        s.rxCqCntr++;
        if (verify) {
            s.checkData(size);
        }
    }

    /** The buffer-reuse check: the first {@code size} bytes overwritten, as fabtests' memset(0xb). */
    private static void overwrite(ByteBuffer buf, int size) {
        for (int i = 0; i < size; i++) {
            buf.put(i, REUSED);
        }
    }
}
