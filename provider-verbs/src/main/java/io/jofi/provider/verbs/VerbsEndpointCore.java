package io.jofi.provider.verbs;

import static io.jofi.provider.verbs.RmaSlots.K_FETCH;
import static io.jofi.provider.verbs.RmaSlots.K_READ;
import static io.jofi.provider.verbs.RmaSlots.K_SEND;
import static io.jofi.provider.verbs.RmaSlots.K_WRITE;

import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.PostChecks;
import java.nio.ByteBuffer;

/**
 * What the MSG ({@link VerbsEndpoint}) and RDM ({@link VerbsRdmEndpoint}) endpoints of the
 * verbs provider share: their bindings, their native queues ({@link EndpointQueues}), their
 * transmit and receive slots ({@link TransmitSlots}, {@link ReceiveSlots}), every
 * {@code fi_msg(3)}/{@code fi_rma(3)}/{@code fi_atomic(3)} call funnelled into one
 * {@link #transmit} (the caps gate on the way), the dispatch of work completions by wr_id, and
 * the order of teardown. What differs — how an operation reaches a queue pair (one connection,
 * or a peer's connection made on first use), receives, connection management — is the
 * subclasses'.
 *
 * <p><b>Threads.</b> One lock (the endpoint's monitor) guards slots, chains and connection
 * state: the progress thread takes it per poll, the CM thread per event, the application per
 * operation.
 */
abstract class VerbsEndpointCore extends AbstractFid
        implements Endpoint, CmHandler, CqPoller.Consumer, CompletionSource, AsyncEvents.Listener {
    /** Marks a receive's wr_id (the slot in the low 32 bits); a transmit's is its slot. */
    static final long RX_BIT = 1L << 32;
    /** The counter roles verbs counts: no FI_REMOTE_READ / FI_REMOTE_WRITE (no FI_RMA_EVENT). */
    static final long COUNTER_ROLES = Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE;

    final VerbsDomain domain;
    final Info info;
    final int txDepth;
    final int rxDepth;
    final int batch;
    /** The endpoint's caps allow RMA / atomics (an info without caps allows everything offered). */
    final boolean rmaCap;
    final boolean atomicCap;
    /** fi_ep_bind's rules, retains and progress attach (util). */
    final EndpointBindings bindings;
    /** The transmit slots: sends, RMA and atomics in flight. */
    final TransmitSlots tx;
    /** The receive slots. */
    final ReceiveSlots rx;
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
     * @param rmaHere the endpoint type offers RMA and atomics on this device at all
     */
    VerbsEndpointCore(VerbsDomain domain, Info info, Object context, boolean rmaHere) {
        super(FidClass.ENDPOINT, context);
        this.domain = domain;
        this.info = info.copy();
        this.info.handle(null);
        VerbsProvider p = domain.provider();
        int max = Math.max(16, Math.min(p.queueSize(), domain.port().maxQpWr()));
        this.txDepth = clampDepth(info.txAttr().size(), max);
        this.rxDepth = clampDepth(info.rxAttr().size(), max);
        this.batch = p.pollBatch();
        long caps = info.caps();
        this.rmaCap = rmaHere && (caps == 0 || (caps & Fi.FI_RMA) != 0);
        this.atomicCap = rmaHere && (caps == 0 || (caps & Fi.FI_ATOMIC) != 0);
        this.bindings = new EndpointBindings(domain.engine(), COUNTER_ROLES);
        this.tx = new TransmitSlots(domain, txDepth, domain.port().iwarp() && p.iwarpWriteConfirm());
        this.rx = new ReceiveSlots(domain, rxDepth, txDepth); // bounce slots: transmit first, then receive
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
     * {@code fi_ep_bind}: CQs ({@code FI_TRANSMIT}, {@code FI_RECV},
     * {@code FI_SELECTIVE_COMPLETION}), counters ({@code FI_SEND}, {@code FI_RECV},
     * {@code FI_READ}, {@code FI_WRITE}: {@link #COUNTER_ROLES}), an EQ and an AV, with the
     * rules of {@link EndpointBindings}; each retained until close (R9). What the endpoint type
     * needs of them is checked at {@code enable}.
     *
     * @throws FabricException {@code EINVAL} for a foreign object, wrong flags, a counter role
     *         this provider does not count or a second bind; {@code EOPBADSTATE} after
     *         {@code enable}
     */
    @Override
    public synchronized void bind(Fid fid, long flags) throws FabricException {
        ensureOpen("bind");
        bindings.bind(fid, flags);
        onBind(fid);
    }

    /** After a successful bind of {@code fid} (under this). */
    void onBind(Fid fid) {
    }

    /**
     * The part of {@code enable} every endpoint does once its own checks passed: the CQs bound,
     * the native queues made ({@code sharedReceiveQueue}: RDM's SRQ) and the slots told where
     * their completions go.
     *
     * @throws FabricException {@code ENOCQ} without CQs for both directions; {@code ENOMEM} when
     *         the device refuses
     */
    void openQueues(boolean sharedReceiveQueue) throws FabricException {
        if (bindings.txCq() == null || bindings.rxCq() == null) {
            throw new FabricException(Errno.ENOCQ, "enable: bind CQs for FI_TRANSMIT and FI_RECV first");
        }
        queues = new EndpointQueues(domain, txDepth, rxDepth, batch, sharedReceiveQueue);
        recvChain = queues.recvChain();
        tx.enable(bindings.txCq(), bindings.counter(Fi.FI_SEND), bindings.counter(Fi.FI_READ),
                bindings.counter(Fi.FI_WRITE), bindings.selectiveTx(), queues.buffers());
        rx.enable(bindings.rxCq(), bindings.counter(Fi.FI_RECV), bindings.selectiveRx(), queues.buffers());
    }

    // =================================================================== data path: transmit

    /** {@code fi_send} (to {@code destAddr}, an fi_addr of the bound AV, on RDM endpoints). */
    @Override
    public int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        return transmit(K_SEND, buf, desc, null, 0, false, destAddr, 0, 0, 0, 0, context, info.txAttr().opFlags());
    }

    /** {@code fi_senddata}: immediate data (32 bits) → {@code FI_REMOTE_CQ_DATA} at the peer. */
    @Override
    public int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return transmit(K_SEND, buf, desc, null, data, true, destAddr, 0, 0, 0, 0, context, info.txAttr().opFlags());
    }

    /** {@code fi_inject}: copied at once into a bounce slot; no completion. */
    @Override
    public int inject(ByteBuffer buf, long destAddr) {
        return transmit(K_SEND, buf, null, null, 0, false, destAddr, 0, 0, 0, 0, null, Fi.FI_INJECT);
    }

    /** {@code fi_injectdata}. */
    @Override
    public int injectData(ByteBuffer buf, long data, long destAddr) {
        return transmit(K_SEND, buf, null, null, data, true, destAddr, 0, 0, 0, 0, null, Fi.FI_INJECT);
    }

    /** {@code fi_sendmsg}: up to 4 iovs; flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT}, {@code FI_COMPLETION}, {@code FI_FENCE}, {@code FI_MORE}. */
    @Override
    public int sendMsg(Msg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return transmit(K_SEND, null, null, msg, msg.data(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.addr(), 0, 0, 0, 0,
                msg.context(), flags);
    }

    /**
     * {@code fi_read} from {@code destAddr}'s region {@code [addr, addr + remaining)} under
     * {@code key} into {@code buf}, over the peer's connection (made on first use, fi_rma(3)).
     */
    @Override
    public int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return rmaCap ? transmit(K_READ, buf, desc, null, 0, false, srcAddr, addr, key, 0, 0, context,
                info.txAttr().opFlags()) : -Errno.ENOSYS;
    }

    /** {@code fi_write} to {@code destAddr}'s region at {@code addr} under {@code key}. */
    @Override
    public int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return rmaCap ? transmit(K_WRITE, buf, desc, null, 0, false, destAddr, addr, key, 0, 0, context,
                info.txAttr().opFlags()) : -Errno.ENOSYS;
    }

    /**
     * {@code fi_writedata}: a write with immediate data; it consumes a receive posted at the
     * target, which completes with {@code FI_REMOTE_CQ_DATA} ({@code FI_RX_CQ_DATA});
     * {@code -ENOSYS} on iWARP (no immediate data).
     */
    @Override
    public int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        return rmaCap ? transmit(K_WRITE, buf, desc, null, data, true, destAddr, addr, key, 0, 0, context,
                info.txAttr().opFlags()) : -Errno.ENOSYS;
    }

    /** {@code fi_inject_write}: the data copied at once into a bounce slot; no completion. */
    @Override
    public int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        return rmaCap ? transmit(K_WRITE, buf, null, null, 0, false, destAddr, addr, key, 0, 0, null, Fi.FI_INJECT)
                : -Errno.ENOSYS;
    }

    /** {@code fi_readmsg}: one RMA iov, towards {@code msg.addr()}. */
    @Override
    public int readMsg(RmaMsg msg, long flags) {
        int rc = RmaSlots.checkMsg(rmaCap, msg);
        rc = rc != 0 ? rc : PostChecks.flags(flags, PostChecks.READ_MSG_FLAGS);
        return rc != 0 ? rc : transmit(K_READ, null, null, msg, 0, false, msg.addr(), msg.rmaAddr(0), msg.rmaKey(0),
                0, 0, msg.context(), flags);
    }

    /** {@code fi_writemsg}: one RMA iov, towards {@code msg.addr()}; {@code FI_REMOTE_CQ_DATA} as writeData. */
    @Override
    public int writeMsg(RmaMsg msg, long flags) {
        int rc = RmaSlots.checkMsg(rmaCap, msg);
        rc = rc != 0 ? rc : PostChecks.flags(flags, PostChecks.WRITE_MSG_FLAGS);
        return rc != 0 ? rc : transmit(K_WRITE, null, null, msg, msg.data(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0,
                msg.addr(), msg.rmaAddr(0), msg.rmaKey(0), 0, 0, msg.context(), flags);
    }

    /**
     * {@code fi_atomic} on a 64-bit target of {@code destAddr}: {@code FI_SUM}, {@code FI_ATOMIC_WRITE}
     * (the swap of {@link RmaSlots}); others {@code -EOPNOTSUPP}.
     */
    @Override
    public int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        if (!atomicCap) {
            return -Errno.ENOSYS;
        }
        int kind = RmaSlots.atomicKind(op, false);
        return kind < 0 ? -Errno.EOPNOTSUPP : transmit(kind, null, null, null, 0, false, destAddr, addr, key, operand, 0,
                context, info.txAttr().opFlags(), null, null);
    }

    /**
     * {@code fi_fetch_atomic}: {@code FI_SUM}, {@code FI_ATOMIC_READ}, {@code FI_ATOMIC_WRITE};
     * the old value's 8 bytes (host order) into {@code result}.
     */
    @Override
    public int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                           int op, Object context) {
        if (!atomicCap) {
            return -Errno.ENOSYS;
        }
        int kind = RmaSlots.atomicKind(op, true);
        long add = op == Fi.FI_ATOMIC_READ ? 0 : operand;
        return kind < 0 ? -Errno.EOPNOTSUPP : transmit(kind, null, null, null, 0, false, destAddr, addr, key, add, 0,
                context, info.txAttr().opFlags(), result, resultDesc);
    }

    /** {@code fi_compare_atomic} ({@code FI_CSWAP}): the old value's 8 bytes into {@code result}. */
    @Override
    public int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                             long addr, long key, Object context) {
        return !atomicCap ? -Errno.ENOSYS : transmit(K_FETCH | RmaSlots.CSWAP, null, null, null, 0, false, destAddr,
                addr, key, compare, swap, context, info.txAttr().opFlags(), result, resultDesc);
    }

    private int transmit(int kindAndOp, ByteBuffer buf, MemoryRegion desc, Msg msg, long data, boolean withData,
                         long dest, long remoteAddr, long rkey, long compareAdd, long swap, Object context, long flags) {
        return transmit(kindAndOp, buf, desc, msg, data, withData, dest, remoteAddr, rkey, compareAdd, swap, context,
                flags, null, null);
    }

    /**
     * Every transmit operation (a send, an RMA or an atomic, {@code kindAndOp} of
     * {@link RmaSlots}, towards {@code dest} on RDM endpoints): the checks, a slot and CQ room,
     * the local buffers resolved into the slot's SGEs, the work request staged and posted.
     *
     * @return 0 or a negative errno
     */
    abstract int transmit(int kindAndOp, ByteBuffer buf, MemoryRegion desc, Msg msg, long data, boolean withData,
                          long dest, long remoteAddr, long rkey, long compareAdd, long swap, Object context, long flags,
                          ByteBuffer result, MemoryRegion resultDesc);

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

    /** {@code fi_recv}. */
    @Override
    public int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        int rc = PostChecks.landing(buf, null, 1, info.rxAttr().opFlags(), info.epAttr().maxMsgSize());
        if (rc != 0) {
            return rc;
        }
        return receive(buf, desc, null, context, info.rxAttr().opFlags());
    }

    /** Every receive: {@code buf} and {@code desc}, or {@code msg}'s; 0 or a negative errno. */
    abstract int receive(ByteBuffer buf, MemoryRegion desc, Msg msg, Object context, long flags);

    /** Tagged messages are not offered: {@code -ENOSYS}. */
    @Override
    public int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        return -Errno.ENOSYS;
    }

    @Override
    public int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        return -Errno.ENOSYS;
    }

    @Override
    public int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        return -Errno.ENOSYS;
    }

    @Override
    public int tinject(ByteBuffer buf, long destAddr, long tag) {
        return -Errno.ENOSYS;
    }

    @Override
    public int trecvMsg(TaggedMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    @Override
    public int tsendMsg(TaggedMsg msg, long flags) {
        return -Errno.ENOSYS;
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
        bindings.releaseAll(departing ? null : this);
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
