package io.jofi.provider.verbs;

import static io.jofi.provider.verbs.RmaSlots.CSWAP;
import static io.jofi.provider.verbs.RmaSlots.K_ATOMIC;
import static io.jofi.provider.verbs.RmaSlots.K_FETCH;
import static io.jofi.provider.verbs.RmaSlots.K_READ;
import static io.jofi.provider.verbs.RmaSlots.K_SEND;
import static io.jofi.provider.verbs.RmaSlots.K_WRITE;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
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
import io.jofi.provider.verbs.binding.IbvQpInitAttrDescriptor;
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
import io.jofi.spi.util.UtilEventQueue;
import java.nio.ByteBuffer;

/**
 * An MSG endpoint of the verbs provider: an RC queue pair connected with rdma_cm
 * ({@code fi_endpoint(3)}, {@code fi_cm(3)}, {@code fi_msg(3)}, {@code fi_rma(3)},
 * {@code fi_atomic(3)}).
 *
 * <p><b>Connection.</b> Active: {@code connect} → {@code rdma_resolve_addr} → (address resolved)
 * {@code rdma_resolve_route} → (route resolved) queue pair created, {@code rdma_connect} with the
 * framed connection data ({@link ConnData}) → established: {@code FI_CONNECTED} with the
 * acceptor's data. Passive: opened with the {@link VerbsConnReq} of an {@code FI_CONNREQ} →
 * {@code accept}: queue pair created on the request's id, {@code rdma_accept} → established:
 * {@code FI_CONNECTED}. Events map as {@link CmEvents} says; {@code FI_SHUTDOWN} is raised
 * once per connection (local {@code shutdown} or the peer's disconnect), after which the queue
 * pair's outstanding work requests flush ({@code ECANCELED}).
 *
 * <p><b>Data path.</b> Every operation takes a slot (its wr_id) and reserves room in its CQ
 * (R6), is staged in preallocated native memory ({@link SendChain}, {@link RecvChain}) and
 * posted with one {@code post_send}/{@code post_recv} call ({@code FI_MORE} defers the post
 * and chains). Local buffers: a registration given as {@code desc}; else
 * {@link LocalBuffers} (registration cache for direct buffers, bounce slots for heap buffers).
 * Receive slots are {@link ReceiveSlots}, shared with RDM endpoints.
 * Receives posted before the queue pair exists wait in order and are posted when it is
 * created. Completions are polled in batches by the domain's engine ({@link #pollCompletions}).
 * Every work request is signalled, so that each slot is returned by its completion; entries
 * of operations without {@code FI_COMPLETION} on a selective endpoint are not reported
 * (their reserved room is given back), errors always are (R2).
 *
 * <p><b>Limits.</b> Immediate data is 32 bits (sent in network byte order, as libfabric's verbs
 * provider does). A receive too small for the message completes with {@code ETRUNC} but the
 * RC queue pair then goes to the error state (a verbs rule): the connection ends. Cancelling a
 * receive already handed to the device completes it with {@code ECANCELED} at once; a message
 * that later lands in it is dropped.
 *
 * <p><b>Threads.</b> One lock (this endpoint's monitor) guards slots, chains and connection
 * state; the progress thread takes it per poll, the application per operation.
 */
final class VerbsEndpoint extends AbstractFid
        implements Endpoint, CmHandler, CqPoller.Consumer, CompletionSource, AsyncEvents.Listener {
    private static final int IDLE = 0;
    private static final int RESOLVING = 1;
    private static final int CONNECTING = 2;
    private static final int ACCEPTING = 3;
    private static final int CONNECTED = 4;
    private static final int DOWN = 5;

    private static final long RX_BIT = 1L << 32;
    private static final long SEND_FLAGS = Fi.FI_SEND | Fi.FI_MSG;
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final int IOV_LIMIT = 4;

    private final VerbsDomain domain;
    private final Info info;
    private final VerbsConnReq request;
    private final int txDepth;
    private final int rxDepth;
    private final int batch;
    private final int inlineWanted;
    /** The endpoint's caps allow RMA / atomics (an info without caps allows everything offered). */
    private final boolean rmaCap;
    private final boolean atomicCap;

    // ---- bindings (control path, under this)
    /** The counter roles verbs counts: no FI_REMOTE_READ / FI_REMOTE_WRITE (no FI_RMA_EVENT). */
    static final long COUNTER_ROLES = Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE;
    /** fi_ep_bind's rules, retains and progress attach (util); the fields below are the data path's copies. */
    private final EndpointBindings bindings;
    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private UtilEventQueue eq;
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
    private long id;
    private long qp;
    private long cq;
    private CqPoller poller;
    private SendChain sendChain;
    private RecvChain recvChain;
    private LocalBuffers buffers;
    private NativeBlock connBlock;
    private int maxInline;

    // ---- connection (under this)
    private int state = IDLE;
    private boolean shutdownRaised;
    private byte[] peerName;
    /**
     * Set by the one {@link #teardown} (under this): a close after a departure (R15) finds the
     * native resources freed and the bindings released already, and must not release them twice.
     */
    private boolean tornDown;

    // ---- transmit slots (under this)
    private final Object[] txContext;
    private final long[] txFlags;
    private final boolean[] txReport;
    private final ByteBuffer[] txResult;
    private final int[] txResultLen;
    private final int[] txReg;
    /** The RMA/atomic side of each slot: opcode, target, operands, the swap loop and iWARP's write flush. */
    private final RmaSlots rma;
    /** The device is iWARP: writes are flushed by a read, FI_FENCE is kept by this endpoint. */
    private final boolean iwarp;
    /**
     * iWARP only: when the connection went down, the time ({@code System.nanoTime}) after which
     * work requests still without a completion are completed here ({@link #sweep}); 0 when
     * none is due. soft-iWARP flushes a user queue pair's queues once, when it enters the error
     * state, and leaves what is posted after that — e.g. a write's flush read posted in the
     * instant between the peer's terminate and this side's DISCONNECTED — in the user ring,
     * never completed; without the sweep such an operation would be pending for ever.
     */
    private long sweepAtNanos;
    /** How long after going down the device's own flush completions are waited for before the sweep. */
    static final long SWEEP_DELAY_NANOS = 200_000_000L;
    private final int[] txFree;
    private int txFreeCount;
    private final boolean[] txBusy;

    // ---- receive slots (under this)
    /** The receive slots (shared logic with RDM endpoints); used under this endpoint's monitor. */
    private final ReceiveSlots rx;
    /** Receives posted before the queue pair exists, in posting order (a ring of slots). */
    private final int[] rxWaiting;
    private int rxWaitHead;
    private int rxWaitCount;

    VerbsEndpoint(VerbsDomain domain, Info info, Object context) throws FabricException {
        super(FidClass.ENDPOINT, context);
        this.domain = domain;
        this.info = info.copy();
        this.request = (VerbsConnReq) info.handle();
        this.info.handle(null);
        VerbsProvider p = domain.provider();
        int max = Math.max(16, Math.min(p.queueSize(), domain.port().maxQpWr()));
        this.txDepth = clampDepth(info.txAttr().size(), max);
        this.rxDepth = clampDepth(info.rxAttr().size(), max);
        this.batch = p.pollBatch();
        this.inlineWanted = p.inlineSize();
        long caps = info.caps();
        this.rmaCap = caps == 0 || (caps & Fi.FI_RMA) != 0;
        this.atomicCap = caps == 0 || (caps & Fi.FI_ATOMIC) != 0;
        this.txContext = new Object[txDepth];
        this.txFlags = new long[txDepth];
        this.txReport = new boolean[txDepth];
        this.txResult = new ByteBuffer[txDepth];
        this.txResultLen = new int[txDepth];
        this.txReg = new int[txDepth];
        this.iwarp = domain.port().iwarp();
        this.rma = new RmaSlots(txDepth, iwarp && domain.provider().iwarpWriteConfirm());
        this.txBusy = new boolean[txDepth];
        this.txFree = new int[txDepth];
        for (int i = 0; i < txDepth; i++) {
            txFree[i] = txDepth - 1 - i;
        }
        this.txFreeCount = txDepth;
        this.rx = new ReceiveSlots(domain, rxDepth, txDepth); // bounce slots: transmit first, then receive
        this.rxWaiting = new int[rxDepth];
        this.bindings = new EndpointBindings(domain.engine(), COUNTER_ROLES);
    }

    private static int clampDepth(long asked, int max) {
        if (asked <= 0) {
            return max;
        }
        return (int) Math.max(1, Math.min(asked, max));
    }

    // =================================================================== control path

    /**
     * {@code fi_ep_bind}: a CQ ({@code FI_TRANSMIT}, {@code FI_RECV},
     * {@code FI_SELECTIVE_COMPLETION}), an EQ, a counter ({@code FI_SEND}, {@code FI_RECV},
     * {@code FI_READ}, {@code FI_WRITE}: {@link #COUNTER_ROLES}) or an AV (accepted, unused by
     * MSG endpoints), with the rules of {@link EndpointBindings}; each retained until close (R9).
     *
     * @throws FabricException {@code EINVAL} for a foreign object, wrong flags, a counter role
     *         this provider does not count or a second bind; {@code EOPBADSTATE} after
     *         {@code enable}
     */
    @Override
    public synchronized void bind(Fid fid, long flags) throws FabricException {
        ensureOpen("bind");
        bindings.bind(fid, flags);
        txCq = bindings.txCq();
        rxCq = bindings.rxCq();
        selectiveTx = bindings.selectiveTx();
        selectiveRx = bindings.selectiveRx();
        eq = bindings.eq();
        av = bindings.av();
        sendCntr = bindings.counter(Fi.FI_SEND);
        recvCntr = bindings.counter(Fi.FI_RECV);
        readCntr = bindings.counter(Fi.FI_READ);
        writeCntr = bindings.counter(Fi.FI_WRITE);
    }

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
        if (eq == null) {
            throw new FabricException(Errno.ENOEQ, "enable: an MSG endpoint needs a bound event queue");
        }
        if (txCq == null || rxCq == null) {
            throw new FabricException(Errno.ENOCQ, "enable: bind CQs for FI_TRANSMIT and FI_RECV first");
        }
        cm = domain.verbsFabric().cm();
        cq = Ibv.ibv_create_cq(domain.deviceContext(), txDepth + rxDepth, 0, domain.compChannel(), 0);
        if (cq == 0) {
            throw new FabricException(Errno.ENOMEM, "enable: ibv_create_cq(" + (txDepth + rxDepth)
                    + ") failed (errno " + Native.getLastError() + ")");
        }
        try {
            poller = new CqPoller(cq, batch);
            sendChain = new SendChain(Math.min(32, txDepth), IOV_LIMIT);
            recvChain = new RecvChain(Math.min(32, rxDepth), IOV_LIMIT);
            buffers = new LocalBuffers(domain.pd(), txDepth + rxDepth);
            rx.enable(rxCq, recvCntr, selectiveRx, buffers);
            connBlock = new NativeBlock(RdmaConnParamDescriptor.SIZE + ConnData.MAX_FRAME
                    + IbvQpInitAttrDescriptor.SIZE);
        } catch (RuntimeException e) {
            releaseNative();
            throw new FabricException(Errno.ENOMEM, "enable: " + e.getMessage(), e);
        }
        domain.attach(this);
        enabled = true;
        bindings.seal();
    }

    /** {@code fi_getname}: the local address of the connection, else the info's source address. */
    @Override
    public synchronized byte[] getName() throws FabricException {
        ensureOpen("getName");
        if (id != 0) {
            byte[] sa = Sockaddrs.get(id + RdmaCmIdDescriptor.ROUTE_ADDR_SRC_ADDR);
            if (sa != null) {
                return sa;
            }
        }
        if (info.srcAddr() == null) {
            throw new FabricException(Errno.EADDRNOTAVAIL, "getName: not connected and no source address");
        }
        return info.srcAddr().clone();
    }

    /** {@code fi_getpeer}: the peer's address once connecting or connected. */
    @Override
    public synchronized byte[] getPeer() throws FabricException {
        ensureOpen("getPeer");
        if (id != 0) {
            byte[] sa = Sockaddrs.get(id + RdmaCmIdDescriptor.ROUTE_ADDR_DST_ADDR);
            if (sa != null) {
                return sa;
            }
        }
        if (peerName != null) {
            return peerName.clone();
        }
        throw new FabricException(Errno.ENOTCONN, "getPeer: the endpoint is not connected");
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
        if (state != IDLE || request != null) {
            throw new FabricException(Errno.EINVAL, "connect: the endpoint is connecting, connected or was opened to accept");
        }
        if (addr == null || addr.length < Sockaddrs.IN) {
            throw new FabricException(Errno.EINVAL, "connect: a sockaddr of the peer is required");
        }
        if (param != null && param.length > ConnData.MAX_DATA) {
            throw new FabricException(Errno.EINVAL, "connect: " + param.length + " bytes of connection data exceed the "
                    + ConnData.MAX_DATA + " bytes rdma_cm carries");
        }
        writeConnParam(param);
        if (Sockaddrs.isLoopback(addr) && info.srcAddr() != null && !Sockaddrs.isLoopback(info.srcAddr())) {
            // from the device's address rdma_cm resolves a loopback peer but sends the connect
            // request towards ::ffff:127.0.0.1 through lo, where no RDMA device takes it, and no
            // event ever comes (rxe: nothing for over 100 s): end it now, as an error event (R14)
            peerName = addr.clone();
            fail(Errno.EHOSTUNREACH, 0, null);
            return;
        }
        long newId = cm.createId(this);
        try (NativeBlock dst = new NativeBlock(128); NativeBlock src = new NativeBlock(128)) {
            Sockaddrs.put(addr, dst);
            long srcAddr = 0;
            if (info.srcAddr() != null) {
                Sockaddrs.put(info.srcAddr(), src);
                srcAddr = src.address();
            }
            if (Rdmacm.rdma_resolve_addr(newId, srcAddr, dst.address(), RESOLVE_TIMEOUT_MS) != 0) {
                int errno = Native.getLastError();
                cm.destroyId(newId);
                throw new FabricException(Errno.EIO, "connect: rdma_resolve_addr failed (errno " + errno + ")");
            }
        }
        peerName = addr.clone();
        id = newId;
        state = RESOLVING;
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
        if (request == null || state != IDLE) {
            throw new FabricException(Errno.EINVAL, "accept: the endpoint was not opened from a connection request");
        }
        if (param != null && param.length > ConnData.MAX_DATA) {
            throw new FabricException(Errno.EINVAL, "accept: " + param.length + " bytes of connection data exceed "
                    + ConnData.MAX_DATA);
        }
        if (!request.pep.take(request)) {
            throw new FabricException(Errno.EINVAL, "accept: the connection request was accepted or rejected already");
        }
        id = request.id;
        cm.adopt(id, this);
        writeConnParam(param);
        int rc = createQueuePair();
        if (rc != 0) {
            throw new FabricException(rc, "accept: the queue pair could not be created (" + Errno.strerror(rc) + ")");
        }
        if (Rdmacm.rdma_accept(id, connBlock.address()) != 0) {
            throw new FabricException(Errno.EIO, "accept: rdma_accept failed (errno " + Native.getLastError() + ")");
        }
        state = ACCEPTING;
    }

    /** {@code fi_shutdown}: disconnects; {@code FI_SHUTDOWN} once; outstanding work requests flush. */
    @Override
    public synchronized void shutdown(long flags) throws FabricException {
        ensureOpen("shutdown");
        if (state == DOWN) {
            return;
        }
        if (state == IDLE) {
            throw new FabricException(Errno.ENOTCONN, "shutdown: the endpoint is not connected");
        }
        Rdmacm.rdma_disconnect(id);
        down(true);
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
        if (errorQp != qp || qp == 0 || state == DOWN || state == IDLE) {
            return; // an event of a queue pair that is already gone
        }
        Rdmacm.rdma_disconnect(id);
        down(true);
    }

    /** Goes DOWN; with {@code raise} the connection's one {@code FI_SHUTDOWN} (R14). */
    private void down(boolean raise) {
        boolean wasUp = state == CONNECTED;
        state = DOWN;
        if (iwarp && sweepAtNanos == 0) {
            sweepAtNanos = Math.max(1, System.nanoTime() + SWEEP_DELAY_NANOS);
        }
        if (raise && wasUp && !shutdownRaised && eq != null) {
            shutdownRaised = true;
            eq.post(Fi.FI_SHUTDOWN, this, context(), 0, null, null, 0);
        }
    }

    private void writeConnParam(byte[] param) {
        ByteBuffer v = connBlock.view();
        for (int i = 0; i < RdmaConnParamDescriptor.SIZE; i++) {
            v.put(i, (byte) 0);
        }
        int dataAt = RdmaConnParamDescriptor.SIZE;
        int n = ConnData.write(param, v, dataAt);
        v.putLong(RdmaConnParamDescriptor.PRIVATE_DATA, connBlock.address(dataAt));
        v.put(RdmaConnParamDescriptor.PRIVATE_DATA_LEN, (byte) n);
        RmaSlots.readDepth(v, domain.port());
        v.put(RdmaConnParamDescriptor.RETRY_COUNT, (byte) 7);
        v.put(RdmaConnParamDescriptor.RNR_RETRY_COUNT, (byte) 7);
    }

    /** Creates the RC queue pair on {@link #id}; posts the receives that waited for it. Returns 0 or an errno. */
    private int createQueuePair() {
        Pointer idp = new Pointer(id);
        if (idp.getLong(RdmaCmIdDescriptor.VERBS) != domain.deviceContext()) {
            return Errno.EINVAL; // the address routes through another device than this domain's
        }
        ByteBuffer v = connBlock.view();
        int at = RdmaConnParamDescriptor.SIZE + ConnData.MAX_FRAME;
        for (int i = 0; i < IbvQpInitAttrDescriptor.SIZE; i++) {
            v.put(at + i, (byte) 0);
        }
        v.putLong(at + IbvQpInitAttrDescriptor.SEND_CQ, cq);
        v.putLong(at + IbvQpInitAttrDescriptor.RECV_CQ, cq);
        v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_SEND_WR, txDepth);
        v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_RECV_WR, rxDepth);
        v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_SEND_SGE, Math.min(IOV_LIMIT, domain.port().maxSge()));
        v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_RECV_SGE, Math.min(IOV_LIMIT, domain.port().maxSge()));
        v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_INLINE_DATA, inlineWanted);
        v.putInt(at + IbvQpInitAttrDescriptor.QP_TYPE, VerbsConstants.IBV_QPT_RC);
        v.putInt(at + IbvQpInitAttrDescriptor.SQ_SIG_ALL, 0);
        if (Rdmacm.rdma_create_qp(id, domain.pd(), connBlock.address(at)) != 0) {
            // a device that cannot inline as much: try without inline data (inject uses bounce slots)
            v.putInt(at + IbvQpInitAttrDescriptor.CAP_MAX_INLINE_DATA, 0);
            if (Rdmacm.rdma_create_qp(id, domain.pd(), connBlock.address(at)) != 0) {
                return Errno.ENOMEM;
            }
        }
        maxInline = v.getInt(at + IbvQpInitAttrDescriptor.CAP_MAX_INLINE_DATA);
        qp = idp.getLong(RdmaCmIdDescriptor.QP);
        domain.provider().asyncEvents().watch(qp, this);
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
        return 0;
    }

    /** rdma_cm events of this endpoint's id (CM thread). */
    @Override
    public void onCmEvent(long cmId, long token, int event, int status, byte[] privateData) {
        synchronized (this) {
            // closed or departed: teardown destroyed the id (and id is 0); nothing to touch
            if (cmId != id || state() != OPEN) {
                return;
            }
            int mapped = CmEvents.map(event);
            if (event == VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED) {
                if (Rdmacm.rdma_resolve_route(id, RESOLVE_TIMEOUT_MS) != 0) {
                    fail(Errno.ETIMEDOUT, Native.getLastError(), null);
                }
            } else if (event == VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED) {
                int rc = createQueuePair();
                if (rc != 0) {
                    fail(rc, 0, null);
                } else if (Rdmacm.rdma_connect(id, connBlock.address()) != 0) {
                    fail(Errno.ETIMEDOUT, Native.getLastError(), null);
                } else {
                    state = CONNECTING;
                }
            } else if (mapped == Fi.FI_CONNECTED) {
                if (state == CONNECTING || state == ACCEPTING) {
                    byte[] data = state == CONNECTING
                            ? ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length) : null;
                    state = CONNECTED;
                    eq.post(Fi.FI_CONNECTED, this, context(), 0, null, data, data == null ? 0 : data.length);
                }
            } else if (mapped == Fi.FI_SHUTDOWN) {
                // the peer disconnected: disconnect too, which moves the queue pair to the error
                // state so that outstanding work requests flush (ECANCELED, R14)
                Rdmacm.rdma_disconnect(id);
                down(true);
            } else if (mapped == -Errno.ECONNREFUSED) {
                byte[] data = ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length);
                fail(Errno.ECONNREFUSED, status, data);
            } else if (mapped < 0 && mapped != CmEvents.STEP && mapped != CmEvents.IGNORED) {
                if (state == CONNECTED) {
                    down(true);
                } else {
                    fail(-mapped, status, null);
                }
            }
        }
    }

    /** Connection setup failed: an error event on the EQ (R14), the endpoint is DOWN. */
    private void fail(int err, int provErrno, byte[] errData) {
        state = DOWN;
        if (eq != null) {
            eq.postError(this, context(), 0, err, provErrno, errData, errData == null ? 0 : errData.length);
        }
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

    // =================================================================== data path: transmit

    /** {@code fi_send}. */
    @Override
    public int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        return transmit(K_SEND, buf, desc, 0, false, 0, 0, 0, 0, null, null, context, info.txAttr().opFlags());
    }

    /** {@code fi_senddata}: immediate data (32 bits) → {@code FI_REMOTE_CQ_DATA} at the peer. */
    @Override
    public int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return transmit(K_SEND, buf, desc, data, true, 0, 0, 0, 0, null, null, context, info.txAttr().opFlags());
    }

    /** {@code fi_inject}: inline where the device allows, else a bounce slot; no completion. */
    @Override
    public int inject(ByteBuffer buf, long destAddr) {
        return transmit(K_SEND, buf, null, 0, false, 0, 0, 0, 0, null, null, null, Fi.FI_INJECT);
    }

    /** {@code fi_injectdata}. */
    @Override
    public int injectData(ByteBuffer buf, long data, long destAddr) {
        return transmit(K_SEND, buf, null, data, true, 0, 0, 0, 0, null, null, null, Fi.FI_INJECT);
    }

    /** {@code fi_sendmsg}: one iov per SGE (up to 4); flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT}, {@code FI_COMPLETION}, {@code FI_FENCE}, {@code FI_MORE}. */
    @Override
    public int sendMsg(Msg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return transmit(K_SEND, null, null, msg.data(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, 0, 0, 0, 0, null, msg,
                msg.context(), flags);
    }

    /** {@code fi_recv}. */
    @Override
    public int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        int rc = PostChecks.landing(buf, null, 1, info.rxAttr().opFlags(), info.epAttr().maxMsgSize());
        if (rc != 0) {
            return rc;
        }
        return receive(buf, desc, null, context, info.rxAttr().opFlags());
    }

    /** {@code fi_recvmsg}: {@code FI_MULTI_RECV} is not offered. */
    @Override
    public int recvMsg(Msg msg, long flags) {
        if (msg == null || msg.iovCount() < 1 || msg.iovCount() > IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.RECV_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        if ((flags & Fi.FI_MULTI_RECV) != 0) {
            return -Errno.ENOSYS;
        }
        rc = PostChecks.landing(null, msg, msg.iovCount(), flags, info.epAttr().maxMsgSize());
        if (rc != 0) {
            return rc;
        }
        return receive(null, null, msg, msg.context(), flags);
    }

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

    /** {@code fi_read}: RDMA read of {@code [addr, addr + remaining)} under {@code key} into {@code buf}. */
    @Override
    public int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        if (!rmaCap) {
            return -Errno.ENOSYS;
        }
        return transmit(K_READ, buf, desc, 0, false, addr, key, 0, 0, null, null, context, info.txAttr().opFlags());
    }

    /** {@code fi_write}: RDMA write. */
    @Override
    public int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        if (!rmaCap) {
            return -Errno.ENOSYS;
        }
        return transmit(K_WRITE, buf, desc, 0, false, addr, key, 0, 0, null, null, context, info.txAttr().opFlags());
    }

    /** {@code fi_writedata}: RDMA write with immediate → {@code FI_REMOTE_CQ_DATA} at the target. */
    @Override
    public int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        if (!rmaCap) {
            return -Errno.ENOSYS;
        }
        return transmit(K_WRITE, buf, desc, data, true, addr, key, 0, 0, null, null, context, info.txAttr().opFlags());
    }

    /** {@code fi_inject_write}. */
    @Override
    public int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        if (!rmaCap) {
            return -Errno.ENOSYS;
        }
        return transmit(K_WRITE, buf, null, 0, false, addr, key, 0, 0, null, null, null, Fi.FI_INJECT);
    }

    /** {@code fi_readmsg}: one RMA iov. */
    @Override
    public int readMsg(RmaMsg msg, long flags) {
        int rc = RmaSlots.checkMsg(rmaCap, msg);
        rc = rc != 0 ? rc : PostChecks.flags(flags, PostChecks.READ_MSG_FLAGS);
        return rc != 0 ? rc : transmit(K_READ, null, null, 0, false, msg.rmaAddr(0), msg.rmaKey(0), 0, 0, null, msg, msg.context(),
                flags);
    }

    /** {@code fi_writemsg}: one RMA iov. */
    @Override
    public int writeMsg(RmaMsg msg, long flags) {
        int rc = RmaSlots.checkMsg(rmaCap, msg);
        rc = rc != 0 ? rc : PostChecks.flags(flags, PostChecks.WRITE_MSG_FLAGS);
        return rc != 0 ? rc : transmit(K_WRITE, null, null, msg.data(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.rmaAddr(0),
                msg.rmaKey(0), 0, 0, null, msg, msg.context(), flags);
    }

    /**
     * {@code fi_atomic}: {@code FI_SUM} (fetch-and-add, result discarded), {@code FI_ATOMIC_WRITE}
     * (a swap built from read and compare-and-swap, {@link RmaSlots}); others {@code -EOPNOTSUPP}.
     */
    @Override
    public int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        int kind = RmaSlots.atomicKind(op, false);
        if (!atomicCap) {
            return -Errno.ENOSYS;
        }
        if (kind < 0) {
            return -Errno.EOPNOTSUPP; // an operation not offered (docs/ERRORS.md)
        }
        return transmit(kind, null, null, 0, false, addr, key, operand, 0, null, null, context, info.txAttr().opFlags());
    }

    /**
     * {@code fi_fetch_atomic}: {@code FI_SUM}, {@code FI_ATOMIC_READ} (fetch-and-add of 0) and
     * {@code FI_ATOMIC_WRITE} (swap); the old value's 8 bytes (host order) into {@code result}.
     */
    @Override
    public int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                           int op, Object context) {
        int kind = RmaSlots.atomicKind(op, true);
        if (!atomicCap) {
            return -Errno.ENOSYS;
        }
        if (kind < 0) {
            return -Errno.EOPNOTSUPP; // an operation not offered (docs/ERRORS.md)
        }
        return transmit(kind, result, resultDesc, 0, false, addr, key, op == Fi.FI_ATOMIC_READ ? 0 : operand, 0,
                result, null, context, info.txAttr().opFlags());
    }

    /** {@code fi_compare_atomic} ({@code FI_CSWAP}): 8 bytes of the old value into {@code result}. */
    @Override
    public int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                             long addr, long key, Object context) {
        if (!atomicCap) {
            return -Errno.ENOSYS;
        }
        return transmit(K_FETCH | CSWAP, result, resultDesc, 0, false, addr, key, compare, swap, result, null, context,
                info.txAttr().opFlags());
    }

    /**
     * Every transmit operation: checks, a slot and CQ room, the work request staged and
     * posted (unless {@code FI_MORE}). {@code kindAndOp}: an {@link RmaSlots} kind and its marks.
     */
    private synchronized int transmit(int kindAndOp, ByteBuffer buf, MemoryRegion desc, long data, boolean withData,
                                      long remoteAddr, long rkey, long compareAdd, long swap, ByteBuffer result,
                                      Msg msg, Object context, long flags) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (state != CONNECTED) {
            return state == DOWN || state == IDLE ? -Errno.ENOTCONN : -Errno.EAGAIN;
        }
        rc = RmaSlots.check(kindAndOp, withData, !iwarp, remoteAddr, result);
        if (rc != 0) {
            return rc;
        }
        int kind = kindAndOp & 0xFF;
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        int iovs = msg == null ? 1 : msg.iovCount();
        if (msg != null && (iovs < 0 || iovs > IOV_LIMIT)) {
            return -Errno.EINVAL;
        }
        long length = 0;
        if (kind == K_SEND || kind == K_WRITE || kind == K_READ) {
            if (msg == null) {
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
        rc = txCq.reserve();
        if (rc != 0) {
            return rc;
        }
        if (iwarp && (flags & Fi.FI_FENCE) != 0 && txFreeCount < txDepth) {
            // FI_FENCE (R11) on iWARP: the operation waits for every earlier one to complete,
            // kept here rather than by IBV_SEND_FENCE (siw left a fenced read behind a write
            // pending for ever); the caller drives progress and retries (API.md EAGAIN)
            if (sendChain.staged() > 0) {
                postSendChain(-1);
            }
            txCq.unreserve();
            return -Errno.EAGAIN;
        }
        int slot = txFree[--txFreeCount];
        boolean report = !inject && (!selectiveTx || (flags & Fi.FI_COMPLETION) != 0);
        long cqFlags = rma.prepare(slot, kindAndOp, withData, remoteAddr, rkey, compareAdd, swap);
        int sendFlags = VerbsConstants.IBV_SEND_SIGNALED;
        if ((flags & Fi.FI_FENCE) != 0 && !iwarp) {
            sendFlags |= VerbsConstants.IBV_SEND_FENCE;
        }
        boolean inline = (kind == K_SEND || kind == K_WRITE) && length <= maxInline && length > 0
                && (inject || length <= Math.min(maxInline, 64));
        if (inline) {
            sendFlags |= VerbsConstants.IBV_SEND_INLINE;
        }
        int imm = withData ? Integer.reverseBytes((int) data) : 0; // __be32 on the wire
        if (java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.BIG_ENDIAN) {
            imm = (int) data;
        }
        int wr = rma.stage(sendChain, slot, sendFlags, imm);
        txReg[slot] = -1;
        txResult[slot] = null;
        int bounceSlot = slot;
        int bounceUsed = 0;
        if (kind == K_ATOMIC || kind == RmaSlots.K_SWAP) {
            sendChain.sge(wr, buffers.bounceAddress(bounceSlot), 8, buffers.bounceLkey());
            if ((kindAndOp & RmaSlots.FETCHING) != 0) {
                txResult[slot] = result;
                txResultLen[slot] = 8;
            }
        } else if (kind == K_FETCH) {
            rc = addLocal(wr, result, 8, desc, slot, bounceSlot, 0, inline, true, false);
            if (rc < 0) {
                return abort(slot, rc);
            }
        } else if (msg == null) {
            if (length > 0) {
                rc = addLocal(wr, buf, (int) length, inject && !inline ? null : desc, slot, bounceSlot, 0, inline,
                        kind == K_READ, inject && !inline);
                if (rc < 0) {
                    return abort(slot, rc);
                }
            }
        } else {
            for (int i = 0; i < iovs; i++) {
                ByteBuffer b = msg.iov(i);
                if (b.remaining() == 0) {
                    continue;
                }
                rc = addLocal(wr, b, b.remaining(), msg.desc(i), slot, bounceSlot, bounceUsed, inline, kind == K_READ,
                        inject && !inline);
                if (rc < 0) {
                    return abort(slot, rc);
                }
                bounceUsed += rc;
            }
        }
        txContext[slot] = context;
        txFlags[slot] = cqFlags;
        txReport[slot] = report;
        txBusy[slot] = true;
        if ((flags & Fi.FI_MORE) == 0 || sendChain.full()) {
            return postSendChain(slot);
        }
        return 0;
    }

    /**
     * Adds one local buffer as an SGE of work request {@code wr}.
     *
     * @param inline   the data goes inline (no key needed)
     * @param copyBack the device writes into the buffer (read, fetch): a heap buffer is copied back on completion
     * @param copy     copy even a direct buffer into the bounce slot (inject: the buffer is reusable at once)
     * @return bytes of the bounce slot used (0 when none), or a negative errno
     */
    private int addLocal(int wr, ByteBuffer b, int len, MemoryRegion desc, int slot, int bounceSlot, int bounceAt,
                         boolean inline, boolean copyBack, boolean copy) {
        if (b.isDirect() && !copy) {
            long addr = buffers.addressOf(b) + b.position();
            long lkey;
            if (inline) {
                lkey = 0;
            } else if (desc != null) {
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
                    // one cached registration per operation (the slot holds one): a second
                    // would stay held for ever; register the others and pass them as desc
                    return -Errno.EINVAL;
                }
                txReg[slot] = buffers.lastEntry;
                buffers.hold(buffers.lastEntry);
            }
            sendChain.sge(wr, addr, len, (int) lkey);
            return 0;
        }
        if (bounceAt + len > LocalBuffers.BOUNCE || (copyBack && txResult[slot] != null)) {
            // the bounce slot is copied back into one heap buffer per operation (the slot
            // remembers one): a second would silently never receive its data
            return -Errno.EMSGSIZE;
        }
        long addr = buffers.bounceAddress(bounceSlot) + bounceAt;
        if (copyBack) {
            txResult[slot] = b;
            txResultLen[slot] = len;
        } else {
            buffers.copyInAt(addr, b, len);
        }
        sendChain.sge(wr, addr, len, inline ? 0 : buffers.bounceLkey());
        return len;
    }

    /** Undoes a staged transmit whose local buffer could not be resolved. */
    private int abort(int slot, int rc) {
        sendChain.unstage();
        if (txReg[slot] >= 0) {
            buffers.release(txReg[slot]);
        }
        txResult[slot] = null;
        txFree[txFreeCount++] = slot;
        txCq.unreserve();
        return rc;
    }

    /** Posts the send chain; the current operation ({@code slot}) answers {@code -EAGAIN} if it was refused. */
    private int postSendChain(int currentSlot) {
        int n = sendChain.staged();
        int rc = sendChain.post(domain.ops());
        if (rc == 0) {
            return 0;
        }
        int result = 0;
        for (int i = sendChain.failedIndex(); i < n; i++) {
            int slot = (int) sendChain.wrId(i);
            if (slot == currentSlot) {
                txBusy[slot] = false;
                if (txReg[slot] >= 0) {
                    buffers.release(txReg[slot]);
                }
                txResult[slot] = null;
                txFree[txFreeCount++] = slot;
                txCq.unreserve();
                result = WcErrors.postRefused(rc);
            } else {
                // staged with FI_MORE by an earlier call that returned 0: its failure is a completion
                completeTx(slot, VerbsConstants.IBV_WC_WR_FLUSH_ERR + 1000, 0);
            }
        }
        return result;
    }

    // =================================================================== data path: receive

    private synchronized int receive(ByteBuffer buf, MemoryRegion desc, Msg msg, Object context, long flags) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        if (state == DOWN) {
            return -Errno.ENOTCONN;
        }
        ByteBuffer b = msg == null ? buf : msg.iov(0);
        MemoryRegion d = msg == null ? desc : msg.desc(0);
        if (b == null || (msg != null && msg.iovCount() != 1)) {
            return msg != null && msg.iovCount() > 1 ? -Errno.ENOSYS : -Errno.EINVAL;
        }
        int slot = rx.reserve(b, d, context, flags);
        if (slot < 0) {
            return slot;
        }
        if (qp == 0) {
            rxWaiting[(rxWaitHead + rxWaitCount) % rxDepth] = slot;
            rxWaitCount++;
            return 0;
        }
        rx.stage(recvChain, slot, RX_BIT);
        if ((flags & Fi.FI_MORE) == 0 || recvChain.full()) {
            return postRecvChain();
        }
        return 0;
    }

    private int postRecvChain() {
        int rc = recvChain.post(domain.ops());
        return rc == 0 ? 0 : WcErrors.postRefused(rc);
    }

    // =================================================================== completions

    /** Drains this endpoint's native CQ (the domain's engine calls it). */
    @Override
    public synchronized int pollCompletions() {
        if (poller == null) {
            return 0;
        }
        int n = poller.drain(domain.ops(), this, 4 * batch);
        if (n == 0 && sweepAtNanos != 0 && System.nanoTime() - sweepAtNanos >= 0) {
            n = sweep();
        }
        return n;
    }

    /**
     * iWARP, the connection down for {@link #SWEEP_DELAY_NANOS} and the CQ drained: every
     * work request still without a completion will never get one ({@link #sweepAtNanos}), so
     * it completes here as the device would have flushed it — {@code ECANCELED}, a write whose
     * placement was not confirmed {@code EIO} (R14: nothing pending is lost silently).
     */
    private int sweep() {
        sweepAtNanos = 0;
        int n = 0;
        for (int slot = 0; slot < txDepth; slot++) {
            if (txBusy[slot]) {
                completeTx(slot, VerbsConstants.IBV_WC_WR_FLUSH_ERR, 0);
                n++;
            }
        }
        rxWaitCount = 0; // receives that waited for a queue pair are swept with the rest
        for (int slot = 0; slot < rxDepth; slot++) {
            if (rx.busy(slot)) {
                completeRx(slot, VerbsConstants.IBV_WC_WR_FLUSH_ERR, 0, 0, 0, 0);
                n++;
            }
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
            completeRx((int) (wrId & 0xFFFFFFFFL), status, opcode, byteLen, immData, wcFlags);
        } else {
            completeTx((int) wrId, status, byteLen);
        }
    }

    /** A transmit slot's completion; {@code status >= 1000} is a post that failed (EIO). */
    private void completeTx(int slot, int status, int byteLen) {
        if (slot < 0 || slot >= txDepth || !txBusy[slot]) {
            return;
        }
        Object ctx = txContext[slot];
        long flags = txFlags[slot];
        int kind = rma.kind(slot);
        if (txReg[slot] >= 0) {
            buffers.release(txReg[slot]);
            txReg[slot] = -1;
        }
        status = rma.step(slot, status, sendChain, buffers, domain.ops());
        if (status == RmaSlots.CONTINUED) {
            return; // a write's flush read or the swap's next compare-and-swap is in flight
        }
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            ByteBuffer r = txResult[slot];
            if (r != null) {
                buffers.copyOut(slot, r, txResultLen[slot]);
            }
            UtilCounter c = RmaSlots.counter(kind, sendCntr, readCntr, writeCntr);
            if (c != null) {
                c.increment();
            }
            if (txReport[slot]) {
                txCq.complete(ctx, flags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            } else {
                txCq.unreserve();
            }
        } else {
            int err = status >= 1000 ? Errno.EIO : WcErrors.errno(status);
            int prov = status >= 1000 ? status - 1000 : status;
            UtilCounter c = RmaSlots.counter(kind, sendCntr, readCntr, writeCntr);
            if (c != null) {
                c.incrementError();
            }
            txCq.completeError(ctx, flags, 0, null, 0, 0, 0, 0, err, prov, null, 0, Fi.FI_ADDR_NOTAVAIL);
        }
        txContext[slot] = null;
        txResult[slot] = null;
        txBusy[slot] = false;
        txFree[txFreeCount++] = slot;
    }

    /** A receive slot's completion: its rules are {@link ReceiveSlots}'; an MSG endpoint names no source. */
    private void completeRx(int slot, int status, int opcode, int byteLen, int immData, int wcFlags) {
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
     * Ends everything: with {@code departing}, pending operations complete with {@code ECANCELED}
     * and a connected endpoint raises {@code FI_SHUTDOWN} (R15); on close their reserved room is
     * given back (R9). Native resources go in the order verbs needs: queue pair, id, CQ.
     */
    private void teardown(boolean departing) {
        if (tornDown) {
            return;
        }
        tornDown = true;
        domain.detach(this);
        if (state == CONNECTED || state == ACCEPTING || state == CONNECTING) {
            if (id != 0) {
                Rdmacm.rdma_disconnect(id);
            }
            down(departing);
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
        rxWaitCount = 0;
        if (request != null && id == 0 && request.pep.take(request)) {
            Rdmacm.rdma_reject(request.id, 0, (byte) 0);
            Rdmacm.rdma_destroy_id(request.id);
        }
        releaseNative();
        // Once only (a close after a departure releases nothing more); a departed endpoint's
        // events stay on the EQ for the application to drain (R15).
        bindings.releaseAll(departing ? null : this);
    }

    private void releaseNative() {
        if (id != 0) {
            if (qp != 0) {
                domain.provider().asyncEvents().unwatch(qp);
                Rdmacm.rdma_destroy_qp(id);
                qp = 0;
            }
            cm.destroyId(id);
            id = 0;
        }
        if (cq != 0) {
            Ibv.ibv_destroy_cq(cq);
            cq = 0;
        }
        if (poller != null) {
            poller.close();
            poller = null;
        }
        if (sendChain != null) {
            sendChain.close();
            sendChain = null;
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
