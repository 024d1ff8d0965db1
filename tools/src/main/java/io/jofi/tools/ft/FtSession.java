package io.jofi.tools.ft;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.WaitObj;
import io.jofi.tools.CommandFailure;
import io.jofi.tools.DataPattern;
import static io.jofi.tools.ft.FtCalls.call;
import static io.jofi.tools.ft.FtCalls.printErr;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One fabtests process's fabric state and its common steps, as fabtests' {@code common/shared.c}
 * performs them, on the public {@code io.jofi} API: the RDM set-up ({@code ft_init_fabric}), the
 * resources and buffers ({@code ft_alloc_active_res}, {@code ft_enable_ep_recv}), the posts and
 * completion waits that count like fabtests' {@code tx_seq}/{@code rx_seq} and
 * {@code tx_cq_cntr}/{@code rx_cq_cntr} and the 1-byte sync ({@link Greeting}: the greeting). The
 * Info comes from {@link FtGetinfo}, the MSG connection from {@link FtConnections}, the RDM address
 * exchange from {@link FtAddressExchange}. The transmit and receive buffers are one each, as
 * fabtests' {@code tx_buf}/{@code rx_buf}: what a 1-byte sync sends is whatever the transmit buffer
 * holds, byte for byte as the C program. Failures are {@link FtError}s carrying fabtests' return value.
 */
final class FtSession implements AutoCloseable {
    /** fabtests' FT_MAX_CTRL_MSG: the least every receive posts. */
    static final int MAX_CTRL_MSG = 256;
    static final long NO_CQ_DATA = 0;

    final FtOptions opts;
    final Info hints;
    final Fabrics fabrics;
    final PrintStream out;
    private final PrintStream err;
    private final Deque<Fid> opened = new ArrayDeque<>();

    Info info;
    OobChannel oob;
    Fabric fabric;
    EventQueue eq;
    Domain domain;
    PassiveEndpoint pep;
    Endpoint ep;
    AddressVector av;
    CompletionQueue txCq;
    CompletionQueue rxCq;
    Counter txCntr;
    Counter rxCntr;
    /** The CQ format the program asks for; UNSPEC: tagged with FI_TAGGED, else context (ft_alloc_ep_res). */
    CqFormat cqFormat = CqFormat.UNSPEC;
    ByteBuffer txBuf;
    ByteBuffer rxBuf;
    int txSize;
    int rxSize;
    long remoteFiAddr = Fi.FI_ADDR_UNSPEC;
    long remoteCqData;
    long txSeq;
    long rxSeq;
    long txCqCntr;
    long rxCqCntr;
    /** The contexts of the CQs and counters (fabtests' &txcq, &rxcq, &txcntr, &rxcntr), which fi_poll reports. */
    static final String TX_CQ = "txcq";
    static final String RX_CQ = "rxcq";
    static final String TX_CNTR = "txcntr";
    static final String RX_CNTR = "rxcntr";
    /** fi_poll: a poll set over the CQs and counters, opened with them. */
    boolean pollSetWanted;
    io.jofi.PollSet pollSet;
    /** The context of fabtests' tx_ctx and rx_ctx. */
    final Object txCtx = new Object();
    final Object rxCtx = new Object();
    /** The last completion read ({@link #lastCompletion}). */
    private final CqEntry[] completion = {new CqEntry()};
    private final CqErrEntry error = new CqErrEntry();
    private final EqEntry event = new EqEntry();

    FtSession(Fabrics fabrics, FtOptions opts, Info hints, PrintStream out, PrintStream err) {
        this.fabrics = fabrics;
        this.err = err;
        this.opts = opts;
        this.hints = hints;
        this.out = out;
    }

    /**
     * A new session of the same program, options and hints (the next client of fi_rdm_multi_client,
     * fi_av_xfer's next test); the out-of-band socket passes to it, as fabtests' ft_free_res keeps it.
     */
    FtSession another() {
        FtSession next = new FtSession(fabrics, opts, hints, out, err);
        next.oob = oob;
        oob = null;
        return next;
    }

    <T extends Fid> T track(T fid) {
        opened.push(fid);
        return fid;
    }

    Fabrics fabrics() {
        return fabrics;
    }

    /** FT_CLOSE_FID: closes {@code fid} now (and not again at the end); null is nothing. */
    void closeNow(Fid fid) {
        if (fid != null) {
            opened.remove(fid);
            call("fi_close", () -> fid.close());
        }
    }

    /**
     * FT_CLOSE_FID as a program's own free function uses it (fi_multi_ep's free_ep_res): {@code fid}
     * closed now and not again at the end; a failure is printed and the next close goes on.
     */
    void closeAndReport(Fid fid) {
        if (fid != null) {
            opened.remove(fid);
            closeReporting(fid);
        }
    }

    private void closeReporting(Fid fid) {
        try {
            fid.close();
        } catch (FabricException | RuntimeException e) {
            err.println("fi_close(): " + e.getMessage());
        }
    }

    /** The event read last by {@link FtConnections#eqSread}. */
    EqEntry lastEvent() {
        return event;
    }

    // ------------------------------------------------------------------ set-up

    /** ft_init_fabric: an RDM (or DGRAM) endpoint, its receive posted, the address exchange done. */
    void initFabric() {
        initOob();
        info = FtGetinfo.getinfo(this);
        openFabricRes();
        allocActiveRes(info);
        enableEpRecv();
        FtAddressExchange.initAv(this);
    }

    /** ft_init_fabric_cm: a MSG endpoint, accepted (server) or connected (client). */
    void initFabricCm() {
        if (!opts.client()) {
            FtConnections.startServer(this);
            FtConnections.serverConnect(this);
        } else {
            FtConnections.clientConnect(this);
        }
    }

    /** ft_init_oob: the out-of-band socket when -b/-E or the program asks for it (default port 3000). */
    void initOob() {
        if ((opts.oobSync || opts.oobAddressExchange) && oob == null) {
            if (opts.oobPort == null) {
                opts.oobPort = FtOptions.DEFAULT_OOB_PORT;
            }
            oob = OobChannel.open(opts);
        }
    }

    void openFabricRes() {
        call("fi_fabric", () -> fabric = track(fabrics.fabric(info.fabricAttr(), null)));
        call("fi_eq_open", () -> eq = track(fabric.openEq(new EqAttr().waitObj(WaitObj.UNSPEC), null)));
        call("fi_domain", () -> domain = track(fabric.domain(info, null)));
    }

    /** ft_alloc_active_res: CQs (or counters), the AV of an RDM endpoint, the endpoint. */
    void allocActiveRes(Info fi) {
        // fabtests asks for the context format; MSG adds the length, which the address exchange
        // needs: JOFI's AV takes an address of its exact length, C's the whole control message
        CqFormat format = cqFormat != CqFormat.UNSPEC ? cqFormat
                : (fi.caps() & Fi.FI_TAGGED) != 0 ? CqFormat.TAGGED : CqFormat.MSG;
        WaitObj wait = switch (opts.compMethod) {
            case SREAD -> WaitObj.UNSPEC;
            case FD -> WaitObj.FD;
            case YIELD -> WaitObj.UNSPEC;
            case SPIN -> WaitObj.NONE;
        };
        // each CQ and counter has itself as context, as fabtests' &txcq, &rxcq, &txcntr, &rxcntr
        call("fi_cq_open", () -> txCq = track(domain.openCq(new CqAttr().format(format).waitObj(wait)
                .size(fi.txAttr().size()), TX_CQ)));
        if (opts.counters) {
            call("fi_cntr_open", () -> txCntr = track(domain.openCounter(new CounterAttr().waitObj(wait), TX_CNTR)));
        }
        call("fi_cq_open", () -> rxCq = track(domain.openCq(new CqAttr().format(format).waitObj(wait)
                .size(fi.rxAttr().size()), RX_CQ)));
        if (opts.counters) {
            call("fi_cntr_open", () -> rxCntr = track(domain.openCounter(new CounterAttr().waitObj(wait), RX_CNTR)));
        }
        if (pollSetWanted) {
            call("fi_poll_open", () -> pollSet = track(domain.openPollSet(new io.jofi.PollAttr())));
            for (Fid fid : new Fid[] {txCq, rxCq, txCntr, rxCntr}) {
                if (fid != null) {
                    call("fi_poll_add", () -> pollSet.add(fid));
                }
            }
        }
        if (av == null && (fi.epAttr().type() == EpType.RDM || fi.epAttr().type() == EpType.DGRAM)) {
            call("fi_av_open", () -> av = track(domain.openAv(new AvAttr().count(1), null)));
        }
        call("fi_endpoint", () -> ep = track(domain.endpoint(fi, null)));
    }

    /** ft_enable_ep_recv: bind, enable, the buffers, the first receive. */
    void enableEpRecv() {
        enableEp();
        if (opts.skipMsgAlloc) {
            return; // FT_OPT_SKIP_MSG_ALLOC: the program has buffers of its own, no first receive
        }
        allocMsgs();
        if ((info.caps() & (Fi.FI_MSG | Fi.FI_TAGGED)) != 0) {
            postRx(Math.max(rxSize, MAX_CTRL_MSG), rxCtx);
        }
    }

    void enableEp() {
        if (info.epAttr().type() == EpType.MSG) {
            call("fi_ep_bind", () -> ep.bind(eq, 0));
        }
        if (av != null) {
            call("fi_ep_bind", () -> ep.bind(av, 0));
        }
        long txFlags = Fi.FI_TRANSMIT | (opts.counters ? Fi.FI_SELECTIVE_COMPLETION : 0);
        long rxFlags = Fi.FI_RECV | (opts.counters ? Fi.FI_SELECTIVE_COMPLETION : 0);
        call("fi_ep_bind", () -> ep.bind(txCq, txFlags));
        call("fi_ep_bind", () -> ep.bind(rxCq, rxFlags));
        if (txCntr != null) {
            call("fi_ep_bind", () -> ep.bind(txCntr, Fi.FI_SEND));
        }
        if (rxCntr != null) {
            call("fi_ep_bind", () -> ep.bind(rxCntr, Fi.FI_RECV));
        }
        call("fi_enable", () -> ep.enable());
    }

    /** ft_alloc_msgs (one window): the transmit and receive buffers, zeroed, and the CQ data value. */
    void allocMsgs() {
        if (txBuf != null) {
            return;
        }
        long size = opts.transferSize;
        long max = info.epAttr().maxMsgSize();
        if (max > 0 && size > max) {
            size = max;
        }
        txSize = (int) size;
        rxSize = (int) size;
        txBuf = ByteBuffer.allocateDirect(Math.max(txSize, MAX_CTRL_MSG) * opts.windowSize);
        rxBuf = ByteBuffer.allocateDirect(Math.max(rxSize, MAX_CTRL_MSG) * opts.windowSize);
        long cqDataSize = info.domainAttr().cqDataSize();
        remoteCqData = cqDataSize >= 8 ? 0x0123456789abcdefL : 0x0123456789abcdefL & ((1L << (cqDataSize * 8)) - 1);
    }

    // ------------------------------------------------------------------ data path

    /** ft_post_tx: send (senddata with CQ data, tsend with FI_TAGGED) from the transmit buffer, retried on EAGAIN. */
    void postTx(int size, long data, Object ctx) {
        postTxBuf(txBuf.duplicate().clear().limit(size), data, ctx, 0);
    }

    /** ft_post_tx_buf: {@code view} as one message; a tag of 0 is the transmit sequence number. */
    void postTxBuf(ByteBuffer view, long data, Object ctx, long opTag) {
        boolean tagged = (hints.caps() & Fi.FI_TAGGED) != 0;
        long tag = opTag != 0 ? opTag : txSeq;
        while (true) {
            int rc;
            if (tagged) {
                rc = data != NO_CQ_DATA ? ep.tsendData(view, null, data, remoteFiAddr, tag, ctx)
                        : ep.tsend(view, null, remoteFiAddr, tag, ctx);
            } else {
                rc = data != NO_CQ_DATA ? ep.sendData(view, null, data, remoteFiAddr, ctx)
                        : ep.send(view, null, remoteFiAddr, ctx);
            }
            if (rc == 0) {
                break;
            }
            retryOrFail(rc, "transmit", txCq);
        }
        txSeq++;
    }

    /** fi_sendmsg of the transmit buffer's first {@code size} bytes with {@code flags} (ft_finalize_ep's). */
    void postTxMsg(int size, long flags, Object ctx) {
        io.jofi.Msg msg = new io.jofi.Msg().buffer(txBuf.duplicate().clear().limit(size), null).addr(remoteFiAddr)
                .context(ctx);
        int rc;
        while ((rc = ep.sendMsg(msg, flags)) != 0) {
            retryOrFail(rc, "sendmsg", txCq);
        }
        txSeq++;
    }

    /** ft_tx: post and wait for its completion (the pattern first with -v). */
    void tx(int size, Object ctx) {
        if (opts.verifyData) {
            DataPattern.fill(txBuf, size);
        }
        postTx(size, NO_CQ_DATA, ctx);
        getTxComp(txSeq);
    }

    /** ft_post_rx: a receive of at least FT_MAX_CTRL_MSG bytes into the receive buffer. */
    void postRx(int size, Object ctx) {
        int length = Math.max(size, MAX_CTRL_MSG);
        postRxBuf(rxBuf.duplicate().clear().limit(Math.min(length, rxBuf.capacity())), ctx, 0);
    }

    /** ft_post_rx_buf: a receive into {@code view}; a tag of 0 is the receive sequence number. */
    void postRxBuf(ByteBuffer view, Object ctx, long opTag) {
        boolean tagged = (hints.caps() & Fi.FI_TAGGED) != 0;
        long tag = opTag != 0 ? opTag : rxSeq;
        while (true) {
            int rc = tagged ? ep.trecv(view, null, remoteFiAddr, tag, 0, ctx) : ep.recv(view, null, remoteFiAddr, ctx);
            if (rc == 0) {
                break;
            }
            retryOrFail(rc, "receive", rxCq);
        }
        rxSeq++;
    }

    /** ft_rx: wait for the next receive completion, check it with -v, post the next receive. */
    void rx(int size) {
        getRxComp(rxSeq);
        if (opts.verifyData) {
            checkData(size);
        }
        postRx(rxSize, rxCtx);
    }

    /** ft_check_buf on the receive buffer: a wrong byte is fabtests' "Data check error", -FI_EIO. */
    void checkData(int size) {
        try {
            DataPattern.check(rxBuf, size);
        } catch (CommandFailure e) {
            throw new FtError(-Errno.EIO, e.getMessage());
        }
    }

    private void retryOrFail(int rc, String op, CompletionQueue cq) {
        if (rc != -Errno.EAGAIN) {
            throw printErr(op, rc, null);
        }
        // FT_POST: progress the queue without waiting; what completes counts as fabtests counts it
        int r = cq.read(completion, 1);
        if (r > 0 || r == -Errno.EAVAIL) {
            if (cq == txCq) {
                txCqCntr++;
            } else {
                rxCqCntr++;
            }
            if (r == -Errno.EAVAIL) {
                throw cqReadErr(cq);
            }
        }
        Thread.onSpinWait();
    }

    /** ft_get_rx_comp: until {@code total} receive completions have been counted. */
    void getRxComp(long total) {
        if (!opts.counters) {
            rxCqCntr = getCqComp(rxCq, rxCqCntr, total, true);
        } else {
            getCntrComp(rxCntr, total);
        }
    }

    /** ft_get_tx_comp. */
    void getTxComp(long total) {
        if (!opts.counters) {
            txCqCntr = getCqComp(txCq, txCqCntr, total, false);
        } else {
            getCntrComp(txCntr, total);
        }
    }

    /**
     * ft_get_cq_comp: reads {@code cq} until {@code cur} reaches {@code total}, as -c asks (spin:
     * fi_cq_read; sread; fd and yield: the provider's blocking read), bounded by --timeout.
     */
    long getCqComp(CompletionQueue cq, long cur, long total, boolean rx) {
        long deadline = opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + opts.timeoutSeconds * 1_000_000_000L;
        int idle = 0;
        while (total - cur > 0) {
            // a blocking read returns every 100 ms so that --timeout is checked
            int rc = opts.compMethod == FtOptions.CompMethod.SPIN ? cq.read(completion, 1) : cq.sread(completion, 1, 0, 100);
            if (rc > 0) {
                checkTag(cq, rx, completion[0]);
                cur++;
                idle = 0;
                deadline = opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + opts.timeoutSeconds * 1_000_000_000L;
            } else if (rc == -Errno.EAVAIL) {
                throw cqReadErr(cq);
            } else if (rc != -Errno.EAGAIN && rc != -Errno.ETIMEDOUT && rc != 0) {
                throw printErr("ft_get_cq_comp", rc, null);
            } else {
                if (System.nanoTime() - deadline > 0) {
                    throw new FtError(-Errno.ENODATA, opts.timeoutSeconds + "s timeout expired");
                }
                if (++idle % 64 == 0) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
        }
        return cur;
    }

    /** Prints a failure the C program prints and goes past (a call whose return it ignores). */
    void printIgnored(FtError e) {
        out.flush();
        err.println(e.getMessage());
    }

    private void checkTag(CompletionQueue cq, boolean rx, CqEntry entry) {
        if ((hints.caps() & Fi.FI_TAGGED) == 0 || !rx) {
            return;
        }
        long expected = rxCqCntr;
        if (entry.tag() != expected) {
            throw new FtError(-Errno.FI_EOTHER, "Tag mismatch!. Expected: " + expected + ", actual: " + entry.tag());
        }
    }

    void getCntrComp(Counter cntr, long total) {
        long deadline = opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + opts.timeoutSeconds * 1_000_000_000L;
        while (cntr.read() < total) {
            if (cntr.readErr() > 0) {
                throw new FtError(-Errno.EIO, "the counter counted " + cntr.readErr() + " failed operations");
            }
            if (opts.compMethod == FtOptions.CompMethod.SPIN) {
                Thread.onSpinWait();
            } else {
                cntr.await(total, 100);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new FtError(-Errno.ENODATA, opts.timeoutSeconds + "s timeout expired");
            }
        }
    }

    /** ft_cq_readerr: the error entry, printed as fabtests' FT_CQ_ERR; returns -err. */
    FtError cqReadErr(CompletionQueue cq) {
        int rc = cq.readErr(error, 0);
        if (rc < 0) {
            return printErr("fi_cq_readerr", rc, null);
        }
        return new FtError(-error.err(), "cq_readerr: " + Errno.strerror(error.err()) + " (prov_errno "
                + error.provErrno() + ": " + cq.strerror(error.provErrno(), error.errData()) + ")");
    }

    // ------------------------------------------------------------------ sync, shutdown, next client

    /** ft_sync: 1 byte each way, the client first. */
    void sync() {
        if (opts.oobSync) {
            oob.sync(opts.client());
            return;
        }
        if (opts.client()) {
            tx(1, txCtx);
            rx(1);
        } else {
            rx(1);
            tx(1, txCtx);
        }
    }

    /** fi_shutdown, whose result the programs ignore (an RDM endpoint has no connection to shut down). */
    void shutdown() {
        if (ep != null) {
            try {
                ep.shutdown(0);
            } catch (FabricException | RuntimeException ignored) {
                // fabtests calls fi_shutdown(ep, 0) and does not look at what it returns
            }
        }
    }

    /** fi_cq_sread of one receive completion (bounded by --timeout), as fi_cq_data's server reads it. */
    CqEntry sreadRx() {
        long deadline = opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + opts.timeoutSeconds * 1_000_000_000L;
        while (true) {
            int rc = rxCq.sread(completion, 1, 0, 100);
            if (rc > 0) {
                rxCqCntr++;
                return completion[0];
            }
            if (rc == -Errno.EAVAIL) {
                throw cqReadErr(rxCq);
            }
            if (rc != -Errno.EAGAIN && rc != -Errno.ETIMEDOUT) {
                throw printErr("fi_cq_sread", rc, null);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new FtError(-Errno.ENODATA, opts.timeoutSeconds + "s timeout expired");
            }
        }
    }

    /** fi_cq_read of one receive completion until there is one (bounded by --timeout). */
    CqEntry readRx() {
        long before = rxCqCntr;
        rxCqCntr = getCqComp(rxCq, before, before + 1, false);
        return completion[0];
    }

    /** ft_accept_next_client: a persistent RDM server's next client: a receive, then its address exchange. */
    void acceptNextClient() {
        if (!opts.skipMsgAlloc && (info.caps() & (Fi.FI_MSG | Fi.FI_TAGGED)) != 0) {
            postRx(Math.max(rxSize, MAX_CTRL_MSG), rxCtx);
        }
        FtAddressExchange.initAv(this);
    }

    /** fabtests' ft_free_res: everything closed, the endpoint before what it is bound to. */
    @Override
    public void close() {
        if (oob != null) {
            oob.close();
        }
        while (!opened.isEmpty()) {
            closeReporting(opened.pop());
        }
    }

    /** --timeout in milliseconds, or -1 (wait forever, fabtests' default). */
    int timeoutMillis() {
        return opts.timeoutSeconds < 0 ? -1 : opts.timeoutSeconds * 1000;
    }
}
