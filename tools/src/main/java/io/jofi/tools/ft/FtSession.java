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
import io.jofi.EqErrEntry;
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
import java.util.List;

/**
 * One fabtests process's fabric state and its common steps, as fabtests' {@code common/shared.c}
 * performs them, on the public {@code io.jofi} API: getinfo from the address options, the RDM
 * set-up with the in-band address exchange ({@code ft_init_fabric}, {@code ft_init_av}), the MSG
 * server and client ({@code ft_start_server}, {@code ft_server_connect}, {@code ft_client_connect}),
 * the posts and completion waits that count like fabtests' {@code tx_seq}/{@code rx_seq} and
 * {@code tx_cq_cntr}/{@code rx_cq_cntr} and the 1-byte sync ({@link Greeting}: the greeting). The
 * transmit and receive buffers are one each, as fabtests' {@code tx_buf}/{@code rx_buf}: what a
 * 1-byte sync sends is whatever the transmit buffer holds, byte for byte as the C program.
 * Failures are {@link FtError}s carrying fabtests' return value.
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

    /** The event read last by {@link #eqSread}. */
    EqEntry lastEvent() {
        return event;
    }

    // ------------------------------------------------------------------ getinfo

    /** fabtests' ft_getinfo with ft_read_addr_opts: node and service from -s/-B or the server and -P. */
    Info getinfo() {
        if (hints.epAttr().type() == null || hints.epAttr().type() == EpType.UNSPEC) {
            hints.epAttr().type(EpType.RDM);
        }
        String node;
        String service;
        long flags = 0;
        if (opts.dstAddr != null && (opts.srcAddr != null || opts.oobPort == null)) {
            String port = opts.dstPort != null ? opts.dstPort : FtOptions.DEFAULT_PORT;
            if (opts.srcAddr != null || opts.srcPort != null) {
                hints.srcAddr(first(opts.srcAddr, opts.srcPort, Fi.FI_SOURCE, hints.copy()).srcAddr());
            }
            node = opts.dstAddr;
            service = port;
        } else {
            node = opts.srcAddr;
            service = opts.srcPort != null ? opts.srcPort : FtOptions.DEFAULT_PORT;
            flags = Fi.FI_SOURCE;
        }
        return first(node, service, flags, hints);
    }

    Info first(String node, String service, long flags, Info h) {
        List<Info> infos;
        try {
            infos = fabrics.getInfo(node, service, flags, h);
        } catch (FabricException e) {
            throw printErr("fi_getinfo", -e.errno(), e.getMessage());
        }
        if (infos.isEmpty()) {
            throw printErr("fi_getinfo", -Errno.ENODATA, null);
        }
        return infos.get(0);
    }

    // ------------------------------------------------------------------ set-up

    /** ft_init_fabric: an RDM (or DGRAM) endpoint, its receive posted, the address exchange done. */
    void initFabric() {
        initOob();
        info = getinfo();
        openFabricRes();
        allocActiveRes(info);
        enableEpRecv();
        initAv();
    }

    /** ft_init_fabric_cm: a MSG endpoint, accepted (server) or connected (client). */
    void initFabricCm() {
        if (!opts.client()) {
            startServer();
            serverConnect();
        } else {
            clientConnect();
        }
    }

    /** ft_start_server: fabric, EQ and a listening passive endpoint. */
    void startServer() {
        initOob();
        Info pepInfo = getinfo();
        call("fi_fabric", () -> fabric = track(fabrics.fabric(pepInfo.fabricAttr(), null)));
        call("fi_eq_open", () -> eq = track(fabric.openEq(new EqAttr().waitObj(WaitObj.UNSPEC), null)));
        call("fi_passive_ep", () -> pep = track(fabric.passiveEndpoint(pepInfo, null)));
        call("fi_pep_bind", () -> pep.bind(eq, 0));
        call("fi_listen", () -> pep.listen());
    }

    /** ft_server_connect: the connection request, the endpoint, its receive posted, accept. */
    void serverConnect() {
        info = retrieveConnReq();
        try {
            call("fi_domain", () -> domain = track(fabric.domain(info, null)));
            allocActiveRes(info);
            enableEpRecv();
            call("fi_accept", () -> ep.accept(null));
            completeConnect();
        } catch (FtError e) {
            try {
                pep.reject(info.handle(), null);
            } catch (FabricException ignored) {
                // the failure being reported is the first one; a reject that fails changes nothing for it
            }
            throw e;
        }
    }

    /** ft_client_connect. */
    void clientConnect() {
        initOob();
        info = getinfo();
        openFabricRes();
        allocActiveRes(info);
        enableEpRecv();
        call("fi_connect", () -> ep.connect(info.destAddr(), null));
        completeConnect();
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

    Info retrieveConnReq() {
        eqSread("listen");
        if (event.event() != Fi.FI_CONNREQ) {
            throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + event.event());
        }
        return event.info();
    }

    void completeConnect() {
        eqSread("accept");
        if (event.event() != Fi.FI_CONNECTED || event.fid() != ep) {
            throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + event.event() + " fid " + event.fid() + " (ep " + ep + ")");
        }
    }

    /** fi_eq_sread bounded by --timeout; an error entry is printed as fabtests' eq_readerr does. */
    int eqSread(String what) {
        int rc = eq.sread(event, timeoutMillis(), 0);
        if (rc == -Errno.EAVAIL) {
            EqErrEntry err = new EqErrEntry();
            eq.readErr(err, 0);
            throw new FtError(-err.err(), "fi_eq_sread " + what + ": " + Errno.strerror(err.err())
                    + " (prov_errno " + err.provErrno() + ")");
        }
        if (rc < 0) {
            throw printErr("fi_eq_sread", rc, what);
        }
        return rc;
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

    // ------------------------------------------------------------------ address exchange

    /** ft_init_av: the client sends its name to the server's address, the server answers with 1 byte (or -b/-E: over the socket). */
    void initAv() {
        if (opts.oobAddressExchange) {
            exchangeAddressesOob();
            return;
        }
        if (opts.client()) {
            remoteFiAddr = avInsert(info.destAddr());
            byte[] name = call("fi_getname", () -> ep.getName());
            txBuf.put(0, name);
            tx(name.length, txCtx);
            rx(1);
        } else {
            getRxComp(rxSeq);
            byte[] name = new byte[MAX_CTRL_MSG];
            rxBuf.get(0, name);
            remoteFiAddr = avInsert(address(name));
            postRx(rxSize, rxCtx);
            tx(1, txCtx);
        }
    }

    /** ft_exchange_addresses_oob: each side's name in a 256-byte control message over the socket. */
    void exchangeAddressesOob() {
        byte[] name = call("fi_getname", () -> ep.getName());
        byte[] message = new byte[MAX_CTRL_MSG];
        System.arraycopy(name, 0, message, 0, Math.min(name.length, MAX_CTRL_MSG));
        oob.send(message);
        remoteFiAddr = avInsert(address(oob.receive(MAX_CTRL_MSG)));
    }

    /**
     * The address at the start of a control message. fabtests hands the whole message to
     * fi_av_insert, whose C providers read as much as the address format says; JOFI's AV takes
     * an address of its exact length: a sockaddr_in is 16 bytes, a sockaddr_in6 28, a string
     * address ends at its NUL.
     */
    byte[] address(byte[] message) {
        int length = switch (info.addrFormat()) {
            case SOCKADDR_IN -> 16;
            case SOCKADDR_IN6 -> 28;
            case ADDR_STR -> {
                int n = 0;
                while (n < message.length && message[n] != 0) {
                    n++;
                }
                yield n;
            }
            default -> message.length;
        };
        return java.util.Arrays.copyOf(message, length);
    }

    long avInsert(byte[] address) {
        long[] fiAddr = {Fi.FI_ADDR_NOTAVAIL};
        int rc = av.insert(new byte[][] {address}, fiAddr, 0, null);
        if (rc < 0) {
            throw printErr("fi_av_insert", rc, null);
        }
        if (rc != 1) {
            throw new FtError(-1, "fi_av_insert: number of addresses inserted = " + rc + "; number of addresses given = 1");
        }
        return fiAddr[0];
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
        initAv();
    }

    /** fabtests' ft_free_res: everything closed, the endpoint before what it is bound to. */
    @Override
    public void close() {
        if (oob != null) {
            oob.close();
        }
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (FabricException | RuntimeException e) {
                err.println("fi_close(): " + e.getMessage());
            }
        }
    }

    /** --timeout in milliseconds, or -1 (wait forever, fabtests' default). */
    int timeoutMillis() {
        return opts.timeoutSeconds < 0 ? -1 : opts.timeoutSeconds * 1000;
    }
}
