package io.jofi.provider.verbs;

import static io.jofi.provider.verbs.RmaSlots.K_FETCH;
import static io.jofi.provider.verbs.RmaSlots.K_READ;
import static io.jofi.provider.verbs.RmaSlots.K_SEND;
import static io.jofi.provider.verbs.RmaSlots.K_SWAP;
import static io.jofi.provider.verbs.RmaSlots.K_WRITE;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.jofi.Addresses;
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
import io.jofi.provider.verbs.binding.Ibv;
import io.jofi.provider.verbs.binding.IbvQpDescriptor;
import io.jofi.provider.verbs.binding.IbvQpInitAttrDescriptor;
import io.jofi.provider.verbs.binding.IbvSrqInitAttrDescriptor;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.RdmaCmIdDescriptor;
import io.jofi.provider.verbs.binding.RdmaConnParamDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An RDM endpoint of the verbs provider: reliable datagrams addressed through an AV, carried by
 * per-peer RC connections made on first use, as libfabric's rxm does over verbs
 * ({@code fi_endpoint(3)}, {@code fi_msg(3)}; README "RDM").
 *
 * <p><b>Set-up.</b> {@code enable} creates the endpoint's CQ, a shared receive queue and an
 * rdma_cm listener on the info's source address (the domain's device); {@link #getName()} is
 * the listener's concrete sockaddr. The first send to an fi_addr resolves the peer's name
 * (its listener) and connects an RC queue pair to it, the connect request carrying an
 * {@link RdmHelloDescriptor} hello with this endpoint's name; sends wait on the connection, in
 * order, until it is established. The target accepts (its hello names it back) and maps the
 * connection to the sender's name, so that receives report the sender's fi_addr (FI_SOURCE)
 * or, with {@code FI_SOURCE_ERR}, its raw name (R10). A connection carries sends both ways.
 *
 * <p><b>Crossed connects.</b> When both ends connect at once, the connection initiated by the
 * lower name (unsigned bytes) is kept: the higher end accepts the lower's request and moves its
 * queued sends onto it; the lower end rejects the higher's request ({@code REJECT_CROSSED}); a
 * higher end refused that way parks its sends until the lower's request arrives (or connects
 * again after {@link #PARK_NANOS}). Queued sends were never posted, so nothing is lost or
 * reordered. A superseded connection whose connect request is already out is
 * {@link RdmConnection#ABANDONED}: its id goes when the request is answered, because
 * {@code rdma_destroy_id} of an iWARP id with its request unanswered waits for the answer
 * (iw_cm), which held the CM thread — the very thread that delivers the answer when both
 * endpoints live in one process — until soft-iWARP's 10 s MPA timeout, and the peer's own
 * connect request timed out meanwhile (its queued sends failed with {@code ETIMEDOUT}).
 *
 * <p><b>Receives.</b> One shared receive queue ({@code ibv_create_srq}) for every connection:
 * a receive is posted once, zero-copy, and takes the next message of whichever peer; each
 * work completion's {@code qp_num} names the connection, hence the sender. As on MSG endpoints
 * every receive ends with the domain's overflow area (truncation is {@code ETRUNC}, R12).
 * The receive slots are {@link ReceiveSlots}, shared with MSG endpoints.
 *
 * <p><b>Failures.</b> A set-up that fails fails the sends queued on it with an error
 * completion: no listener ({@code ECONNREFUSED}), no route or a loopback name
 * ({@code EHOSTUNREACH}), no answer within rdma_cm's timeouts or {@link #CONNECT_NANOS}
 * ({@code ETIMEDOUT}); a peer that disconnects or dies fails the operations still pending on
 * its connection ({@code ECONNRESET}); a peer removed from the AV ends its connections, and the
 * operations pending towards it complete with {@code ECANCELED}. The endpoint works on with
 * every other peer, and the next send to that peer connects again.
 *
 * <p><b>Threads.</b> One lock (this endpoint's monitor) guards slots, connections and chains:
 * the CM thread takes it per event, the progress thread per poll, the application per
 * operation.
 */
final class VerbsRdmEndpoint extends AbstractFid
        implements Endpoint, CmHandler, CqPoller.Consumer, CompletionSource, VerbsAddressVector.RemovalListener,
        AsyncEvents.Listener {
    /** How long sends parked by a crossed-connect reject wait for the peer's connection before connecting again. */
    static final long PARK_NANOS = 1_000_000_000L;
    /**
     * The provider's bound on a connection's set-up (address and route resolution, connect
     * request, accept): a connection not established by then fails its queued sends with
     * {@code ETIMEDOUT}. rdma_cm ends most failures itself and sooner (no listener: REJECTED at
     * once; no such host: ADDR_ERROR after {@code RESOLVE_TIMEOUT_MS}), but a connect request
     * that nobody answers is retransmitted by the IB CM 15 times with a ~4 s response timeout
     * each (over a minute), and a request lost in a way the CM never learns of is never
     * answered at all; this bound makes every such case end. Generous next to a set-up that
     * works (well under a second even under qemu's emulation).
     */
    static final long CONNECT_NANOS = 30_000_000_000L;
    private static final long RX_BIT = 1L << 32;
    private static final long SEND_FLAGS = Fi.FI_SEND | Fi.FI_MSG;
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final int IOV_LIMIT = 4;
    /** A transmit status meaning "failed before the device had it": the errno is in txError. */
    private static final int LOCAL_FAILURE = -1;

    private final VerbsDomain domain;
    private final Info info;
    private final int txDepth;
    private final int rxDepth;
    private final int batch;
    private final boolean source;
    private final boolean sourceErr;
    /**
     * RDM endpoints of this device offer RMA ({@link VerbsInfos#RDM_RMA_ON_IWARP}): only then do
     * its connections ask for RDMA read depths (on iWARP they stay as they were before RMA).
     */
    private final boolean rmaHere;
    /** The endpoint's caps allow RMA / atomics (an info without caps allows everything offered). */
    private final boolean rmaCap;
    private final boolean atomicCap;
    /**
     * The device is iWARP: writes are confirmed by a read ({@link RmaSlots}), {@code FI_FENCE} is
     * kept by this endpoint, and operations a dead connection left without a completion are
     * swept ({@link RdmConnection#sweepAt}).
     */
    private final boolean iwarp;
    /** {@link #CONNECT_NANOS}, shorter in tests ({@link #connectTimeout}); under this. */
    private long connectNanos = CONNECT_NANOS;

    // ---- bindings (control path, under this; the data path's copies of what bindings holds)
    private final EndpointBindings bindings;
    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private UtilCounter sendCntr;
    private UtilCounter recvCntr;
    private UtilCounter readCntr;
    private UtilCounter writeCntr;
    private UtilAddressVector av;
    private boolean selectiveTx;
    private boolean selectiveRx;
    private boolean enabled;

    // ---- native resources (under this)
    private CmChannel cm;
    private long listenId;
    private byte[] name;
    private long cq;
    private long srq;
    private CqPoller poller;
    private RecvChain recvChain;
    private LocalBuffers buffers;
    private NativeBlock connBlock;

    // ---- connections (under this)
    /** Every connection not released yet (lookup by id and by qp_num). */
    private final List<RdmConnection> connections = new ArrayList<>();
    /** The connection whose chain holds work requests staged with FI_MORE, or null. */
    private RdmConnection staging;
    /** The last connection a receive completion named (most completions come from the same peer). */
    private RdmConnection lastRx;

    // ---- transmit slots (under this)
    private final Object[] txContext;
    private final long[] txFlags;
    private final boolean[] txReport;
    private final boolean[] txBusy;
    private final int[] txReg;
    private final RdmConnection[] txConn;
    /** What each slot's work request targets and the multi-work-request steps of RMA and atomics. */
    private final RmaSlots rma;
    /** Reads and fetches into heap buffers (or atomics' bounce slot): copied out of the bounce slot on success. */
    private final ByteBuffer[] txResult;
    private final int[] txResultLen;
    private final int[] txSendFlags;
    private final int[] txImm;
    private final int[] txSges;
    private final long[] txSgeAddr;
    private final int[] txSgeLen;
    private final int[] txSgeLkey;
    /** Next slot in its connection's wait queue, or -1. */
    private final int[] txNext;
    private final int[] txFree;
    private int txFreeCount;

    // ---- receive slots (under this)
    /** The receive slots (shared logic with MSG endpoints); used under this endpoint's monitor. */
    private final ReceiveSlots rx;

    VerbsRdmEndpoint(VerbsDomain domain, Info info, Object context) {
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
        this.source = (caps & Fi.FI_SOURCE) != 0;
        this.sourceErr = source && (caps & Fi.FI_SOURCE_ERR) != 0;
        this.iwarp = domain.port().iwarp();
        this.rmaHere = !iwarp || VerbsInfos.RDM_RMA_ON_IWARP;
        this.rmaCap = rmaHere && (caps == 0 || (caps & Fi.FI_RMA) != 0);
        this.atomicCap = rmaHere && (caps == 0 || (caps & Fi.FI_ATOMIC) != 0);
        this.bindings = new EndpointBindings(domain.engine(), VerbsEndpoint.COUNTER_ROLES);
        this.txContext = new Object[txDepth];
        this.txFlags = new long[txDepth];
        this.txReport = new boolean[txDepth];
        this.txBusy = new boolean[txDepth];
        this.txReg = new int[txDepth];
        this.txConn = new RdmConnection[txDepth];
        this.rma = new RmaSlots(txDepth, iwarp && domain.provider().iwarpWriteConfirm());
        this.txResult = new ByteBuffer[txDepth];
        this.txResultLen = new int[txDepth];
        this.txSendFlags = new int[txDepth];
        this.txImm = new int[txDepth];
        this.txSges = new int[txDepth];
        this.txSgeAddr = new long[txDepth * IOV_LIMIT];
        this.txSgeLen = new int[txDepth * IOV_LIMIT];
        this.txSgeLkey = new int[txDepth * IOV_LIMIT];
        this.txNext = new int[txDepth];
        this.txFree = new int[txDepth];
        for (int i = 0; i < txDepth; i++) {
            txFree[i] = txDepth - 1 - i;
        }
        this.txFreeCount = txDepth;
        this.rx = new ReceiveSlots(domain, rxDepth, txDepth); // bounce slots: transmit first, then receive
    }

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
     * {@code FI_READ}, {@code FI_WRITE}: {@link VerbsEndpoint#COUNTER_ROLES}), the AV (required before {@code enable}) and an EQ (accepted; RDM endpoints raise
     * no events), with the rules of {@link EndpointBindings}; each retained until close (R9).
     *
     * @throws FabricException {@code EINVAL} for a foreign object, wrong flags or a second bind;
     *         {@code EOPBADSTATE} after {@code enable}
     */
    @Override
    public synchronized void bind(Fid fid, long flags) throws FabricException {
        ensureOpen("bind");
        bindings.bind(fid, flags);
        txCq = bindings.txCq();
        rxCq = bindings.rxCq();
        selectiveTx = bindings.selectiveTx();
        selectiveRx = bindings.selectiveRx();
        av = bindings.av();
        if (av instanceof VerbsAddressVector v && v == fid) {
            v.addRemovalListener(this);
        }
        sendCntr = bindings.counter(Fi.FI_SEND);
        recvCntr = bindings.counter(Fi.FI_RECV);
        readCntr = bindings.counter(Fi.FI_READ);
        writeCntr = bindings.counter(Fi.FI_WRITE);
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
        if (txCq == null || rxCq == null) {
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
        cm = domain.verbsFabric().cm();
        try {
            cq = Ibv.ibv_create_cq(domain.deviceContext(), txDepth + rxDepth, 0, domain.compChannel(), 0);
            if (cq == 0) {
                throw new FabricException(Errno.ENOMEM, "enable: ibv_create_cq(" + (txDepth + rxDepth)
                        + ") failed (errno " + Native.getLastError() + ")");
            }
            try (NativeBlock attr = new NativeBlock(IbvSrqInitAttrDescriptor.SIZE)) {
                attr.clear();
                attr.view().putInt(IbvSrqInitAttrDescriptor.ATTR_MAX_WR, rxDepth);
                attr.view().putInt(IbvSrqInitAttrDescriptor.ATTR_MAX_SGE, 2); // the buffer and the overflow area
                srq = Ibv.ibv_create_srq(domain.pd(), attr.address());
                if (srq == 0) {
                    throw new FabricException(Errno.ENOMEM, "enable: ibv_create_srq(" + rxDepth + " work requests)"
                            + " failed (errno " + Native.getLastError() + ")");
                }
            }
            poller = new CqPoller(cq, batch);
            recvChain = new RecvChain(Math.min(32, rxDepth), 2);
            recvChain.sharedQueue(srq);
            buffers = new LocalBuffers(domain.pd(), txDepth + rxDepth);
            rx.enable(rxCq, recvCntr, selectiveRx, buffers);
            connBlock = new NativeBlock(RdmaConnParamDescriptor.SIZE + ConnData.MAX_FRAME
                    + IbvQpInitAttrDescriptor.SIZE);
            listen(src);
        } catch (FabricException e) {
            releaseNative();
            throw e;
        } catch (RuntimeException e) {
            releaseNative();
            throw new FabricException(Errno.ENOMEM, "enable: " + e.getMessage(), e);
        }
        bindings.seal();
        domain.attach(this);
        enabled = true;
    }

    private void listen(byte[] src) throws FabricException {
        long newId = cm.createId(this);
        try (NativeBlock sa = new NativeBlock(128)) {
            Sockaddrs.put(src, sa);
            if (Rdmacm.rdma_bind_addr(newId, sa.address()) != 0) {
                int errno = Native.getLastError();
                cm.destroyId(newId);
                throw new FabricException(errno == Errno.EADDRINUSE ? Errno.EADDRINUSE : Errno.EADDRNOTAVAIL,
                        "enable: rdma_bind_addr(" + Addresses.toString(src) + ") failed (errno " + errno + ")");
            }
            if (Rdmacm.rdma_listen(newId, 128) != 0) {
                int errno = Native.getLastError();
                cm.destroyId(newId);
                throw new FabricException(Errno.EIO, "enable: rdma_listen failed (errno " + errno + ")");
            }
        }
        listenId = newId;
        byte[] bound = Sockaddrs.get(listenId + RdmaCmIdDescriptor.ROUTE_ADDR_SRC_ADDR);
        if (bound == null) {
            throw new FabricException(Errno.EADDRNOTAVAIL, "enable: the listener has no address");
        }
        if (bound.length == Sockaddrs.IN && bound[4] == 0 && bound[5] == 0 && bound[6] == 0 && bound[7] == 0) {
            // a wildcard listener: the name peers reach it by is the device's own address
            List<byte[]> local = DeviceAddresses.of(domain.port().device());
            if (!local.isEmpty()) {
                System.arraycopy(local.get(0), 4, bound, 4, 4);
            }
        }
        name = bound;
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
        if (name == null) {
            throw new FabricException(Errno.EOPBADSTATE, "getName: an RDM endpoint has its name once enabled");
        }
        return name.clone();
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

    // =================================================================== connections

    /** The connection that carries sends to {@code peer} (live, not receive-only), or null. */
    private RdmConnection sendConnectionOf(byte[] peer) {
        for (int i = 0; i < connections.size(); i++) {
            RdmConnection c = connections.get(i);
            if (c.live() && !c.receiveOnly && Arrays.equals(c.peerName, peer)) {
                return c;
            }
        }
        return null;
    }

    /**
     * The connection for sends to {@code dest}, connecting one if there is none; null when
     * {@code dest} is not in the AV. Allocation-free once connected (cached per AV change count).
     */
    private RdmConnection connectionFor(long dest) {
        long version = av.changeCount();
        for (int i = 0; i < connections.size(); i++) {
            RdmConnection c = connections.get(i);
            if (c.destFiAddr == dest && c.destVersion == version && c.live() && !c.receiveOnly) {
                return c;
            }
        }
        byte[] peer = av.addressOf(dest);
        if (peer == null) {
            return null;
        }
        RdmConnection c = sendConnectionOf(peer);
        if (c == null) {
            c = new RdmConnection(peer.clone(), true, RdmConnection.CONNECTING);
            c.chain = new SendChain(Math.min(32, txDepth), IOV_LIMIT);
            connections.add(c);
            startConnect(c);
        }
        c.destFiAddr = dest;
        c.destVersion = version;
        return c;
    }

    /**
     * Starts the active set-up of {@code c}: address resolution from the listener's address,
     * within {@link #connectNanos}; failures fail it. A loopback peer name fails at once with
     * {@code EHOSTUNREACH}: from the device's address rdma_cm resolves it and sends the connect
     * request towards {@code ::ffff:127.0.0.1}, which leaves through {@code lo} where no RDMA
     * device takes it, and no event ever says so (seen on rxe: nothing for over 100 s).
     */
    private void startConnect(RdmConnection c) {
        c.state = RdmConnection.CONNECTING;
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "connect");
        }
        c.connectDeadline = System.nanoTime() + connectNanos;
        if (Sockaddrs.isLoopback(c.peerName)) {
            connectionFailed(c, Errno.EHOSTUNREACH);
            return;
        }
        long newId;
        try {
            newId = cm.createId(this);
        } catch (FabricException e) {
            connectionFailed(c, e.errno());
            return;
        }
        try (NativeBlock dst = new NativeBlock(128); NativeBlock src = new NativeBlock(128)) {
            Sockaddrs.put(c.peerName, dst);
            Sockaddrs.put(name, src);
            src.view().putShort(2, (short) 0); // any local port: the connection is not the listener
            if (Rdmacm.rdma_resolve_addr(newId, src.address(), dst.address(), RESOLVE_TIMEOUT_MS) != 0) {
                cm.destroyId(newId);
                connectionFailed(c, Errno.EHOSTUNREACH);
                return;
            }
        }
        c.id = newId;
        c.token = CmChannel.tokenOf(newId);
    }

    /** For tests: the bound on a connection's set-up from now on (default {@link #CONNECT_NANOS}). */
    synchronized void connectTimeout(long nanos) {
        connectNanos = nanos;
    }

    /** A connect request on the listener: the hello names the peer; accept, or reject a crossed connect. */
    private void onConnectRequest(long reqId, byte[] privateData) {
        byte[] hello = ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length);
        byte[] peer = RdmHelloDescriptor.kind(hello) == RdmHelloDescriptor.HELLO ? RdmHelloDescriptor.name(hello) : null;
        if (peer == null || !enabled) {
            reject(reqId, RdmHelloDescriptor.REJECT_BAD_HELLO);
            return;
        }
        if (new Pointer(reqId).getLong(RdmaCmIdDescriptor.VERBS) != domain.deviceContext()) {
            reject(reqId, RdmHelloDescriptor.REJECT_BAD_HELLO); // arrived through another device
            return;
        }
        RdmConnection existing = Arrays.equals(peer, name) ? null : sendConnectionOf(peer);
        RdmConnection c = new RdmConnection(peer, false, RdmConnection.ACCEPTING);
        if (Arrays.equals(peer, name)) {
            c.receiveOnly = true; // a send to oneself: the initiating end sends, this end receives
        } else if (existing == null) {
            // nothing towards this peer yet: this connection carries our sends too
        } else if (existing.active && (existing.state == RdmConnection.PARKED
                || (existing.state == RdmConnection.CONNECTING && Arrays.compareUnsigned(peer, name) < 0))) {
            // crossed connects: the lower name's connection is kept; ours never carried anything,
            // its queued sends move over in order
            moveWaiting(existing, c);
            abandon(existing);
        } else if (existing.state == RdmConnection.CONNECTING) {
            if (RdmTrace.ON) {
                RdmTrace.log(name, existing, "crossed: the peer's request refused, ours is kept");
            }
            reject(reqId, RdmHelloDescriptor.REJECT_CROSSED); // ours (the lower name's) is kept
            return;
        } else {
            c.receiveOnly = true; // a second connection while one is up: a standby (receives now, sends later)
        }
        c.chain = new SendChain(Math.min(32, txDepth), IOV_LIMIT);
        c.connectDeadline = System.nanoTime() + connectNanos;
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "accept" + (existing == null ? "" : ", existing conn@"
                    + Integer.toHexString(System.identityHashCode(existing)) + " state " + existing.state));
        }
        c.token = cm.adopt(reqId, this);
        c.id = reqId;
        connections.add(c);
        int rc = createQueuePair(c);
        writeConnParam(RdmHelloDescriptor.encode(RdmHelloDescriptor.HELLO, name));
        if (rc != 0 || Rdmacm.rdma_accept(reqId, connBlock.address()) != 0) {
            connectionFailed(c, Errno.ECONNREFUSED);
        }
    }

    private static void reject(long reqId, int kind) {
        byte[] hello = RdmHelloDescriptor.encode(kind, null);
        try (NativeBlock data = new NativeBlock(ConnData.MAX_FRAME)) {
            int n = ConnData.write(hello, data.view(), 0);
            Rdmacm.rdma_reject(reqId, data.address(), (byte) n);
        }
        // never adopted: the id still carries the listener's token, so destroy it directly
        Rdmacm.rdma_destroy_id(reqId);
    }

    /** Moves the sends queued on {@code from} to the end of {@code to}'s queue, in order. */
    private void moveWaiting(RdmConnection from, RdmConnection to) {
        if (RdmTrace.ON) {
            RdmTrace.log(name, from, "crossed: " + from.waitCount + " queued move to conn@"
                    + Integer.toHexString(System.identityHashCode(to)));
        }
        for (int slot = from.waitHead; slot >= 0; slot = txNext[slot]) {
            txConn[slot] = to;
        }
        if (from.waitCount == 0) {
            return;
        }
        if (to.waitCount == 0) {
            to.waitHead = from.waitHead;
        } else {
            txNext[to.waitTail] = from.waitHead;
        }
        to.waitTail = from.waitTail;
        to.waitCount += from.waitCount;
        from.waitHead = -1;
        from.waitTail = -1;
        from.waitCount = 0;
    }

    /**
     * Drops a connection superseded by the peer's (it never carried anything): its id and
     * queue pair go now, or, when its connect request is out (a queue pair exists only once
     * {@code rdma_connect} is called), when the request is answered ({@link RdmConnection#ABANDONED}).
     */
    private void abandon(RdmConnection c) {
        if (c.active && c.state == RdmConnection.CONNECTING && c.qp != 0) {
            c.state = RdmConnection.ABANDONED;
            if (RdmTrace.ON) {
                RdmTrace.log(name, c, "abandoned: released when its connect request is answered");
            }
            return;
        }
        c.state = RdmConnection.DOWN;
        release(c);
    }

    /**
     * An event of an {@link RdmConnection#ABANDONED} connection: once its connect request is
     * answered it goes (established — the peer took it as a standby — is disconnected first);
     * the id's destroy no longer waits.
     */
    private void onAbandonedEvent(RdmConnection c, int event) {
        switch (event) {
            case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED:
                Rdmacm.rdma_disconnect(c.id);
                release(c);
                break;
            case VerbsConstants.RDMA_CM_EVENT_REJECTED:
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_UNREACHABLE:
            case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED:
            case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL:
                release(c);
                break;
            default:
                break;
        }
    }

    /** Creates the RC queue pair of {@code c} on its id (shared CQ and SRQ); 0 or an errno. */
    private int createQueuePair(RdmConnection c) {
        if (new Pointer(c.id).getLong(RdmaCmIdDescriptor.VERBS) != domain.deviceContext()) {
            return Errno.EINVAL; // the address routes through another device than this domain's
        }
        ByteBuffer v = connBlock.view();
        int at = RdmaConnParamDescriptor.SIZE + ConnData.MAX_FRAME;
        for (int i = 0; i < IbvQpInitAttrDescriptor.SIZE; i++) {
            v.put(at + i, (byte) 0);
        }
        v.putLong(at + IbvQpInitAttrDescriptor.SEND_CQ, cq);
        v.putLong(at + IbvQpInitAttrDescriptor.RECV_CQ, cq);
        v.putLong(at + IbvQpInitAttrDescriptor.SRQ, srq);
        // every transmit slot may be posted on one connection
        v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_SEND_WR, txDepth);
        v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_SEND_SGE, Math.min(IOV_LIMIT, domain.port().maxSge()));
        v.putInt(at + IbvQpInitAttrDescriptor.QP_TYPE, VerbsConstants.IBV_QPT_RC);
        if (Rdmacm.rdma_create_qp(c.id, domain.pd(), connBlock.address(at)) != 0) {
            return Errno.ENOMEM;
        }
        c.qp = new Pointer(c.id).getLong(RdmaCmIdDescriptor.QP);
        domain.provider().asyncEvents().watch(c.qp, this);
        c.qpNum = new Pointer(c.qp).getInt(IbvQpDescriptor.QP_NUM);
        c.chain.queuePair(c.qp);
        return 0;
    }

    /** The connection parameters with {@code hello} as private data, framed ({@link ConnData}). */
    private void writeConnParam(byte[] hello) {
        ByteBuffer v = connBlock.view();
        for (int i = 0; i < RdmaConnParamDescriptor.SIZE; i++) {
            v.put(i, (byte) 0);
        }
        int dataAt = RdmaConnParamDescriptor.SIZE;
        int n = ConnData.write(hello, v, dataAt);
        v.putLong(RdmaConnParamDescriptor.PRIVATE_DATA, connBlock.address(dataAt));
        v.put(RdmaConnParamDescriptor.PRIVATE_DATA_LEN, (byte) n);
        if (rmaHere) {
            RmaSlots.readDepth(v, domain.port()); // peers' reads and atomics are answered (remote access)
        }
        v.put(RdmaConnParamDescriptor.RETRY_COUNT, (byte) 7);
        // retry for ever while the peer's shared receive queue is empty: delivered once it posts
        v.put(RdmaConnParamDescriptor.RNR_RETRY_COUNT, (byte) 7);
    }

    /** rdma_cm events of the listener and of every connection (CM thread). */
    @Override
    public void onCmEvent(long cmId, long token, int event, int status, byte[] privateData) {
        synchronized (this) {
            if (state() == CLOSED || isDeparted() || cq == 0) {
                if (event == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
                    reject(cmId, RdmHelloDescriptor.REJECT_BAD_HELLO);
                }
                return;
            }
            if (event == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
                onConnectRequest(cmId, privateData);
                return;
            }
            RdmConnection c = connectionOfId(cmId, token);
            if (c == null) {
                return;
            }
            if (RdmTrace.ON) {
                RdmTrace.log(name, c, "cm event " + event + " status " + status);
            }
            if (c.state == RdmConnection.ABANDONED) {
                onAbandonedEvent(c, event);
                return;
            }
            switch (event) {
                case VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED:
                    if (Rdmacm.rdma_resolve_route(c.id, RESOLVE_TIMEOUT_MS) != 0) {
                        connectionFailed(c, Errno.EHOSTUNREACH);
                    }
                    break;
                case VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED: {
                    int rc = createQueuePair(c);
                    if (rc != 0) {
                        // EINVAL: the route leaves through another device than this domain's
                        connectionFailed(c, rc == Errno.EINVAL ? Errno.EHOSTUNREACH : rc);
                        break;
                    }
                    writeConnParam(RdmHelloDescriptor.encode(RdmHelloDescriptor.HELLO, name));
                    if (Rdmacm.rdma_connect(c.id, connBlock.address()) != 0) {
                        connectionFailed(c, Errno.ECONNREFUSED);
                    }
                    break;
                }
                case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED:
                    if (c.state == RdmConnection.CONNECTING || c.state == RdmConnection.ACCEPTING) {
                        c.state = RdmConnection.CONNECTED;
                        flushWaiting(c);
                    }
                    break;
                case VerbsConstants.RDMA_CM_EVENT_REJECTED: {
                    byte[] hello = ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length);
                    if (RdmHelloDescriptor.kind(hello) == RdmHelloDescriptor.REJECT_CROSSED && c.active) {
                        park(c);
                    } else {
                        connectionFailed(c, Errno.ECONNREFUSED);
                    }
                    break;
                }
                case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED:
                case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL:
                case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR:
                case VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR:
                case VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR:
                case VerbsConstants.RDMA_CM_EVENT_UNREACHABLE:
                    if (c.state == RdmConnection.CONNECTED) {
                        peerDown(c);
                    } else if (c.state != RdmConnection.DOWN) {
                        connectionFailed(c, setupErrno(event));
                    }
                    break;
                default:
                    break; // timewait exit, address change: nothing to do
            }
        }
    }

    /**
     * What the sends queued on a connection whose set-up ended with rdma_cm {@code event}
     * complete with: no route to the peer's name (address or route errors) →
     * {@code EHOSTUNREACH}; the connect request unanswered (unreachable, connect error) →
     * {@code ETIMEDOUT}; the device gone → {@code ENODEV}; the peer ended it before it was up →
     * {@code ECONNREFUSED}.
     */
    static int setupErrno(int event) {
        switch (event) {
            case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR:
                return Errno.EHOSTUNREACH;
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_UNREACHABLE:
                return Errno.ETIMEDOUT;
            case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL:
                return Errno.ENODEV;
            default:
                return Errno.ECONNREFUSED;
        }
    }

    /**
     * The connection whose id {@code cmId} is, or null: matched with the token too, because a
     * connection ended here destroys its id (under this lock) while the CM thread may hold an
     * event of it, read before the destroy and waiting for this lock; the next connection's
     * id is often allocated at the same address, and that stale event (typically the
     * DISCONNECTED of the old connection) must not end the new one.
     */
    private RdmConnection connectionOfId(long cmId, long token) {
        for (int i = 0; i < connections.size(); i++) {
            RdmConnection c = connections.get(i);
            if (c.id == cmId && c.token == token) {
                return c;
            }
        }
        return null;
    }

    private RdmConnection connectionOfQp(int qpNum) {
        RdmConnection last = lastRx;
        if (last != null && last.qpNum == qpNum && last.qp != 0) {
            return last;
        }
        for (int i = 0; i < connections.size(); i++) {
            RdmConnection c = connections.get(i);
            if (c.qp != 0 && c.qpNum == qpNum) {
                lastRx = c;
                return c;
            }
        }
        return null;
    }

    /** Refused as the higher name of a crossed connect: keep the queued sends for the peer's connection. */
    private void park(RdmConnection c) {
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "parked (crossed: refused by the lower name)");
        }
        destroyNative(c);
        c.state = RdmConnection.PARKED;
        c.parkDeadline = System.nanoTime() + PARK_NANOS;
    }

    /** Connection set-up failed: its queued sends fail with {@code err}; the next send connects again. */
    private void connectionFailed(RdmConnection c, int err) {
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "failed, errno " + err);
        }
        c.state = RdmConnection.DOWN;
        sweepLater(c);
        c.failure = err;
        failWaiting(c, err);
        if (c.outstanding == 0) {
            release(c);
        }
    }

    /**
     * The device reported an error of one connection's queue pair that no work completion
     * carries ({@link AsyncEvents}): that connection ends as if the peer had gone (its pending
     * sends fail with {@code ECONNRESET}, the next send connects again); the others live on.
     */
    @Override
    public synchronized void onQueuePairError(long qp, int eventType) {
        for (int i = 0; i < connections.size(); i++) {
            RdmConnection c = connections.get(i);
            if (c.qp == qp && qp != 0) {
                if (c.state == RdmConnection.CONNECTED) {
                    peerDown(c);
                }
                return;
            }
        }
    }

    /**
     * The peer disconnected or died: disconnect too, so that the work requests still on the
     * queue pair flush (they complete with ECONNRESET); queued sends fail the same way; a
     * standby connection from that peer takes over its sends.
     */
    private void peerDown(RdmConnection c) {
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "down");
        }
        Rdmacm.rdma_disconnect(c.id);
        c.state = RdmConnection.DOWN;
        c.peerGone = true;
        sweepLater(c);
        failWaiting(c, Errno.ECONNRESET);
        if (!c.receiveOnly) {
            for (int i = 0; i < connections.size(); i++) {
                RdmConnection s = connections.get(i);
                if (s != c && s.receiveOnly && s.state == RdmConnection.CONNECTED && Arrays.equals(s.peerName, c.peerName)
                        && !Arrays.equals(s.peerName, name)) {
                    s.receiveOnly = false;
                    if (RdmTrace.ON) {
                        RdmTrace.log(name, s, "the standby takes over the sends");
                    }
                    break;
                }
            }
        }
        if (c.outstanding == 0) {
            release(c);
        }
    }

    /** iWARP: what {@code c} (just gone down) has posted is completed here if the device does not flush it ({@link RdmConnection#sweepAt}). */
    private void sweepLater(RdmConnection c) {
        if (iwarp && c.outstanding > 0 && c.sweepAt == 0) {
            c.sweepAt = Math.max(1, System.nanoTime() + VerbsEndpoint.SWEEP_DELAY_NANOS);
        }
    }

    /**
     * iWARP, {@code c} down for {@link VerbsEndpoint#SWEEP_DELAY_NANOS} and the CQ drained: its
     * operations still without a completion never get one, so they complete here as the device
     * would have flushed them (an unconfirmed write {@code EIO}, R14: nothing pending is lost).
     */
    private void sweep(RdmConnection c) {
        c.sweepAt = 0;
        for (int slot = 0; slot < txDepth && c.outstanding > 0; slot++) {
            if (txBusy[slot] && txConn[slot] == c) {
                completeTx(slot, VerbsConstants.IBV_WC_WR_FLUSH_ERR);
            }
        }
    }

    private void failWaiting(RdmConnection c, int err) {
        int slot = c.waitHead;
        c.waitHead = -1;
        c.waitTail = -1;
        c.waitCount = 0;
        while (slot >= 0) {
            int next = txNext[slot];
            completeTxError(slot, err, 0);
            slot = next;
        }
    }

    /** Destroys the queue pair and the id of {@code c} (the endpoint keeps the object). */
    private void destroyNative(RdmConnection c) {
        if (staging == c) {
            staging = null;
        }
        if (c.id != 0) {
            if (c.qp != 0) {
                domain.provider().asyncEvents().unwatch(c.qp);
                Rdmacm.rdma_destroy_qp(c.id);
                c.qp = 0;
            }
            cm.destroyId(c.id);
            c.id = 0;
        }
    }

    /** Forgets {@code c}: native resources and staging memory go. */
    private void release(RdmConnection c) {
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "released");
        }
        destroyNative(c);
        if (c.chain != null) {
            c.chain.close();
            c.chain = null;
        }
        if (lastRx == c) {
            lastRx = null;
        }
        connections.remove(c);
    }

    /**
     * The connections' timers (progress, under this): parked connections whose peer's
     * connection did not come connect again; connections still not established at their
     * {@link RdmConnection#connectDeadline} fail with {@code ETIMEDOUT}. Backwards, as a
     * failed connection leaves the list.
     */
    private void connectionTimers() {
        long now = System.nanoTime();
        for (int i = connections.size() - 1; i >= 0; i--) {
            if (i >= connections.size()) {
                continue;
            }
            RdmConnection c = connections.get(i);
            if (c.state == RdmConnection.PARKED && now - c.parkDeadline >= 0) {
                startConnect(c);
            } else if ((c.state == RdmConnection.CONNECTING || c.state == RdmConnection.ACCEPTING)
                    && now - c.connectDeadline >= 0) {
                connectionFailed(c, Errno.ETIMEDOUT);
            } else if (c.state == RdmConnection.DOWN && c.sweepAt != 0 && now - c.sweepAt >= 0) {
                sweep(c);
            } else if (c.state == RdmConnection.ABANDONED && now - c.connectDeadline >= 0) {
                release(c); // its request never answered: the destroy may wait for rdma_cm's own bound
            }
        }
    }

    /**
     * {@code fi_av_remove} took {@code addrs} out of the bound AV (the remover's thread): every
     * connection to those peers ends (fi_av(3): a removed address is not used any more).
     * Established ones disconnect, so that the work requests on them flush ({@code ECANCELED},
     * as the peer did not go); sends waiting for a set-up fail with {@code ECANCELED}; the peer
     * sees a disconnect. A later send to the peer, once inserted again, connects again.
     */
    @Override
    public void removed(byte[][] addrs) {
        synchronized (this) {
            if (addrs == null || state() == CLOSED || isDeparted() || cq == 0) {
                return;
            }
            for (byte[] a : addrs) {
                if (a == null) {
                    continue;
                }
                for (int i = connections.size() - 1; i >= 0; i--) {
                    if (i >= connections.size()) {
                        continue;
                    }
                    RdmConnection c = connections.get(i);
                    if (!c.live() || !Arrays.equals(c.peerName, a)) {
                        continue;
                    }
                    if (c.state == RdmConnection.CONNECTED || c.state == RdmConnection.ACCEPTING) {
                        Rdmacm.rdma_disconnect(c.id); // the queue pair errors: posted work requests flush
                    }
                    connectionFailed(c, Errno.ECANCELED);
                }
            }
        }
    }

    /** For tests: the connections that carry sends (live, not receive-only), one per peer. */
    synchronized int sendConnections() {
        int n = 0;
        for (int i = 0; i < connections.size(); i++) {
            if (connections.get(i).live() && !connections.get(i).receiveOnly) {
                n++;
            }
        }
        return n;
    }

    // =================================================================== data path: transmit

    /** {@code fi_send} to {@code destAddr} (an fi_addr of the bound AV). */
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
     * {@link RmaSlots}): checks, the peer's connection (made on first use), a slot and CQ room,
     * the local buffers resolved into the slot's SGEs and the target recorded in the slot;
     * staged and posted at once when the connection is established and nothing waits before
     * it, else queued on the connection in order.
     */
    private synchronized int transmit(int kindAndOp, ByteBuffer buf, MemoryRegion desc, Msg msg, long data,
                                      boolean withData, long dest, long remoteAddr, long rkey, long compareAdd,
                                      long swap, Object context, long flags, ByteBuffer result, MemoryRegion resultDesc) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        rc = RmaSlots.check(kindAndOp, withData, !iwarp, remoteAddr, result);
        if (rc != 0) {
            return rc;
        }
        int kind = kindAndOp & 0xFF;
        boolean data0 = kind == K_SEND || kind == K_WRITE || kind == K_READ; // the ones with a payload
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        int iovs = msg == null ? 1 : msg.iovCount();
        if (iovs < 0 || iovs > IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        long length = 0;
        if (!data0) {
            length = 0;
        } else if (msg == null) {
            if (buf == null) {
                return -Errno.EINVAL;
            }
            length = buf.remaining();
        } else {
            for (int i = 0; i < iovs; i++) {
                if (msg.iov(i) == null) {
                    return -Errno.EINVAL;
                }
                length += msg.iov(i).remaining();
            }
        }
        // the one errno table (docs/ERRORS.md): a read lands in its buffers; inject_size is the advertised one
        rc = kind == K_READ ? PostChecks.landing(buf, msg, iovs, 0, info.epAttr().maxMsgSize())
                : PostChecks.transmit(length, inject, info.txAttr().injectSize(), info.epAttr().maxMsgSize());
        if (rc != 0) {
            return rc;
        }
        if (txFreeCount == 0) {
            return -Errno.EAGAIN;
        }
        if (iwarp && (flags & Fi.FI_FENCE) != 0 && txFreeCount < txDepth) {
            // FI_FENCE (R11) on iWARP, as on MSG endpoints: the operation waits until every
            // earlier one completed (siw leaves a read fenced by IBV_SEND_FENCE behind a write
            // pending for ever); what FI_MORE staged goes out, the caller progresses and retries
            if (staging != null) {
                postChain(staging, -1);
            }
            return -Errno.EAGAIN;
        }
        RdmConnection c = connectionFor(dest);
        if (c == null) {
            return -Errno.EINVAL; // not an fi_addr of the AV
        }
        rc = txCq.reserve();
        if (rc != 0) {
            return rc;
        }
        int slot = txFree[--txFreeCount];
        txReg[slot] = -1;
        txSges[slot] = 0;
        txResult[slot] = null;
        txFlags[slot] = rma.prepare(slot, kindAndOp, withData, remoteAddr, rkey, compareAdd, swap);
        if (c.state == RdmConnection.DOWN) {
            // the set-up failed at once (e.g. a loopback name): the operation ends as the queued
            // ones of a failed set-up do, with an error completion naming why
            txContext[slot] = context;
            txConn[slot] = null;
            txBusy[slot] = true;
            completeTxError(slot, c.failure, 0);
            return 0;
        }
        if (kind == K_FETCH) {
            rc = addLocal(slot, result, 8, resultDesc, 0, false, true);
        } else if (!data0) {
            // fetch-and-add without a result, or the swap: the old value lands in the bounce slot
            int k = slot * IOV_LIMIT;
            txSgeAddr[k] = buffers.bounceAddress(slot);
            txSgeLen[k] = 8;
            txSgeLkey[k] = buffers.bounceLkey();
            txSges[slot] = 1;
            if ((kindAndOp & RmaSlots.FETCHING) != 0) {
                txResult[slot] = result;
                txResultLen[slot] = 8;
            }
        } else if (msg == null) {
            if (length > 0) {
                rc = addLocal(slot, buf, (int) length, inject ? null : desc, 0, inject, kind == K_READ);
            }
        } else {
            int bounceUsed = 0;
            for (int i = 0; i < iovs && rc >= 0; i++) {
                ByteBuffer b = msg.iov(i);
                if (b.remaining() > 0) {
                    rc = addLocal(slot, b, b.remaining(), inject ? null : msg.desc(i), bounceUsed, inject,
                            kind == K_READ);
                    bounceUsed += Math.max(0, rc);
                }
            }
        }
        if (rc < 0) {
            if (txReg[slot] >= 0) {
                buffers.release(txReg[slot]);
            }
            txResult[slot] = null;
            txFree[txFreeCount++] = slot;
            txCq.unreserve();
            return rc;
        }
        int imm = withData ? (int) data : 0;
        if (withData && ByteOrder.nativeOrder() != ByteOrder.BIG_ENDIAN) {
            imm = Integer.reverseBytes(imm); // __be32 on the wire, as MSG endpoints send it
        }
        txSendFlags[slot] = VerbsConstants.IBV_SEND_SIGNALED
                | ((flags & Fi.FI_FENCE) != 0 && !iwarp ? VerbsConstants.IBV_SEND_FENCE : 0);
        txImm[slot] = imm;
        txContext[slot] = context;
        txReport[slot] = !inject && (!selectiveTx || (flags & Fi.FI_COMPLETION) != 0);
        txConn[slot] = c;
        txBusy[slot] = true;
        txNext[slot] = -1;
        if (c.state != RdmConnection.CONNECTED || c.waitCount > 0) {
            enqueue(c, slot);
            return 0;
        }
        stage(c, slot);
        if ((flags & Fi.FI_MORE) == 0 || c.chain.full()) {
            return postChain(c, slot);
        }
        return 0;
    }

    /**
     * One local buffer as an SGE of {@code slot}: a registration given as {@code desc}, the
     * registration cache for other direct buffers, else (heap buffers, inject) the slot's 4 KiB
     * bounce slot at {@code bounceAt} — copied in now, or with {@code copyBack} (the device
     * writes it: reads, fetches) copied out when the operation succeeded.
     *
     * @return bytes of the bounce slot used (0 when none), or a negative errno
     */
    private int addLocal(int slot, ByteBuffer b, int len, MemoryRegion desc, int bounceAt, boolean copy,
                         boolean copyBack) {
        int k = slot * IOV_LIMIT + txSges[slot];
        if (b.isDirect() && !copy) {
            long addr = buffers.addressOf(b) + b.position();
            long lkey;
            if (desc != null) {
                long[] reg = domain.registration(desc);
                if (reg == null) {
                    return -Errno.EINVAL;
                }
                lkey = reg[1];
            } else {
                lkey = buffers.lkey(b, addr, len);
                if (lkey < 0) {
                    return -Errno.EAGAIN;
                }
                if (txReg[slot] >= 0) {
                    return -Errno.EINVAL; // one cached registration per operation: register the others
                }
                txReg[slot] = buffers.lastEntry;
                buffers.hold(buffers.lastEntry);
            }
            txSgeAddr[k] = addr;
            txSgeLen[k] = len;
            txSgeLkey[k] = (int) lkey;
            txSges[slot]++;
            return 0;
        }
        if (bounceAt + len > LocalBuffers.BOUNCE || (copyBack && bounceAt > 0)) {
            return -Errno.EMSGSIZE; // a heap buffer read into: one per operation
        }
        long addr = buffers.bounceAddress(slot) + bounceAt;
        if (copyBack) {
            txResult[slot] = b;
            txResultLen[slot] = len;
        } else {
            buffers.copyInAt(addr, b, len);
        }
        txSgeAddr[k] = addr;
        txSgeLen[k] = len;
        txSgeLkey[k] = buffers.bounceLkey();
        txSges[slot]++;
        return len;
    }

    private void enqueue(RdmConnection c, int slot) {
        txNext[slot] = -1;
        if (c.waitCount == 0) {
            c.waitHead = slot;
        } else {
            txNext[c.waitTail] = slot;
        }
        c.waitTail = slot;
        c.waitCount++;
    }

    /** Stages {@code slot}'s work request on {@code c}'s chain (posting another connection's chain first). */
    private void stage(RdmConnection c, int slot) {
        if (staging != null && staging != c) {
            postChain(staging, -1);
        }
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "stage slot " + slot);
        }
        int wr = rma.stage(c.chain, slot, txSendFlags[slot], txImm[slot]);
        int base = slot * IOV_LIMIT;
        for (int i = 0; i < txSges[slot]; i++) {
            c.chain.sge(wr, txSgeAddr[base + i], txSgeLen[base + i], txSgeLkey[base + i]);
        }
        c.outstanding++;
        staging = c;
    }

    /** Posts {@code c}'s chain; the current operation ({@code currentSlot}) answers {@code -EAGAIN} if it was refused. */
    private int postChain(RdmConnection c, int currentSlot) {
        if (staging == c) {
            staging = null;
        }
        int n = c.chain.staged();
        int rc = c.chain.post(domain.ops());
        if (rc == 0) {
            return 0;
        }
        int result = 0;
        for (int i = c.chain.failedIndex(); i < n; i++) {
            int slot = (int) c.chain.wrId(i);
            c.outstanding--;
            if (slot == currentSlot) {
                freeTx(slot);
                txCq.unreserve();
                result = WcErrors.postRefused(rc);
            } else {
                // staged by an earlier call that returned 0: its failure is a completion
                completeTxError(slot, Errno.EIO, rc);
            }
        }
        return result;
    }

    /** The connection is established: the sends queued on it go out in order. */
    private void flushWaiting(RdmConnection c) {
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "established: posting what waits");
        }
        int slot = c.waitHead;
        c.waitHead = -1;
        c.waitTail = -1;
        c.waitCount = 0;
        while (slot >= 0) {
            int next = txNext[slot];
            stage(c, slot);
            if (c.chain.full()) {
                postChain(c, -1);
            }
            slot = next;
        }
        postChain(c, -1);
    }

    // =================================================================== data path: receive

    /** {@code fi_recv}: posted to the shared receive queue; takes the next message of any peer. */
    @Override
    public int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        int rc = PostChecks.landing(buf, null, 1, info.rxAttr().opFlags(), info.epAttr().maxMsgSize());
        if (rc != 0) {
            return rc;
        }
        return receive(buf, desc, context, info.rxAttr().opFlags());
    }

    /** {@code fi_recvmsg}: one iov; {@code FI_MULTI_RECV} is not offered. */
    @Override
    public int recvMsg(Msg msg, long flags) {
        if (msg == null || msg.iovCount() < 1 || msg.iovCount() > IOV_LIMIT) {
            return -Errno.EINVAL; // more than iov_limit: -EINVAL as on MSG (docs/ERRORS.md), not -ENOSYS below
        }
        int rc = PostChecks.flags(flags, PostChecks.RECV_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        rc = PostChecks.landing(null, msg, msg.iovCount(), flags, info.epAttr().maxMsgSize());
        if (rc != 0) {
            return rc;
        }
        if ((flags & Fi.FI_MULTI_RECV) != 0 || msg.iovCount() > 1) {
            return -Errno.ENOSYS;
        }
        return receive(msg.iov(0), msg.desc(0), msg.context(), flags);
    }

    private synchronized int receive(ByteBuffer b, MemoryRegion d, Object context, long flags) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        if (b == null) {
            return -Errno.EINVAL;
        }
        int slot = rx.reserve(b, d, context, flags);
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

    // =================================================================== not offered

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

    /** Drains the native CQ (the domain's engine calls it) and reconnects parked connections whose wait is over. */
    @Override
    public synchronized int pollCompletions() {
        if (poller == null) {
            return 0;
        }
        if (staging != null) {
            postChain(staging, -1); // FI_MORE left work requests staged: progress posts them
        }
        int n = poller.drain(domain.ops(), this, 4 * batch);
        if (n == 0) {
            connectionTimers();
        }
        return n;
    }

    /** Arms the native CQ for the completion channel. */
    @Override
    public synchronized void armCompletions() {
        if (poller != null) {
            poller.requestNotify(domain.ops());
        }
    }

    @Override
    public void onCompletion(long wrId, int status, int opcode, int byteLen, int immData, int wcFlags, int vendorErr,
                             int qpNum) {
        if ((wrId & RX_BIT) != 0) {
            completeRx((int) (wrId & 0xFFFFFFFFL), status, opcode, byteLen, immData, wcFlags, qpNum);
        } else {
            completeTx((int) wrId, status);
        }
    }

    private void completeTx(int slot, int status) {
        if (slot < 0 || slot >= txDepth || !txBusy[slot]) {
            return;
        }
        RdmConnection c = txConn[slot];
        if (c != null && c.chain != null) {
            // an iWARP write's flush read or the swap's next compare-and-swap: the same slot's
            // next work request on the same connection (it stays outstanding there)
            status = rma.step(slot, status, c.chain, buffers, domain.ops());
            if (status == RmaSlots.CONTINUED) {
                return;
            }
        }
        if (c != null) {
            c.outstanding--;
        }
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            if (txReg[slot] >= 0) {
                buffers.release(txReg[slot]);
            }
            ByteBuffer r = txResult[slot];
            if (r != null) {
                buffers.copyOut(slot, r, txResultLen[slot]);
            }
            UtilCounter counter = RmaSlots.counter(rma.kind(slot), sendCntr, readCntr, writeCntr);
            if (counter != null) {
                counter.increment();
            }
            if (txReport[slot]) {
                txCq.complete(txContext[slot], txFlags[slot], 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            } else {
                txCq.unreserve();
            }
            freeTx(slot);
        } else {
            // transport retries exceeded: the peer is gone (its DISCONNECTED may come later);
            // every failure towards a peer that went away is ECONNRESET (flushed ones too)
            if (c != null && status == VerbsConstants.IBV_WC_RETRY_EXC_ERR) {
                c.peerGone = true;
            }
            int err = c != null && c.peerGone ? Errno.ECONNRESET
                    : status >= RmaSlots.POST_FAILED ? Errno.EIO : WcErrors.errno(status);
            completeTxError(slot, err, status >= RmaSlots.POST_FAILED ? status - RmaSlots.POST_FAILED : status);
            if (c != null && c.state == RdmConnection.CONNECTED && status != VerbsConstants.IBV_WC_WR_FLUSH_ERR) {
                // a failed work completion leaves an RC queue pair in the error state (e.g. a
                // remote access error of an RMA with a wrong key or range): everything after it
                // on this connection would flush, so the connection ends now (its pending
                // operations ECONNRESET) and the next operation to the peer connects again
                peerDown(c);
            }
        }
        if (c != null && c.state == RdmConnection.DOWN && c.outstanding == 0 && c.waitCount == 0) {
            release(c);
        }
    }

    /** Completes {@code slot} with an error (its room was reserved) and frees it. */
    private void completeTxError(int slot, int err, int provErrno) {
        if (txReg[slot] >= 0) {
            buffers.release(txReg[slot]);
        }
        UtilCounter counter = RmaSlots.counter(rma.kind(slot), sendCntr, readCntr, writeCntr);
        if (counter != null) {
            counter.incrementError();
        }
        txCq.completeError(txContext[slot], txFlags[slot], 0, null, 0, 0, 0, 0, err, provErrno, null, 0,
                Fi.FI_ADDR_NOTAVAIL);
        freeTx(slot);
    }

    private void freeTx(int slot) {
        txBusy[slot] = false;
        txContext[slot] = null;
        txConn[slot] = null;
        txReg[slot] = -1;
        txResult[slot] = null;
        txFree[txFreeCount++] = slot;
    }

    /**
     * A receive slot's completion: its rules are {@link ReceiveSlots}'; a message names its
     * sender from the connection it came on ({@code qp_num}): {@code FI_SOURCE} its fi_addr,
     * {@code FI_SOURCE_ERR} its raw name when the AV does not hold it (R10).
     */
    private void completeRx(int slot, int status, int opcode, int byteLen, int immData, int wcFlags, int qpNum) {
        if (!rx.completing(slot)) {
            return;
        }
        if (status != VerbsConstants.IBV_WC_SUCCESS) {
            rx.completeFailed(slot, status);
            return;
        }
        RdmConnection c = connectionOfQp(qpNum);
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "receive slot " + slot + " from qp " + qpNum + ", " + byteLen + " bytes");
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

    // =================================================================== teardown

    /**
     * Ends everything: with {@code departing} pending operations complete with
     * {@code ECANCELED} (R15), on close their reserved room is given back (R9). Native resources
     * go in the order verbs needs: queue pairs and ids, listener, SRQ, CQ.
     */
    private void teardown(boolean departing) {
        domain.detach(this);
        if (av instanceof VerbsAddressVector v) {
            v.removeRemovalListener(this);
        }
        for (RdmConnection c : new ArrayList<>(connections)) {
            if (c.id != 0 && (c.state == RdmConnection.CONNECTED || c.state == RdmConnection.ACCEPTING)) {
                Rdmacm.rdma_disconnect(c.id);
            }
            c.waitHead = -1;
            c.waitTail = -1;
            c.waitCount = 0;
            release(c);
        }
        for (int slot = 0; slot < txDepth; slot++) {
            if (txBusy[slot]) {
                if (departing) {
                    txCq.completeError(txContext[slot], txFlags[slot], 0, null, 0, 0, 0, 0, departureError(), 0, null, 0,
                            Fi.FI_ADDR_NOTAVAIL);
                } else {
                    txCq.unreserve();
                }
                txBusy[slot] = false;
            }
        }
        rx.drain(departing, departureError());
        releaseNative();
        // once only (a close after a departure releases nothing more); a departed endpoint's
        // events stay on the EQ for the application to drain (R15)
        bindings.releaseAll(departing ? null : this);
    }

    private void releaseNative() {
        if (listenId != 0) {
            cm.destroyId(listenId);
            listenId = 0;
        }
        if (srq != 0) {
            Ibv.ibv_destroy_srq(srq);
            srq = 0;
        }
        if (cq != 0) {
            Ibv.ibv_destroy_cq(cq);
            cq = 0;
        }
        if (poller != null) {
            poller.close();
            poller = null;
        }
        if (recvChain != null) {
            recvChain.close();
            recvChain = null;
        }
        if (buffers != null) {
            buffers.close();
            buffers = null;
        }
        if (connBlock != null) {
            connBlock.close();
            connBlock = null;
        }
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
