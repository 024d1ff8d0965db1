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
import io.jofi.spi.util.EndpointCounters;
import io.jofi.spi.util.UtilEndpoint;
import java.nio.ByteBuffer;

/**
 * What the verbs provider's endpoints ({@link VerbsEndpoint}; RDM endpoints are the rxm layer
 * over those, {@code io.jofi.spi.util.rxm.RxmEndpoint}) share on top of {@link UtilEndpoint} (bindings, caps gate, post checks, every
 * convenience call): their native queues ({@link EndpointQueues}), their transmit and receive
 * slots ({@link TransmitSlots}, {@link ReceiveSlots}), the util funnels mapped onto one
 * {@link #transmit} and one {@link #receive}, the dispatch of work completions by wr_id, and
 * the order of teardown. What differs — how an operation reaches a queue pair (one connection,
 * or a peer's connection made on first use), receives, connection management — is the
 * subclasses'.
 *
 * <p><b>Threads.</b> One lock (the endpoint's monitor) guards slots, chains and connection
 * state: the progress thread takes it per poll, the CM thread per event, the application per
 * operation.
 */
abstract class VerbsEndpointCore extends UtilEndpoint
        implements CmHandler, CqPoller.Consumer, CompletionSource, AsyncEvents.Listener {
    /** Marks a receive's wr_id (the slot in the low 32 bits); a transmit's is its slot. */
    static final long RX_BIT = 1L << 32;
    /** The counter roles verbs counts: no FI_REMOTE_READ / FI_REMOTE_WRITE (no FI_RMA_EVENT). */
    static final long COUNTER_ROLES = Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE;

    final VerbsDomain domain;
    final Info info;
    final int txDepth;
    final int rxDepth;
    final int batch;
    /** The transmit slots: sends, RMA and atomics in flight. */
    final TransmitSlots tx;
    /** The receive slots. */
    final ReceiveSlots rx;
    /** Its post counters, counted under this endpoint's monitor (several threads may post at once). */
    final EndpointCounters posts;
    /** Its transport counters: connections, empty CQ polls, RNR retries exceeded. */
    final VerbsTransportCounters transport;
    boolean enabled;
    /** The native queues, from enable to teardown. */
    EndpointQueues queues;
    RecvChain recvChain;
    /**
     * Set by the one {@link #teardown} (under this): a close after a departure (R15) finds the
     * native resources freed and the bindings released already, and must not release them twice.
     */
    private boolean tornDown;

    /**
     * @param offered the caps this endpoint type offers (what an info without caps gets)
     * @param rmaHere the endpoint type offers RMA and atomics on this device at all
     */
    VerbsEndpointCore(VerbsDomain domain, Info info, Object context, long offered, boolean rmaHere) {
        super(context, domain.engine(), COUNTER_ROLES, limits(info, offered, rmaHere));
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
    }

    /**
     * What the util post checks measure against: the info's caps (an info without caps gets
     * everything offered; no RMA or atomics where the endpoint type has none here), op flags,
     * inject and message size, {@link TransmitSlots#IOV_LIMIT} iovs, one RMA iov. Under
     * {@code FI_RX_CQ_DATA} (fi_getinfo(3): remote CQ data consumes a posted receive) an RMA
     * target posts receives without {@code FI_MSG} in its caps: the caps gate lets its
     * receives through ({@code FI_MSG | FI_RECV}; sends stay refused unless the caps name
     * {@code FI_SEND}).
     */
    private static Limits limits(Info info, long offered, boolean rmaHere) {
        long caps = info.caps() == 0 ? offered : info.caps();
        if (!rmaHere) {
            caps &= ~(Fi.FI_RMA | Fi.FI_ATOMIC);
        }
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
     * The part of {@code enable} every endpoint does once its own checks passed: the CQs bound,
     * the native queues made ({@code sharedReceiveQueue}: RDM's SRQ) and the slots told where
     * their completions go.
     *
     * @throws FabricException {@code ENOCQ} without CQs for both directions; {@code ENOMEM} when
     *         the device refuses
     */
    void openQueues(boolean sharedReceiveQueue) throws FabricException {
        if (txCq() == null || rxCq() == null) {
            throw new FabricException(Errno.ENOCQ, "enable: bind CQs for FI_TRANSMIT and FI_RECV first");
        }
        queues = new EndpointQueues(domain, txDepth, rxDepth, batch, sharedReceiveQueue, transport.emptyPolls);
        recvChain = queues.recvChain();
        tx.enable(txCq(), counterFor(Fi.FI_SEND), counterFor(Fi.FI_READ), counterFor(Fi.FI_WRITE), selectiveTx(),
                queues.buffers());
        rx.enable(rxCq(), counterFor(Fi.FI_RECV), selectiveRx(), queues.buffers(), reportsSource(), reportsSourceErr());
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

    /** Whether receives report their sender ({@code FI_SOURCE}, R10): RDM endpoints with the cap. */
    boolean reportsSource() {
        return false;
    }

    /** Whether a sender not in the AV is an error with its raw address ({@code FI_SOURCE_ERR}, R10). */
    boolean reportsSourceErr() {
        return false;
    }

    /**
     * Every transmit operation (a send, an RMA or an atomic, {@code kindAndOp} of
     * {@link RmaSlots}, towards {@code dest} on RDM endpoints), past the util post checks
     * ({@code length} the payload's bytes): verbs' own checks, a slot and CQ room, the local
     * buffers resolved into the slot's SGEs, the work request staged and posted.
     *
     * @return 0 or a negative errno
     */
    abstract int transmit(int kindAndOp, ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long data, boolean withData, long dest,
                          long remoteAddr, long rkey, long compareAdd, long swap, Object context, long flags,
                          ByteBuffer result);

    /**
     * The first check of every data-path call that needs an enabled endpoint: 0, the closed
     * or departed endpoint's errno ({@link #dataPathCheck}), or {@code -EOPBADSTATE} before
     * {@code enable}.
     */
    final int postable() {
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
    final int receivable(ByteBuffer buf, Msg msg) {
        int rc = postable();
        if (rc != 0) {
            return rc;
        }
        if (msg != null && msg.iovCount() != 1) {
            return msg.iovCount() > 1 ? -Errno.ENOSYS : -Errno.EINVAL;
        }
        return (msg == null ? buf : msg.iov(0)) == null ? -Errno.EINVAL : 0;
    }

    /** Every receive past the util post checks: into {@code buf}, or {@code msg}'s iov; 0 or a negative errno. */
    abstract int receive(ByteBuffer buf, MemoryRegion desc, Msg msg, Object context, long flags);

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

    /** A transmit slot's work completion. */
    abstract void completeTx(int slot, int status);

    /** A receive slot's work completion; {@code qpNum} names the queue pair it came on. */
    abstract void completeRx(int slot, int status, int opcode, int byteLen, int immData, int wcFlags, int qpNum);

    // =================================================================== teardown

    /**
     * Ends everything, once: with {@code departing}, pending operations complete with
     * {@code ECANCELED} (R15); on close their reserved room is given back (R9). The endpoint's
     * connections end first ({@link #endConnections}), their queue pairs and ids go
     * ({@link #releaseConnections}) before the queues they live on.
     */
    private void teardown(boolean departing) {
        if (tornDown) {
            return;
        }
        tornDown = true;
        domain.detach(this);
        endConnections(departing);
        tx.drain(departing, departureError());
        rx.drain(departing, departureError());
        releaseConnections();
        if (queues != null) {
            queues.close();
            queues = null;
        }
        // Once only (a close after a departure releases nothing more); a departed endpoint's
        // events stay on the EQ for the application to drain (R15).
        releaseBindings(departing ? null : this);
    }

    /** Teardown's first step: connections end ({@code departing}: with their events, R15). */
    abstract void endConnections(boolean departing);

    /** Teardown's last step before the queues go: queue pairs, ids and listeners. */
    abstract void releaseConnections();

    @Override
    protected synchronized void onClose() {
        teardown(false);
    }

    @Override
    protected synchronized void onDeparture() {
        teardown(true);
    }
}
