package io.jofi.tools.ft;

import static io.jofi.tools.ft.FtCalls.call;
import static io.jofi.tools.ft.FtCalls.printErr;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqFormat;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObj;
import io.jofi.tools.CommandFailure;
import io.jofi.tools.DataPattern;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * fabtests' {@code fi_multi_ep}: besides the first endpoint (connected, or RDM with its address
 * exchanged over the out-of-band socket, which this program always uses), {@code -c} more endpoints
 * (default 3), each with its own CQs: MSG ones connected one by one, RDM ones opened on an info of
 * their own and their names exchanged over the socket; then a receive and a send of 256 bytes
 * ({@code -v}: fabtests' pattern, checked) on each, both completions awaited, and a last 4-byte
 * message each way on the first endpoint ({@code ft_finalize_ep}).
 */
final class MultiEpProgram extends FtProgram {
    private int count = 3;
    private boolean verify;

    @Override
    String name() {
        return "fi_multi_ep";
    }

    @Override
    String optstring() {
        return "c:vh" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "Multi endpoint test";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        switch (letter) {
            case 'c' -> count = FtOptions.atoi(arg);
            case 'v' -> verify = true;
            default -> {
                return false;
            }
        }
        return true;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        opts.transferSize = 256;
        opts.oobAddressExchange = true;
        hints.caps(Fi.FI_MSG);
        hints.mode(Fi.FI_CONTEXT);
    }

    @Override
    void run(FtSession s) {
        boolean msg = s.hints.epAttr().type() == EpType.MSG;
        if (msg) {
            s.initFabricCm();
        } else {
            s.initFabric();
        }
        int size = (int) s.opts.transferSize;
        ByteBuffer data = ByteBuffer.allocateDirect(2 * count * size);
        Endpoint[] eps = new Endpoint[count];
        CompletionQueue[] txCqs = new CompletionQueue[count];
        CompletionQueue[] rxCqs = new CompletionQueue[count];
        long[] remote = new long[count];
        java.util.Arrays.fill(remote, Fi.FI_ADDR_UNSPEC);
        s.out.println("Creating " + count + " EPs");
        try {
            createAndTransfer(s, msg, data, size, eps, txCqs, rxCqs, remote);
        } finally {
            freeEpRes(s, eps, txCqs, rxCqs);
        }
    }

    /**
     * free_ep_res: each endpoint before its CQs. The session closes the rest in the reverse order of
     * opening, which would reach the CQs first: they would refuse (EBUSY, still bound), and with them
     * the domain and the fabric, whose progress and connection threads would then run on.
     */
    private static void freeEpRes(FtSession s, Endpoint[] eps, CompletionQueue[] txCqs, CompletionQueue[] rxCqs) {
        for (int i = 0; i < eps.length; i++) {
            s.closeAndReport(eps[i]);
            s.closeAndReport(txCqs[i]);
            s.closeAndReport(rxCqs[i]);
        }
    }

    private void createAndTransfer(FtSession s, boolean msg, ByteBuffer data, int size, Endpoint[] eps,
                                   CompletionQueue[] txCqs, CompletionQueue[] rxCqs, long[] remote) {
        for (int i = 0; i < count; i++) {
            Info info = msg ? (s.opts.client() ? s.info : FtConnections.retrieveConnReq(s)) : avInfo(s);
            eps[i] = call("fi_endpoint", () -> s.track(s.domain.endpoint(info, null)));
            txCqs[i] = openCq(s, info.txAttr().size());
            rxCqs[i] = openCq(s, info.rxAttr().size());
            if (msg) {
                enable(s, eps[i], txCqs[i], rxCqs[i]);
                Endpoint ep = eps[i];
                if (s.opts.client()) {
                    call("fi_connect", () -> ep.connect(info.destAddr(), null));
                } else {
                    call("fi_accept", () -> ep.accept(null));
                }
                FtConnections.eqSread(s, "connect");
                if (s.lastEvent().event() != Fi.FI_CONNECTED || s.lastEvent().fid() != ep) {
                    throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + s.lastEvent().event());
                }
            }
        }
        if (!msg) {
            for (int i = 0; i < count; i++) {
                enable(s, eps[i], txCqs[i], rxCqs[i]);
                remote[i] = exchangeOob(s, eps[i]);
            }
        }
        transfers(s, data, size, eps, txCqs, rxCqs, remote);
    }

    /** setup_av_ep: the first endpoint's info without its source address, looked up again for a new one. */
    private static Info avInfo(FtSession s) {
        Info hints = s.info.copy();
        hints.srcAddr(null);
        try {
            List<Info> infos = s.fabrics().getInfo(s.opts.srcAddr, null, 0, hints);
            if (infos.isEmpty()) {
                throw printErr("fi_getinfo", -Errno.ENODATA, null);
            }
            return infos.get(0);
        } catch (FabricException e) {
            throw printErr("fi_getinfo", -e.errno(), e.getMessage());
        }
    }

    private static CompletionQueue openCq(FtSession s, long size) {
        WaitObj wait = s.opts.compMethod == FtOptions.CompMethod.SPIN ? WaitObj.NONE : WaitObj.UNSPEC;
        return call("fi_cq_open", () -> s.track(s.domain.openCq(new CqAttr().format(CqFormat.MSG).waitObj(wait)
                .size(size), null)));
    }

    /** ft_enable_ep: the EQ (MSG) or the AV (RDM), the CQs, enable. */
    private static void enable(FtSession s, Endpoint ep, CompletionQueue txCq, CompletionQueue rxCq) {
        if (s.info.epAttr().type() == EpType.MSG) {
            call("fi_ep_bind", () -> ep.bind(s.eq, 0));
        } else {
            call("fi_ep_bind", () -> ep.bind(s.av, 0));
        }
        call("fi_ep_bind", () -> ep.bind(txCq, Fi.FI_TRANSMIT));
        call("fi_ep_bind", () -> ep.bind(rxCq, Fi.FI_RECV));
        call("fi_enable", () -> ep.enable());
    }

    /** ft_exchange_addresses_oob for one more endpoint: its name out, the peer's in, inserted. */
    private static long exchangeOob(FtSession s, Endpoint ep) {
        byte[] name = call("fi_getname", () -> ep.getName());
        byte[] message = new byte[FtSession.MAX_CTRL_MSG];
        System.arraycopy(name, 0, message, 0, Math.min(name.length, message.length));
        s.oob.send(message);
        return FtAddressExchange.avInsert(s, FtAddressExchange.address(s, s.oob.receive(FtSession.MAX_CTRL_MSG)));
    }

    private void transfers(FtSession s, ByteBuffer data, int size, Endpoint[] eps, CompletionQueue[] txCqs,
                           CompletionQueue[] rxCqs, long[] remote) {
        ByteBuffer[] sends = new ByteBuffer[count];
        ByteBuffer[] receives = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            sends[i] = data.duplicate().position(i * size).limit(i * size + size).slice();
            receives[i] = data.duplicate().position((count + i) * size).limit((count + i) * size + size).slice();
        }
        for (int i = 0; i < count; i++) {
            int k = i;
            post(s, "fi_recv", () -> eps[k].recv(receives[k], null, Fi.FI_ADDR_UNSPEC, null));
        }
        s.out.println("Send to all " + count + " remote EPs");
        for (int i = 0; i < count; i++) {
            if (verify) {
                DataPattern.fill(sends[i], size);
            }
            int k = i;
            post(s, "fi_send", () -> eps[k].send(sends[k], null, remote[k], null));
        }
        s.out.println("Wait for all messages from peer");
        for (int i = 0; i < count; i++) {
            s.getCqComp(txCqs[i], 0, 1, false);
            s.getCqComp(rxCqs[i], 0, 1, false);
        }
        if (verify) {
            for (int i = 0; i < count; i++) {
                try {
                    DataPattern.check(receives[i], size);
                } catch (CommandFailure e) {
                    throw new FtError(-Errno.EIO, e.getMessage());
                }
            }
            s.out.println("Data check OK");
        }
        // ft_finalize_ep: 4 bytes with FI_TRANSMIT_COMPLETE on the first endpoint, and the peer's
        s.postTxMsg(4, Fi.FI_TRANSMIT_COMPLETE, s.txCtx);
        s.getTxComp(s.txSeq);
        s.getRxComp(s.rxSeq);
        s.out.println("PASSED multi ep");
    }

    /** A post retried while it answers -FI_EAGAIN, the CQ read meanwhile (as fabtests' loop does). */
    private static void post(FtSession s, String what, java.util.function.IntSupplier op) {
        long deadline = s.opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + s.opts.timeoutSeconds * 1_000_000_000L;
        int rc;
        while ((rc = op.getAsInt()) == -Errno.EAGAIN) {
            Thread.onSpinWait(); // the providers progress on their own (FI_PROGRESS_AUTO)
            if (System.nanoTime() - deadline > 0) {
                throw new FtError(-Errno.ENODATA, s.opts.timeoutSeconds + "s timeout expired");
            }
        }
        if (rc != 0) {
            throw printErr(what, rc, null);
        }
    }
}
