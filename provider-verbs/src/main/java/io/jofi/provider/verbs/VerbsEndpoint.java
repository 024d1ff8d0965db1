package io.jofi.provider.verbs;

import static io.jofi.provider.verbs.RmaSlots.K_FETCH;
import static io.jofi.provider.verbs.RmaSlots.K_READ;
import static io.jofi.provider.verbs.RmaSlots.K_SEND;
import static io.jofi.provider.verbs.RmaSlots.K_WRITE;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.EndpointCounters;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.UtilEventQueue;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The facade of an MSG endpoint of the verbs provider: an RC queue pair connected with rdma_cm
 * ({@code fi_endpoint(3)}, {@code fi_cm(3)}, {@code fi_msg(3)}, {@code fi_rma(3)},
 * {@code fi_atomic(3)}), put together from its connection ({@link MsgConnection}), its native
 * queues ({@link EndpointQueues}) and its transmit and receive slots ({@link TransmitSlots},
 * {@link ReceiveSlots}), on top of {@link UtilEndpoint} (bindings, caps gate, post checks, every
 * convenience call), whose funnels it maps onto one {@link #transmit} and one {@link #receive}.
 * RDM endpoints are the rxm layer over these ({@code io.jofi.provider.rxm.RxmEndpoint}).
 *
 * <p><b>Data path.</b> Every operation takes a slot (its wr_id) and reserves room in its CQ
 * (R6), is staged in preallocated native memory ({@link SendChain}, {@link RecvChain}) and
 * posted with one {@code post_send}/{@code post_recv} call ({@code FI_MORE} defers the post
 * and chains). Local buffers: a registration given as {@code desc}; else
 * {@link LocalBuffers} (registration cache for direct buffers, bounce slots for heap buffers).
 * Receives posted before the queue pair exists wait in order and are posted when it is
 * created. Completions are polled in batches by the domain's engine ({@link #pollCompletions}).
 * Every work request is signalled, so that each slot is returned by its completion; entries
 * of operations without {@code FI_COMPLETION} on a selective endpoint are not reported
 * (their reserved room is given back), errors always are (R2).
 *
 * <p><b>Limits.</b> Immediate data is 32 bits (sent in network byte order, as libfabric's verbs
 * provider does). A receive too small for the message completes with {@code ETRUNC} (the rest
 * spills into the domain's overflow area, R12). Cancelling a receive already handed to the
 * device completes it with {@code ECANCELED} at once; a message that later lands in it is
 * dropped.
 *
 * <p><b>Threads.</b> One lock (the endpoint's monitor) guards slots, chains and connection
 * state: the progress thread takes it per poll, the CM thread per event, the application per
 * operation.
 */
final class VerbsEndpoint extends UtilEndpoint
        implements CmHandler, CqPoller.Consumer, CompletionSource, AsyncEvents.Listener {
    /** Marks a receive's wr_id (the slot in the low 32 bits); a transmit's is its slot. */
    private static final long RX_BIT = 1L << 32;
    /** The counter roles verbs counts: no FI_REMOTE_READ / FI_REMOTE_WRITE (no FI_RMA_EVENT). */
    private static final long COUNTER_ROLES = Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE;

    private final VerbsDomain domain;
    private final Info info;
    private final int txDepth;
    private final int rxDepth;
    private final int batch;
    /** The transmit slots: sends, RMA and atomics in flight. */
    private final TransmitSlots tx;
    /** The receive slots. */
    private final ReceiveSlots rx;
    /** Its post counters, counted under this endpoint's monitor (several threads may post at once). */
    private final EndpointCounters posts;
    /** Its transport counters: connections, empty CQ polls, RNR retries exceeded. */
    final VerbsTransportCounters transport;
    private boolean enabled;
    /** The native queues, from enable to teardown. */
    private EndpointQueues queues;
    private RecvChain recvChain;
    /** The rdma_cm connection: states, id, queue pair, EQ events. */
    private final MsgConnection conn;
    private SendChain sendChain;
    /** Receives posted before the queue pair exists, in posting order (a ring of slots). */
    private final int[] rxWaiting;
    private int rxWaitHead;
    private int rxWaitCount;
    /**
     * Set by the one {@link #teardown} (under this): a close after a departure (R15) finds the
     * native resources freed and the bindings released already, and must not release them twice.
     */
    private boolean tornDown;

    VerbsEndpoint(VerbsDomain domain, Info info, Object context) throws FabricException {
        super(context, domain.engine(), COUNTER_ROLES, limits(info));
        this.domain = domain;
        this.info = info.copy();
        this.info.handle(null);
        VerbsProvider p = domain.provider();
        int max = Math.max(16, Math.min(p.queueSize(), domain.port().maxQpWr()));
        this.txDepth = clampDepth(info.txAttr().size(), max);
        this.rxDepth = clampDepth(info.rxAttr().size(), max);
        this.batch = p.pollBatch();
        this.tx = new TransmitSlots(domain, txDepth, domain.port().iwarp() && p.iwarpWriteConfirm());
        this.rx = new ReceiveSlots(domain, rxDepth, txDepth); // bounce slots: transmit first, then receive
        this.posts = countPostsUnderLock();
        rx.countIn(counters());
        this.transport = new VerbsTransportCounters(counters());
        this.conn = new MsgConnection(this, domain, this.info, (VerbsConnReq) info.handle());
        this.rxWaiting = new int[rxDepth];
    }

    /**
     * What the util post checks measure against: the info's caps (an info without caps gets
     * everything offered, {@link VerbsInfos#CAPS}), op flags,
     * inject and message size, {@link TransmitSlots#IOV_LIMIT} iovs, one RMA iov. Under
     * {@code FI_RX_CQ_DATA} (fi_getinfo(3): remote CQ data consumes a posted receive) an RMA
     * target posts receives without {@code FI_MSG} in its caps: the caps gate lets its
     * receives through ({@code FI_MSG | FI_RECV}; sends stay refused unless the caps name
     * {@code FI_SEND}).
     */
    private static Limits limits(Info info) {
        long caps = info.caps() == 0 ? VerbsInfos.CAPS : info.caps();
        long mode = info.mode() | (info.rxAttr() == null ? 0 : info.rxAttr().mode());
        if ((mode & Fi.FI_RX_CQ_DATA) != 0 && (caps & Fi.FI_RMA) != 0 && (caps & Fi.FI_MSG) == 0) {
            caps |= Fi.FI_MSG | Fi.FI_RECV;
        }
        return new Limits(caps, info.txAttr().opFlags(), info.rxAttr().opFlags(), info.txAttr().injectSize(),
                info.epAttr().maxMsgSize(), TransmitSlots.IOV_LIMIT, 1);
    }

    /** A queue depth: what the info asks for, else (0) the most the device and the settings allow. */
    private static int clampDepth(long asked, int max) {
        if (asked <= 0) {
            return max;
        }
        return (int) Math.max(1, Math.min(asked, max));
    }

    // =================================================================== control path

    /**
     * {@code fi_enable}: creates the native CQ (on the domain's completion channel), the
     * staging memory and the bounce area.
     *
     * @throws FabricException {@code ENOEQ} without an EQ; {@code ENOCQ} without CQs for both
     *         directions; {@code ENOMEM} when the device refuses
     */
    @Override
    public synchronized void enable() throws FabricException {
        ensureOpen("enable");
        if (enabled) {
            return;
        }
        UtilEventQueue eq = eq();
        if (eq == null) {
            throw new FabricException(Errno.ENOEQ, "enable: an MSG endpoint needs a bound event queue");
        }
        CmChannel cm = domain.verbsFabric().cm();
        openQueues();
        sendChain = queues.sendChain();
        conn.enable(cm, queues, eq);
        domain.attach(this);
        enabled = true;
        sealBindings();
    }

    /** {@code fi_getname}: the local address of the connection, else the info's source address. */
    @Override
    public synchronized byte[] getName() throws FabricException {
        ensureOpen("getName");
        return conn.name();
    }

    /** {@code fi_getpeer}: the peer's address once connecting or connected. */
    @Override
    public synchronized byte[] getPeer() throws FabricException {
        ensureOpen("getPeer");
        return conn.peer();
    }

    /**
     * {@code fi_connect}: starts address resolution; the rest of the handshake runs on the CM
     * thread and ends with {@code FI_CONNECTED} or an error event (R14). A loopback peer
     * address from the device's (non-loopback) source address cannot be reached: the error
     * event ({@code EHOSTUNREACH}) is posted at once.
     *
     * @throws FabricException {@code EOPBADSTATE} before {@code enable}; {@code EINVAL} when
     *         connecting already, for an endpoint opened from a request, or for more than
     *         {@link ConnData#MAX_DATA} bytes of data; {@code EIO} when rdma_cm refuses
     */
    @Override
    public synchronized void connect(byte[] addr, byte[] param) throws FabricException {
        ensureOpen("connect");
        if (!enabled) {
            throw new FabricException(Errno.EOPBADSTATE, "connect: enable the endpoint first");
        }
        conn.connect(addr, param);
    }

    /**
     * {@code fi_accept}: takes the connect request, creates the queue pair on its id and
     * {@code rdma_accept}s with the framed data; {@code FI_CONNECTED} follows.
     *
     * @throws FabricException {@code EINVAL} for an endpoint not opened from a request, a request
     *         taken already, or too much data; {@code EOPBADSTATE} before {@code enable}
     */
    @Override
    public synchronized void accept(byte[] param) throws FabricException {
        ensureOpen("accept");
        if (!enabled) {
            throw new FabricException(Errno.EOPBADSTATE, "accept: enable the endpoint first");
        }
        conn.accept(param);
    }

    /** {@code fi_shutdown}: disconnects; {@code FI_SHUTDOWN} once; outstanding work requests flush. */
    @Override
    public synchronized void shutdown(long flags) throws FabricException {
        ensureOpen("shutdown");
        conn.shutdown();
    }

    /**
     * The device reported an error of this endpoint's queue pair that no work completion
     * carries ({@link AsyncEvents}: e.g. on iWARP a peer's write this side refused, which
     * leaves the connection in a DDP terminate): the connection is ended as by
     * {@link #shutdown}, so both sides see {@code FI_SHUTDOWN} and the outstanding work
     * requests flush into error completions (R14) instead of waiting for ever.
     */
    @Override
    public synchronized void onQueuePairError(long errorQp, int eventType) {
        conn.onQueuePairError(errorQp);
    }

    /** rdma_cm events of this endpoint's id (CM thread). */
    @Override
    public void onCmEvent(long cmId, long token, int event, int status, byte[] privateData) {
        synchronized (this) {
            // closed or departed: teardown destroyed the id; nothing to touch
            if (state() != OPEN) {
                return;
            }
            conn.onCmEvent(cmId, event, status, privateData);
        }
    }

    /** The connection created its queue pair: the chains post on it, and the receives that waited for it go. */
    void queuePairCreated(long qp) {
        sendChain.queuePair(qp);
        recvChain.queuePair(qp);
        while (rxWaitCount > 0) {
            int slot = rxWaiting[rxWaitHead];
            rxWaitHead = (rxWaitHead + 1) % rxDepth;
            rxWaitCount--;
            rx.stage(recvChain, slot, RX_BIT);
            if (recvChain.full()) {
                postRecvChain();
            }
        }
        postRecvChain();
    }

    /**
     * {@code fi_cancel}: a receive waiting for the queue pair is removed and completes with
     * {@code ECANCELED} (R13); one handed to the device completes with {@code ECANCELED} at once
     * and whatever later lands in it is dropped.
     *
     * @return 0, or {@code -ENOENT} when no pending receive has that context
     */
    @Override
    public synchronized int cancel(Object context) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        for (int k = 0; k < rxWaitCount; k++) {
            int slot = rxWaiting[(rxWaitHead + k) % rxDepth];
            if (rx.context(slot) == context) {
                for (int j = k; j < rxWaitCount - 1; j++) {
                    rxWaiting[(rxWaitHead + j) % rxDepth] = rxWaiting[(rxWaitHead + j + 1) % rxDepth];
                }
                rxWaitCount--;
                rx.cancelUnposted(slot);
                return 0;
            }
        }
        return rx.cancel(context);
    }

    /** {@code fi_getopt}: {@code FI_OPT_CM_DATA_SIZE} is {@link ConnData#MAX_DATA}. */
    @Override
    public long getOpt(int level, int name) throws FabricException {
        ensureOpen("getOpt");
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            return ConnData.MAX_DATA;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + name + " at level " + level
                + " is not supported (FI_OPT_CM_DATA_SIZE is)");
    }

    /** {@code fi_setopt}: {@code FI_OPT_CM_DATA_SIZE} up to {@link ConnData#MAX_DATA}. */
    @Override
    public void setOpt(int level, int name, long value) throws FabricException {
        ensureOpen("setOpt");
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            if (value < 0 || value > ConnData.MAX_DATA) {
                throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_CM_DATA_SIZE " + value + " is outside 0.."
                        + ConnData.MAX_DATA + " (what rdma_cm carries)");
            }
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "setOpt: option " + name + " at level " + level + " is not supported");
    }

    /**
     * The part of {@code enable} after its own checks: the CQs bound, the native queues made
     * and the slots told where their completions go.
     *
     * @throws FabricException {@code ENOCQ} without CQs for both directions; {@code ENOMEM} when
     *         the device refuses
     */
    private void openQueues() throws FabricException {
        if (txCq() == null || rxCq() == null) {
            throw new FabricException(Errno.ENOCQ, "enable: bind CQs for FI_TRANSMIT and FI_RECV first");
        }
        queues = new EndpointQueues(domain, txDepth, rxDepth, batch, transport.emptyPolls);
        recvChain = queues.recvChain();
        tx.enable(txCq(), counterFor(Fi.FI_SEND), counterFor(Fi.FI_READ), counterFor(Fi.FI_WRITE), selectiveTx(),
                queues.buffers());
        // an MSG endpoint reports no source (FI_SOURCE, FI_SOURCE_ERR: R10): its peer is the connection
        rx.enable(rxCq(), counterFor(Fi.FI_RECV), selectiveRx(), queues.buffers(), false, false);
    }

    // =================================================================== the util funnels

    /** Every send ({@link UtilEndpoint} checked it): a {@code K_SEND} transmit; tagged sends never pass the caps gate. */
    @Override
    protected final int postSend(ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long destAddr, boolean tagged, long tag,
                                 long data, long flags, Object context) {
        return transmit(K_SEND, buf, desc, msg, length, data, (flags & Fi.FI_REMOTE_CQ_DATA) != 0, destAddr, 0, 0, 0, 0,
                context, flags, null);
    }

    /** Every RMA: a read or a write of the message's one RMA iov (or the call's address and key). */
    @Override
    protected final int postRma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length, long peerAddr, long addr,
                                long key, long data, long flags, Object context) {
        long remoteAddr = msg == null ? addr : msg.rmaAddr(0);
        long rkey = msg == null ? key : msg.rmaKey(0);
        return transmit(read ? K_READ : K_WRITE, buf, desc, msg, length, data, (flags & Fi.FI_REMOTE_CQ_DATA) != 0,
                peerAddr, remoteAddr, rkey, 0, 0, context, flags, null);
    }

    /**
     * Every atomic: {@code FI_SUM}, {@code FI_ATOMIC_WRITE} (the swap of {@link RmaSlots}),
     * fetching also {@code FI_ATOMIC_READ} (a fetch-and-add of 0), and {@code FI_CSWAP}
     * ({@code compareAtomic}); the old value's 8 bytes (host order) into {@code result}; others
     * {@code -EOPNOTSUPP}.
     */
    @Override
    protected final int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr,
                                   long key, long flags, Object context) {
        if (op == Fi.FI_CSWAP && result != null) {
            return transmit(K_FETCH | RmaSlots.CSWAP, null, resultDesc, null, 0, 0, false, destAddr, addr, key, compare, operand,
                    context, flags, result);
        }
        int kind = RmaSlots.atomicKind(op, result != null);
        if (kind < 0) {
            return -Errno.EOPNOTSUPP; // an operation not offered (docs/ERRORS.md)
        }
        long add = op == Fi.FI_ATOMIC_READ ? 0 : operand;
        return transmit(kind, null, resultDesc, null, 0, 0, false, destAddr, addr, key, add, 0, context, flags, result);
    }

    /** The typed atomics the device carries ({@link VerbsNativeAtomics}): the domain's answer. */
    @Override
    protected int typedAtomicCount(int datatype, int op, long kind) {
        return VerbsNativeAtomics.count(domain.port().atomics(), datatype, op, kind);
    }

    /**
     * A typed atomic is one 64-bit element ({@link #typedAtomicCount}): its operand and compare
     * value read in host order from the buffers' positions, then the 64-bit path.
     */
    @Override
    protected int postTypedAtomic(long kind, int datatype, int op, int count, ByteBuffer buf, ByteBuffer compare,
                                  ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                                  long flags, Object context) {
        long operand = buf == null ? 0 : buf.order() == ByteOrder.nativeOrder() ? buf.getLong(buf.position())
                : Long.reverseBytes(buf.getLong(buf.position()));
        long cmp = compare == null ? 0 : compare.order() == ByteOrder.nativeOrder()
                ? compare.getLong(compare.position()) : Long.reverseBytes(compare.getLong(compare.position()));
        return postAtomic(op, operand, cmp, kind == 0 ? null : result, resultDesc, destAddr, addr, key, flags,
                context);
    }

    /** Every receive that posts a buffer (tagged ones never pass the caps gate). */
    @Override
    protected final int postRecv(ByteBuffer buf, MemoryRegion desc, Msg msg, long srcAddr, boolean tagged, long tag, long ignore,
                                 long flags, Object context) {
        return receive(buf, desc, msg, context, flags);
    }

    /** Tagged messages are not offered (the caps gate answers {@code -ENOSYS} before this). */
    @Override
    protected final int postPeek(TaggedMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    // =================================================================== data path: transmit

    /**
     * Every transmit operation: checks, a slot and CQ room, the work request staged and
     * posted (unless {@code FI_MORE}). {@code kindAndOp}: an {@link RmaSlots} kind and its marks.
     */
    private synchronized int transmit(int kindAndOp, ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long data,
                                      boolean withData, long dest, long remoteAddr, long rkey, long compareAdd, long swap,
                                      Object context, long flags, ByteBuffer result) {
        // every answer is counted here, under the monitor: concurrent posters lose no count
        int rc = dataPathCheck();
        if (rc != 0) {
            return counted(kindAndOp, length, rc);
        }
        int state = conn.state();
        if (state != MsgConnection.CONNECTED) {
            return counted(kindAndOp, length, state == MsgConnection.DOWN || state == MsgConnection.IDLE ? -Errno.ENOTCONN
                    : -Errno.EAGAIN);
        }
        rc = tx.check(kindAndOp, withData, remoteAddr, result);
        if (rc != 0) {
            return counted(kindAndOp, length, rc);
        }
        if (tx.fenceWaits(flags) || tx.readWaits(kindAndOp)) {
            if (sendChain.staged() > 0) {
                tx.post(sendChain, -1);
            }
            return counted(kindAndOp, length, -Errno.EAGAIN);
        }
        int kind = kindAndOp & 0xFF;
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        int maxInline = conn.maxInline();
        boolean inline = (kind == K_SEND || kind == K_WRITE) && length <= maxInline && length > 0
                && (inject || length <= Math.min(maxInline, 64));
        // only an fi_inject* call goes without a completion: a send or write with FI_INJECT in
        // its op flags or message flags completes (fi_msg(3), fi_rma(3))
        long reported = PostChecks.reportsToCq(flags) ? flags & ~Fi.FI_INJECT : flags;
        int slot = tx.open(kindAndOp, withData, data, remoteAddr, rkey, compareAdd, swap, inline, context, reported);
        if (slot < 0) {
            return counted(kindAndOp, length, slot);
        }
        rc = tx.addPayload(slot, kindAndOp, buf, desc, msg, length, inject, inline, result);
        if (rc != 0) {
            return counted(kindAndOp, length, rc);
        }
        tx.stage(sendChain, slot);
        if ((flags & Fi.FI_MORE) == 0 || sendChain.full()) {
            return counted(kindAndOp, length, tx.post(sendChain, slot));
        }
        return counted(kindAndOp, length, 0);
    }

    /** Counts a transmit's answer {@code rc} (and its {@code length} bytes) by its kind (under the monitor); returns it. */
    private int counted(int kindAndOp, long length, int rc) {
        int kind = kindAndOp & 0xFF;
        if (kind == K_SEND) {
            return posts.send(rc, false, length);
        }
        if (kind == K_READ || kind == K_WRITE) {
            return posts.rma(rc, kind == K_READ, length);
        }
        return posts.atomic(rc);
    }

    /**
     * The first check of every data-path call that needs an enabled endpoint: 0, the closed
     * or departed endpoint's errno ({@link #dataPathCheck}), or {@code -EOPBADSTATE} before
     * {@code enable}.
     */
    private int postable() {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        return enabled ? 0 : -Errno.EOPBADSTATE;
    }

    // =================================================================== data path: receive

    /**
     * The first checks of a receive: {@link #postable}, then one buffer — a work request of
     * either queue takes one SGE and the overflow area: more iovs {@code -ENOSYS}, none or a
     * null one {@code -EINVAL}. 0 when {@code buf} (or {@code msg}'s one iov) may be posted.
     */
    private int receivable(ByteBuffer buf, Msg msg) {
        int rc = postable();
        if (rc != 0) {
            return rc;
        }
        if (msg != null && msg.iovCount() != 1) {
            return msg.iovCount() > 1 ? -Errno.ENOSYS : -Errno.EINVAL;
        }
        return (msg == null ? buf : msg.iov(0)) == null ? -Errno.EINVAL : 0;
    }

    /**
     * A receive on the queue pair, or waiting in order for it to exist; one iov
     * ({@code -ENOSYS} for more).
     */
    private synchronized int receive(ByteBuffer buf, MemoryRegion desc, Msg msg, Object context, long flags) {
        // every answer counted under the monitor, as transmit's
        int rc = receivable(buf, msg);
        if (rc != 0) {
            return posts.receive(rc, false);
        }
        if (conn.state() == MsgConnection.DOWN) {
            return posts.receive(-Errno.ENOTCONN, false);
        }
        ByteBuffer b = msg == null ? buf : msg.iov(0);
        int slot = rx.reserve(b, msg == null ? desc : msg.desc(0), context, flags);
        if (slot < 0) {
            return posts.receive(slot, false);
        }
        if (conn.queuePair() == 0) {
            rxWaiting[(rxWaitHead + rxWaitCount) % rxDepth] = slot;
            rxWaitCount++;
            return posts.receive(0, false);
        }
        rx.stage(recvChain, slot, RX_BIT);
        if ((flags & Fi.FI_MORE) == 0 || recvChain.full()) {
            return posts.receive(postRecvChain(), false);
        }
        return posts.receive(0, false);
    }

    private int postRecvChain() {
        int rc = recvChain.post(domain.ops());
        return rc == 0 ? 0 : WcErrors.postRefused(rc);
    }

    // =================================================================== completions

    /** Arms the native CQ for the completion channel. */
    @Override
    public synchronized void armCompletions() {
        if (queues != null) {
            queues.arm();
        }
    }

    /** One work completion of the native CQ (under this, from {@link #pollCompletions}): by its wr_id, a receive's or a transmit's. */
    @Override
    public void onCompletion(long wrId, int status, int opcode, int byteLen, int immData, int wcFlags, int vendorErr,
                             int qpNum) {
        if ((wrId & RX_BIT) != 0) {
            completeRx((int) (wrId & 0xFFFFFFFFL), status, opcode, byteLen, immData, wcFlags, qpNum);
        } else {
            completeTx((int) wrId, status);
        }
    }

    /** Drains this endpoint's native CQ (the domain's engine calls it). */
    @Override
    public synchronized int pollCompletions() {
        if (queues == null) {
            return 0;
        }
        int n = queues.poll(this, 4 * batch);
        if (n == 0 && conn.sweepDue()) {
            n = sweep();
        }
        return n;
    }

    /**
     * iWARP, the connection down for {@link MsgConnection#SWEEP_DELAY_NANOS} and the CQ drained:
     * every work request still without a completion will never get one
     * ({@link MsgConnection#sweepDue}), so it completes here as the device would have flushed it
     * — {@code ECANCELED}, a write whose placement was not confirmed {@code EIO} (R14: nothing
     * pending is lost silently).
     */
    private int sweep() {
        int n = 0;
        for (int slot = 0; slot < txDepth; slot++) {
            if (tx.busy(slot)) {
                completeTx(slot, VerbsConstants.IBV_WC_WR_FLUSH_ERR);
                n++;
            }
        }
        rxWaitCount = 0; // receives that waited for a queue pair are swept with the rest
        for (int slot = 0; slot < rxDepth; slot++) {
            if (rx.busy(slot)) {
                completeRx(slot, VerbsConstants.IBV_WC_WR_FLUSH_ERR, 0, 0, 0, 0, 0);
                n++;
            }
        }
        return n;
    }

    /** A transmit slot's work completion: the next step of its operation, or its completion. */
    private void completeTx(int slot, int status) {
        if (!tx.busy(slot)) {
            return;
        }
        status = tx.step(slot, status, sendChain);
        if (status == RmaSlots.CONTINUED) {
            return; // a write's flush read or the swap's next compare-and-swap is in flight
        }
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            tx.complete(slot); // with the iWARP writes a read of data confirmed (WriteConfirms)
        } else {
            failTx(slot, status);
        }
        if (conn.state() == MsgConnection.CONNECTED) {
            tx.postDueFlushReads(sendChain); // else they are swept with the rest (sweep)
        }
    }

    /**
     * A transmit failed: its error completion; a failure the device reported (not a flush, not
     * a post of a next step) left the queue pair in error, so the connection is over.
     */
    private void failTx(int slot, int status) {
        transport.failedCompletion(status);
        tx.fail(slot, TransmitSlots.errnoOf(status), TransmitSlots.provErrnoOf(status));
        if (status != VerbsConstants.IBV_WC_WR_FLUSH_ERR && status < RmaSlots.POST_FAILED) {
            conn.onFailedWorkRequest();
        }
    }

    /** A receive slot's completion: its rules are {@link ReceiveSlots}'; an MSG endpoint names no source. */
    private void completeRx(int slot, int status, int opcode, int byteLen, int immData, int wcFlags, int qpNum) {
        if (!rx.completing(slot)) {
            return;
        }
        if (status != VerbsConstants.IBV_WC_SUCCESS) {
            rx.completeFailed(slot, status);
        } else if (opcode == VerbsConstants.IBV_WC_RECV_RDMA_WITH_IMM) {
            rx.completeRemoteWrite(slot, immData, Fi.FI_ADDR_NOTAVAIL);
        } else {
            rx.completeMessage(slot, byteLen, immData, wcFlags, Fi.FI_ADDR_NOTAVAIL, null);
        }
    }

    // =================================================================== teardown

    /**
     * Ends everything, once: with {@code departing}, pending operations complete with
     * {@code ECANCELED} (R15); on close their reserved room is given back (R9). On close, what
     * the device completed before is reported first: the native CQ is this endpoint's own and
     * goes with it, so a completion left there (a peer's last message, its receive done while
     * the application read the peer's disconnect) would be lost with it — R9 loses only what is
     * left on a CQ the application closes (FABTESTS.md gap 17). The endpoint's connection ends
     * then, its queue pair and id go (with the receives that waited for the queue pair) before
     * the queues they live on.
     */
    private void teardown(boolean departing) {
        if (tornDown) {
            return;
        }
        if (!departing && queues != null) {
            while (queues.poll(this, 4 * batch) > 0) {
                // each poll reports up to 4 * batch completions to the bound CQs and counters
            }
        }
        tornDown = true;
        domain.detach(this);
        conn.end(departing); // with its events when departing (R15)
        tx.drain(departing, departureError());
        rx.drain(departing, departureError());
        rxWaitCount = 0;
        conn.release();
        if (queues != null) {
            queues.close();
            queues = null;
        }
        // Once only (a close after a departure releases nothing more); a departed endpoint's
        // events stay on the EQ for the application to drain (R15).
        releaseBindings(departing ? null : this);
    }

    @Override
    protected synchronized void onClose() {
        teardown(false);
    }

    @Override
    protected synchronized void onDeparture() {
        teardown(true);
    }
}
