package io.jofi.provider.verbs;


import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.UtilAddressVector;
import java.nio.ByteBuffer;

/**
 * The facade of an RDM endpoint of the verbs provider: reliable datagrams addressed through an
 * AV, carried by per-peer RC connections made on first use, as libfabric's rxm does over verbs
 * ({@code fi_endpoint(3)}, {@code fi_msg(3)}, {@code fi_rma(3)}, {@code fi_atomic(3)}; README
 * "RDM endpoints"), put together from its peer connections ({@link RdmPeers}), the transmit
 * side that carries operations over them ({@link RdmTransmitter} on {@link TransmitSlots}), its
 * native queues ({@link EndpointQueues}: one CQ and one shared receive queue) and its receive
 * slots ({@link ReceiveSlots}, shared with MSG endpoints).
 *
 * <p>{@code enable} creates the endpoint's CQ, a shared receive queue and an rdma_cm listener on
 * the info's source address (the domain's device); {@link #getName()} is the listener's
 * concrete sockaddr.
 *
 * <p><b>Receives.</b> One shared receive queue ({@code ibv_create_srq}) for every connection:
 * a receive is posted once, zero-copy, and takes the next message of whichever peer; each
 * work completion's {@code qp_num} names the connection, hence the sender. As on MSG endpoints
 * every receive ends with the domain's overflow area (truncation is {@code ETRUNC}, R12).
 *
 * <p><b>Threads.</b> One lock (this endpoint's monitor) guards slots, connections and chains:
 * the CM thread takes it per event, the progress thread per poll, the application per
 * operation.
 */
final class VerbsRdmEndpoint extends VerbsEndpointCore implements VerbsAddressVector.RemovalListener {
    private final boolean source;
    private final boolean sourceErr;
    /**
     * RDM endpoints of this device offer RMA ({@link VerbsInfos#RDM_RMA_ON_IWARP}): only then do
     * its connections ask for RDMA read depths (on iWARP they stay as they were before RMA).
     */
    private final boolean rmaHere;
    /** The bound AV (the data path's copy). */
    private UtilAddressVector av;
    /** The peer connections and the listener, from enable to teardown. */
    private RdmPeers peers;
    /** Carries the transmit slots' operations over the peer connections. */
    private final RdmTransmitter transmitter;

    VerbsRdmEndpoint(VerbsDomain domain, Info info, Object context) {
        super(domain, info, context, VerbsInfos.RDM_CAPS, rmaHere(domain));
        long caps = info.caps();
        this.source = (caps & Fi.FI_SOURCE) != 0;
        this.sourceErr = source && (caps & Fi.FI_SOURCE_ERR) != 0;
        this.rmaHere = rmaHere(domain);
        this.transmitter = new RdmTransmitter(tx);
    }

    @Override
    boolean reportsSource() {
        return source;
    }

    @Override
    boolean reportsSourceErr() {
        return sourceErr;
    }

    private static boolean rmaHere(VerbsDomain domain) {
        return !domain.port().iwarp() || VerbsInfos.RDM_RMA_ON_IWARP;
    }

    // =================================================================== control path

    /** The AV, once bound: its removals end the connections to the removed peers ({@link #removed}). */
    @Override
    protected void onBind(Fid fid, long flags) {
        av = av();
        if (av instanceof VerbsAddressVector v && v == fid) {
            v.addRemovalListener(this);
        }
    }

    /**
     * {@code fi_enable}: the native CQ (on the domain's completion channel), the shared receive
     * queue, the staging memory, and the rdma_cm listener on the info's source address (port 0:
     * an ephemeral port) that peers connect to.
     *
     * @throws FabricException {@code ENOAV} without an AV; {@code ENOCQ} without CQs for both
     *         directions; {@code ENOSYS} when the device has no shared receive queues;
     *         {@code ENOMEM} when the device refuses; {@code EADDRNOTAVAIL} when the listener
     *         cannot be bound
     */
    @Override
    public synchronized void enable() throws FabricException {
        ensureOpen("enable");
        if (enabled) {
            return;
        }
        if (av == null) {
            throw new FabricException(Errno.ENOAV, "enable: an RDM endpoint needs a bound address vector");
        }
        if (txCq() == null || rxCq() == null) {
            throw new FabricException(Errno.ENOCQ, "enable: bind CQs for FI_TRANSMIT and FI_RECV first");
        }
        if (!domain.ops().hasSharedReceiveQueue()) {
            throw new FabricException(Errno.ENOSYS, "enable: device " + domain.port().device()
                    + " has no shared receive queues (ops.post_srq_recv), which verbs RDM endpoints need");
        }
        byte[] src = info.srcAddr();
        if (src == null || src.length < Sockaddrs.IN) {
            throw new FabricException(Errno.EADDRNOTAVAIL, "enable: the info has no source address of device "
                    + domain.port().device() + " to listen on");
        }
        openQueues(true);
        try {
            peers = new RdmPeers(this, domain, queues, transmitter, av, rmaHere);
            transmitter.peers(peers);
            peers.listen(src);
        } catch (FabricException | RuntimeException e) {
            if (peers != null) {
                peers.close();
                peers = null;
            }
            queues.close();
            queues = null;
            if (e instanceof FabricException fe) {
                throw fe;
            }
            throw new FabricException(Errno.ENOMEM, "enable: " + e.getMessage(), e);
        }
        sealBindings();
        domain.attach(this);
        enabled = true;
    }

    /**
     * {@code fi_getname}: the listener's concrete sockaddr (the device's address and the port
     * bound), what peers insert in their AVs and what their receives report this endpoint as.
     *
     * @throws FabricException {@code EOPBADSTATE} before {@code enable}
     */
    @Override
    public synchronized byte[] getName() throws FabricException {
        ensureOpen("getName");
        if (peers == null) {
            throw new FabricException(Errno.EOPBADSTATE, "getName: an RDM endpoint has its name once enabled");
        }
        return peers.name().clone();
    }

    /** RDM endpoints have no single peer: {@code ENOSYS}. */
    @Override
    public byte[] getPeer() throws FabricException {
        ensureOpen("getPeer");
        throw new FabricException(Errno.ENOSYS, "getPeer: RDM endpoints are connectionless (peers come from the AV)");
    }

    /** RDM endpoints connect by themselves: {@code ENOSYS}. */
    @Override
    public void connect(byte[] addr, byte[] param) throws FabricException {
        ensureOpen("connect");
        throw new FabricException(Errno.ENOSYS, "connect: RDM endpoints connect to a peer on the first send to it");
    }

    /** {@code ENOSYS} on RDM endpoints. */
    @Override
    public void accept(byte[] param) throws FabricException {
        ensureOpen("accept");
        throw new FabricException(Errno.ENOSYS, "accept: RDM endpoints accept their peers by themselves");
    }

    /** {@code ENOSYS} on RDM endpoints. */
    @Override
    public void shutdown(long flags) throws FabricException {
        ensureOpen("shutdown");
        throw new FabricException(Errno.ENOSYS, "shutdown: RDM endpoints have no connection to shut down; close it");
    }

    /** No options on verbs RDM endpoints: {@code ENOPROTOOPT}. */
    @Override
    public long getOpt(int level, int name) throws FabricException {
        ensureOpen("getOpt");
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + name + " at level " + level
                + " is not supported by verbs RDM endpoints");
    }

    /** No options on verbs RDM endpoints: {@code ENOPROTOOPT}. */
    @Override
    public void setOpt(int level, int name, long value) throws FabricException {
        ensureOpen("setOpt");
        throw new FabricException(Errno.ENOPROTOOPT, "setOpt: option " + name + " at level " + level
                + " is not supported by verbs RDM endpoints");
    }

    // =================================================================== data path

    /**
     * Every transmit operation (a send, an RMA or an atomic, {@code kindAndOp} of
     * {@link RmaSlots}): checks, the peer's connection (made on first use), a slot and CQ room,
     * the local buffers resolved into the slot's SGEs and the target recorded in the slot;
     * staged and posted at once when the connection is established and nothing waits before
     * it, else queued on the connection in order ({@link RdmTransmitter}).
     */
    @Override
    synchronized int transmit(int kindAndOp, ByteBuffer buf, Msg msg, long length, long data, boolean withData,
                              long dest, long remoteAddr, long rkey, long compareAdd, long swap, Object context,
                              long flags, ByteBuffer result) {
        int rc = postable();
        if (rc != 0) {
            return rc;
        }
        rc = tx.check(kindAndOp, withData, remoteAddr, result);
        if (rc != 0) {
            return rc;
        }
        if (tx.fenceWaits(flags)) {
            transmitter.postStaged();
            return -Errno.EAGAIN;
        }
        RdmConnection c = peers.connectionFor(dest);
        if (c == null) {
            return -Errno.EINVAL; // not an fi_addr of the AV
        }
        int slot = tx.open(kindAndOp, withData, data, remoteAddr, rkey, compareAdd, swap, false, context, flags);
        if (slot < 0) {
            return slot;
        }
        if (c.state == RdmConnection.DOWN) {
            // the set-up failed at once (e.g. a loopback name): the operation ends as the queued
            // ones of a failed set-up do, with an error completion naming why
            transmitter.failNow(slot, c.failure);
            return 0;
        }
        rc = tx.addPayload(slot, kindAndOp, buf, msg, length, (flags & Fi.FI_INJECT) != 0, false, result);
        if (rc != 0) {
            return rc;
        }
        return transmitter.send(c, slot, flags);
    }

    // =================================================================== data path: receive

    /** A receive posted to the shared receive queue: it takes the next message of any peer. */
    @Override
    synchronized int receive(ByteBuffer buf, Msg msg, Object context, long flags) {
        int rc = receivable(buf, msg);
        if (rc != 0) {
            return rc;
        }
        ByteBuffer b = msg == null ? buf : msg.iov(0);
        int slot = rx.reserve(b, msg == null ? null : msg.desc(0), context, flags);
        if (slot < 0) {
            return slot;
        }
        rx.stage(recvChain, slot, RX_BIT);
        if ((flags & Fi.FI_MORE) == 0 || recvChain.full()) {
            rc = recvChain.post(domain.ops());
            if (rc != 0) {
                // refused by the device: nothing of it was posted
                rx.unreserve(slot);
                return WcErrors.postRefused(rc);
            }
        }
        return 0;
    }

    /**
     * {@code fi_cancel}: a pending receive completes with {@code ECANCELED} at once (R13); it
     * stays in the shared receive queue (verbs cannot take a work request back), and a message
     * that later lands in it is dropped.
     *
     * @return 0, or {@code -ENOENT} when no pending receive has that context
     */
    @Override
    public synchronized int cancel(Object context) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        return rx.cancel(context);
    }

    // =================================================================== connections (CM thread, AV, async events)

    /** rdma_cm events of the listener and of every connection (CM thread). */
    @Override
    public void onCmEvent(long cmId, long token, int event, int status, byte[] privateData) {
        synchronized (this) {
            if (state() == CLOSED || isDeparted() || peers == null) {
                if (event == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
                    RdmPeers.reject(cmId, VerbsRdmHelloDescriptor.REJECT_BAD_HELLO);
                }
                return;
            }
            peers.onCmEvent(cmId, token, event, status, privateData);
        }
    }

    /**
     * The device reported an error of one connection's queue pair that no work completion
     * carries ({@link AsyncEvents}): that connection ends as if the peer had gone (its pending
     * sends fail with {@code ECONNRESET}, the next send connects again); the others live on.
     */
    @Override
    public synchronized void onQueuePairError(long qp, int eventType) {
        if (peers != null) {
            peers.onQueuePairError(qp);
        }
    }

    /**
     * {@code fi_av_remove} took {@code addrs} out of the bound AV (the remover's thread): every
     * connection to those peers ends ({@link RdmPeers#removed}).
     */
    @Override
    public void removed(byte[][] addrs) {
        synchronized (this) {
            if (addrs == null || state() == CLOSED || isDeparted() || peers == null) {
                return;
            }
            peers.removed(addrs);
        }
    }

    /** For tests: the bound on a connection's set-up from now on (default {@link RdmPeers#CONNECT_NANOS}). */
    synchronized void connectTimeout(long nanos) {
        if (peers != null) {
            peers.connectTimeout(nanos);
        }
    }

    /** For tests: the connections that carry sends (live, not receive-only), one per peer. */
    synchronized int sendConnections() {
        return peers == null ? 0 : peers.sendConnections();
    }

    // =================================================================== completions

    /** Drains the native CQ (the domain's engine calls it) and runs the connections' timers when idle. */
    @Override
    public synchronized int pollCompletions() {
        if (queues == null) {
            return 0;
        }
        transmitter.postStaged(); // FI_MORE left work requests staged: progress posts them
        int n = queues.poll(this, 4 * batch);
        if (n == 0) {
            peers.connectionTimers();
        }
        return n;
    }

    /**
     * A receive slot's completion: its rules are {@link ReceiveSlots}'; a message names its
     * sender from the connection it came on ({@code qp_num}): {@code FI_SOURCE} its fi_addr,
     * {@code FI_SOURCE_ERR} its raw name when the AV does not hold it (R10).
     */
    @Override
    void completeRx(int slot, int status, int opcode, int byteLen, int immData, int wcFlags, int qpNum) {
        if (!rx.completing(slot)) {
            return;
        }
        if (status != VerbsConstants.IBV_WC_SUCCESS) {
            rx.completeFailed(slot, status);
            return;
        }
        RdmConnection c = peers.connectionOfQp(qpNum);
        if (RdmTrace.ON) {
            RdmTrace.log(peers.name(), c, "receive slot " + slot + " from qp " + qpNum + ", " + byteLen + " bytes");
        }
        long src = Fi.FI_ADDR_NOTAVAIL;
        byte[] unknown = null;
        if (source && c != null) {
            src = c.sourceIn(av);
            if (src == Fi.FI_ADDR_NOTAVAIL && sourceErr) {
                unknown = c.peerName; // R10: FI_SOURCE_ERR gives the raw name, ready for av.insert
            }
        }
        if (opcode == VerbsConstants.IBV_WC_RECV_RDMA_WITH_IMM) {
            // FI_RX_CQ_DATA: a peer's writeData consumed this receive; the data completes it
            rx.completeRemoteWrite(slot, immData, src);
        } else {
            rx.completeMessage(slot, byteLen, immData, wcFlags, src, unknown);
        }
    }

    @Override
    void completeTx(int slot, int status) {
        transmitter.onCompletion(slot, status);
    }

    // =================================================================== teardown

    @Override
    void endConnections(boolean departing) {
        if (av instanceof VerbsAddressVector v) {
            v.removeRemovalListener(this);
        }
        if (peers != null) {
            peers.close();
            peers = null;
        }
    }

    @Override
    void releaseConnections() {
        // the connections' queue pairs, ids and the listener went when they ended
    }
}
