package io.jofi.tools.ft;

import static io.jofi.tools.ft.FtCalls.call;
import static io.jofi.tools.ft.FtCalls.printErr;

import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.tools.CommandFailure;
import io.jofi.tools.DataPattern;
import io.jofi.tools.PerfReport;
import java.nio.ByteBuffer;

/**
 * fabtests' {@code fi_multi_recv}: the receive op flags ask {@code FI_MULTI_RECV}, so the server's
 * two receives (the halves of a buffer 128 messages long, at most 4 MiB; {@code -M}: posted by
 * {@code recvMsg} with the flag) each take many messages; every completion is checked (its length,
 * a buffer inside the posted one and not the last one again, {@code -v}: the pattern), and a half
 * whose completion says {@code FI_MULTI_RECV} (released) is posted again after exactly as many
 * messages as it holds. The client sends {@code -I} messages of {@code -S} bytes after an
 * out-of-band sync; names and syncs go over the out-of-band socket.
 */
final class MultiRecvProgram extends FtProgram {
    static final int MAX_XFER_SIZE = 1 << 20;

    private boolean useRecvMsg;
    private boolean verify;
    private final Object[] halves = {new Object(), new Object()};

    @Override
    String name() {
        return "fi_multi_recv";
    }

    @Override
    String optstring() {
        return "Mhv" + CS_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "Streaming RDM client-server using multi recv buffer.";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        switch (letter) {
            case 'M' -> useRecvMsg = true;
            case 'v' -> verify = true;
            default -> {
                return false;
            }
        }
        return true;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        opts.skipMsgAlloc = true;
        opts.oobSync = true;
        opts.oobAddressExchange = true;
        if (opts.transferSize > MAX_XFER_SIZE) {
            throw new FtError(Errno.EIO, "Use smaller transfer size (max " + MAX_XFER_SIZE + ")");
        }
        hints.caps(Fi.FI_MSG | Fi.FI_MULTI_RECV);
        hints.mode(Fi.FI_CONTEXT);
        hints.rxAttr().opFlags(Fi.FI_MULTI_RECV);
    }

    @Override
    void run(FtSession s) {
        s.cqFormat = CqFormat.DATA;
        if (s.hints.epAttr().type() == EpType.MSG) {
            s.initFabricCm();
        } else {
            s.initFabric();
        }
        int size = (int) s.opts.transferSize;
        if (size > s.info.epAttr().maxMsgSize()) {
            throw new FtError(-1, "transfer size is larger than the maximum size of the data transfer supported by the provider");
        }
        s.txBuf = ByteBuffer.allocateDirect(size);
        int rxSize = Math.min(size * 128, MAX_XFER_SIZE * 4);
        int perBuffer = rxSize / 2 / size;
        ByteBuffer rx = ByteBuffer.allocateDirect(rxSize);
        long minimum = size;
        call("fi_setopt", () -> s.ep.setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, minimum));
        for (int i = 0; i < 2; i++) {
            repost(s, rx, i);
        }
        s.sync();
        s.opts.verifyData = verify; // ft_tx fills the pattern while the test is timed
        long start = System.nanoTime();
        if (s.opts.client()) {
            for (int i = 0; i < s.opts.iterations; i++) {
                s.tx(size, s.txCtx);
            }
        } else {
            waitForReceives(s, rx, size, perBuffer);
        }
        long elapsed = System.nanoTime() - start;
        s.opts.verifyData = false;
        new PerfReport(s.out, s.opts.machineReadable, false, "", name()).row(size, s.opts.iterations, 1, elapsed);
        s.rxSeq++;
        try {
            s.sync();
        } catch (FtError ignored) {
            // fabtests: ft_sync()'s result is not looked at, the test's is already decided
        }
    }

    /** repost_recv: half {@code i} of the buffer as one multi-receive. */
    private void repost(FtSession s, ByteBuffer rx, int i) {
        int half = rx.capacity() / 2;
        ByteBuffer view = rx.duplicate().position(half * i).limit(half * i + half).slice();
        int rc = useRecvMsg
                ? s.ep.recvMsg(new Msg().buffer(view, null).addr(Fi.FI_ADDR_UNSPEC).context(halves[i]), Fi.FI_MULTI_RECV)
                : s.ep.recv(view, null, Fi.FI_ADDR_UNSPEC, halves[i]);
        if (rc != 0) {
            throw printErr(useRecvMsg ? "fi_recvmsg" : "fi_recv", rc, null);
        }
    }

    /** wait_for_recv_completion. */
    private void waitForReceives(FtSession s, ByteBuffer rx, int size, int perBuffer) {
        CqEntry[] one = {new CqEntry()};
        int left = s.opts.iterations;
        int counted = 0;
        ByteBuffer lastBuf = null;
        int lastOffset = -1;
        long deadline = s.opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + s.opts.timeoutSeconds * 1_000_000_000L;
        while (left > 0) {
            int rc = s.rxCq.read(one, 1);
            if (rc == -Errno.EAGAIN) {
                if (System.nanoTime() - deadline > 0) {
                    throw new FtError(-Errno.ENODATA, s.opts.timeoutSeconds + "s timeout expired");
                }
                Thread.onSpinWait();
                continue;
            }
            if (rc == -Errno.EAVAIL) {
                throw s.cqReadErr(s.rxCq);
            }
            if (rc < 0) {
                throw printErr("fi_cq_read", rc, null);
            }
            CqEntry c = one[0];
            if ((c.flags() & Fi.FI_RECV) != 0) {
                if (c.len() != size) {
                    throw new FtError(-Errno.EIO, "completion length " + c.len() + ", expected " + size);
                }
                int half = c.context() == halves[1] ? 1 : 0;
                if (c.buf() == null || c.bufOffset() < 0 || c.bufOffset() + size > rx.capacity() / 2
                        || (c.buf() == lastBuf && c.bufOffset() == lastOffset)) {
                    throw new FtError(-Errno.EIO, "returned completion buffer (offset " + c.bufOffset() + " of half "
                            + half + ") out of range");
                }
                if (verify) {
                    try {
                        DataPattern.check(c.buf().duplicate().clear().position(c.bufOffset()).slice(), size);
                    } catch (CommandFailure e) {
                        throw new FtError(-Errno.EIO, e.getMessage());
                    }
                }
                counted++;
                left--;
                lastBuf = c.buf();
                lastOffset = c.bufOffset();
            }
            if ((c.flags() & Fi.FI_MULTI_RECV) != 0) {
                if (counted != perBuffer) {
                    throw new FtError(-Errno.EIO, "Received " + counted + " completions per buffer, expected " + perBuffer);
                }
                counted = 0;
                repost(s, rx, c.context() == halves[1] ? 1 : 0);
            }
        }
    }
}
