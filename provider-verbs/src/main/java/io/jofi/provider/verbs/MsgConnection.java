package io.jofi.provider.verbs;

import com.sun.jna.Native;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.RdmaCmIdDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.stats.ConnectionCounters;
import io.jofi.spi.util.UtilEventQueue;
import java.nio.ByteBuffer;

/**
 * The rdma_cm connection of an MSG endpoint ({@code fi_cm(3)}): its states, its id and queue
 * pair, and the events it raises on the endpoint's EQ.
 *
 * <p>Active: {@link #connect} → {@code rdma_resolve_addr} → (address resolved)
 * {@code rdma_resolve_route} → (route resolved) queue pair created, {@code rdma_connect} with
 * the framed connection data ({@link ConnData}) → established: {@code FI_CONNECTED} with the
 * acceptor's data. Passive: opened with the {@link VerbsConnReq} of an {@code FI_CONNREQ} →
 * {@link #accept}: queue pair created on the request's id, {@code rdma_accept} → established:
 * {@code FI_CONNECTED}. Events map as {@link CmEvents} says; {@code FI_SHUTDOWN} is raised once
 * per connection (local {@code shutdown}, the peer's disconnect or a queue pair error), after
 * which the queue pair's outstanding work requests flush ({@code ECANCELED}).
 *
 * <p>Not thread-safe: every method runs under the owning {@link VerbsEndpoint}'s monitor.
 */
final class MsgConnection implements ConnectionCounters.Ends {
    static final int IDLE = 0;
    static final int RESOLVING = 1;
    static final int CONNECTING = 2;
    static final int ACCEPTING = 3;
    static final int CONNECTED = 4;
    static final int DOWN = 5;

    /** How long after going down the device's own flush completions are waited for before the sweep (iWARP). */
    static final long SWEEP_DELAY_NANOS = 200_000_000L;
    private static final int RESOLVE_TIMEOUT_MS = 2000;

    private final VerbsEndpoint owner;
    private final VerbsDomain domain;
    private final Info info;
    /** The connection request this endpoint was opened to accept, or null (an active endpoint). */
    private final VerbsConnReq request;
    private final int inlineWanted;
    private final boolean iwarp;

    // ---- fixed at enable
    private CmChannel cm;
    private EndpointQueues queues;
    private UtilEventQueue eq;
    private ConnParam param;

    private int state = IDLE;
    private boolean shutdownRaised;
    private long id;
    private long qp;
    private int maxInline;
    private byte[] peerName;
    /**
     * iWARP only: when the connection went down, the time ({@code System.nanoTime}) after which
     * work requests still without a completion are completed by the endpoint's sweep; 0 when
     * none is due. soft-iWARP flushes a user queue pair's queues once, when it enters the error
     * state, and leaves what is posted after that — e.g. a write's flush read posted in the
     * instant between the peer's terminate and this side's DISCONNECTED — in the user ring,
     * never completed; without the sweep such an operation would be pending for ever.
     */
    private long sweepAtNanos;

    MsgConnection(VerbsEndpoint owner, VerbsDomain domain, Info info, VerbsConnReq request) {
        this.owner = owner;
        this.domain = domain;
        this.info = info;
        this.request = request;
        this.inlineWanted = domain.provider().inlineSize();
        this.iwarp = domain.port().iwarp();
    }

    /** {@code fi_enable}: the CM channel, the endpoint's queues and EQ, the connection parameters' memory. */
    void enable(CmChannel channel, EndpointQueues q, UtilEventQueue events) {
        this.cm = channel;
        this.queues = q;
        this.eq = events;
        this.param = new ConnParam();
    }

    int state() {
        return state;
    }

    /** The queue pair ({@code struct ibv_qp *}), 0 until created. */
    long queuePair() {
        return qp;
    }

    /** The inline size the device granted the queue pair. */
    int maxInline() {
        return maxInline;
    }

    /** iWARP: whether the connection went down long enough ago for the endpoint's sweep (and clears it). */
    boolean sweepDue() {
        if (sweepAtNanos != 0 && System.nanoTime() - sweepAtNanos >= 0) {
            sweepAtNanos = 0;
            return true;
        }
        return false;
    }

    /** {@code fi_getname}: the local address of the connection, else the info's source address. */
    byte[] name() throws FabricException {
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
    byte[] peer() throws FabricException {
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

    /** {@code fi_connect} of an enabled endpoint: see {@link VerbsEndpoint#connect}. */
    void connect(byte[] addr, byte[] data) throws FabricException {
        if (state != IDLE || request != null) {
            throw new FabricException(Errno.EINVAL, "connect: the endpoint is connecting, connected or was opened to accept");
        }
        if (addr == null || addr.length < Sockaddrs.IN) {
            throw new FabricException(Errno.EINVAL, "connect: a sockaddr of the peer is required");
        }
        if (data != null && data.length > ConnData.MAX_DATA) {
            throw new FabricException(Errno.EINVAL, "connect: " + data.length + " bytes of connection data exceed the "
                    + ConnData.MAX_DATA + " bytes rdma_cm carries");
        }
        param.write(data, true, domain.port());
        if (Sockaddrs.isLoopback(addr) && info.srcAddr() != null && !Sockaddrs.isLoopback(info.srcAddr())) {
            // from the device's address rdma_cm resolves a loopback peer but sends the connect
            // request towards ::ffff:127.0.0.1 through lo, where no RDMA device takes it, and no
            // event ever comes (rxe: nothing for over 100 s): end it now, as an error event (R14)
            peerName = addr.clone();
            fail(Errno.EHOSTUNREACH, 0, null);
            return;
        }
        long newId = cm.createId(owner);
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

    /** {@code fi_accept} of an enabled endpoint: see {@link VerbsEndpoint#accept}. */
    void accept(byte[] data) throws FabricException {
        if (request == null || state != IDLE) {
            throw new FabricException(Errno.EINVAL, "accept: the endpoint was not opened from a connection request");
        }
        if (data != null && data.length > ConnData.MAX_DATA) {
            throw new FabricException(Errno.EINVAL, "accept: " + data.length + " bytes of connection data exceed "
                    + ConnData.MAX_DATA);
        }
        if (!request.pep.take(request)) {
            throw new FabricException(Errno.EINVAL, "accept: the connection request was accepted or rejected already");
        }
        id = request.id;
        cm.adopt(id, owner);
        param.write(data, true, domain.port());
        int rc = createQueuePair();
        if (rc != 0) {
            throw new FabricException(rc, "accept: the queue pair could not be created (" + Errno.strerror(rc) + ")");
        }
        if (Rdmacm.rdma_accept(id, param.address()) != 0) {
            throw new FabricException(Errno.EIO, "accept: rdma_accept failed (errno " + Native.getLastError() + ")");
        }
        state = ACCEPTING;
    }

    /** {@code fi_shutdown}: disconnects; {@code FI_SHUTDOWN} once; outstanding work requests flush. */
    void shutdown() throws FabricException {
        if (state == DOWN) {
            return;
        }
        if (state == IDLE) {
            throw new FabricException(Errno.ENOTCONN, "shutdown: the endpoint is not connected");
        }
        Rdmacm.rdma_disconnect(id);
        down(true);
    }

    /** An asynchronous error of {@code errorQp} ({@link AsyncEvents}): ended as by {@link #shutdown}. */
    void onQueuePairError(long errorQp) {
        if (errorQp != qp || qp == 0 || state == DOWN || state == IDLE) {
            return; // an event of a queue pair that is already gone
        }
        lostIfUp(Errno.EIO, "the device reported a queue pair error");
        Rdmacm.rdma_disconnect(id);
        down(true);
    }

    /**
     * A work request of this connection failed (a status other than a flush): an RC queue
     * pair is in the error state after it, so every later operation would be flushed. The
     * connection is over: disconnected, its one {@code FI_SHUTDOWN} raised (the peer's side
     * hears of it by rdma_cm's DISCONNECTED), so that its user can connect again.
     */
    void onFailedWorkRequest() {
        if (qp == 0 || state == DOWN || state == IDLE) {
            return;
        }
        lostIfUp(Errno.EIO, "a work request failed");
        Rdmacm.rdma_disconnect(id);
        down(true);
    }

    /** An established connection ends by the peer or a failure: counted (and recorded) as lost. */
    private void lostIfUp(int err, String why) {
        if (state == CONNECTED) {
            owner.transport.connections.lost(this, err, why);
        }
    }

    /** The connection's local sockaddr, or null before it has an id. */
    byte[] localAddress() {
        return id == 0 ? null : Sockaddrs.get(id + RdmaCmIdDescriptor.ROUTE_ADDR_SRC_ADDR);
    }

    /** The peer's sockaddr, or null when not known. */
    byte[] peerAddress() {
        byte[] sa = id == 0 ? null : Sockaddrs.get(id + RdmaCmIdDescriptor.ROUTE_ADDR_DST_ADDR);
        return sa != null ? sa : peerName;
    }

    /** The local sockaddr as text for the connection events, or null. */
    @Override
    public Object localEnd() {
        return text(localAddress());
    }

    /** The peer's sockaddr as text for the connection events, or null. */
    @Override
    public Object peerEnd() {
        return text(peerAddress());
    }

    /** A sockaddr as text for an event, or null — never an exception on the CM path (an unknown family). */
    private static String text(byte[] sockaddr) {
        try {
            return sockaddr == null ? null : io.jofi.Addresses.toString(sockaddr);
        } catch (RuntimeException e) {
            return null;
        }
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
            eq.post(Fi.FI_SHUTDOWN, owner, owner.context(), 0, null, null, 0);
        }
    }

    /** Creates the RC queue pair on {@link #id} and hands it to the endpoint. Returns 0 or an errno. */
    private int createQueuePair() {
        if (!queues.onThisDevice(id)) {
            return Errno.EINVAL; // the address routes through another device than this domain's
        }
        long created = queues.createQueuePair(id, inlineWanted, owner);
        if (created == 0) {
            return Errno.ENOMEM;
        }
        maxInline = queues.maxInline();
        qp = created;
        owner.queuePairCreated(qp);
        return 0;
    }

    /** An rdma_cm event of this connection's id (CM thread, under the endpoint's monitor). */
    void onCmEvent(long cmId, int event, int status, byte[] privateData) {
        if (cmId != id) {
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
            } else if (Rdmacm.rdma_connect(id, param.address()) != 0) {
                fail(Errno.ETIMEDOUT, Native.getLastError(), null);
            } else {
                state = CONNECTING;
            }
        } else if (mapped == Fi.FI_CONNECTED) {
            if (state == CONNECTING || state == ACCEPTING) {
                byte[] data = state == CONNECTING
                        ? ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length) : null;
                state = CONNECTED;
                owner.transport.connections.made(this);
                eq.post(Fi.FI_CONNECTED, owner, owner.context(), 0, null, data, data == null ? 0 : data.length);
            }
        } else if (mapped == Fi.FI_SHUTDOWN) {
            // the peer disconnected: disconnect too, which moves the queue pair to the error
            // state so that outstanding work requests flush (ECANCELED, R14)
            lostIfUp(Errno.ECONNRESET, "the peer disconnected");
            Rdmacm.rdma_disconnect(id);
            down(true);
        } else if (mapped == -Errno.ECONNREFUSED) {
            byte[] data = ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length);
            fail(Errno.ECONNREFUSED, status, data);
        } else if (mapped < 0 && mapped != CmEvents.STEP && mapped != CmEvents.IGNORED) {
            if (state == CONNECTED) {
                lostIfUp(-mapped, "rdma_cm event " + event);
                down(true);
            } else {
                fail(-mapped, status, null);
            }
        }
    }

    /** Connection setup failed: an error event on the EQ (R14), the connection is DOWN. */
    private void fail(int err, int provErrno, byte[] errData) {
        if (request == null) {
            owner.transport.connections.refused(this, err); // our connect, not a request we took
        }
        state = DOWN;
        if (eq != null) {
            eq.postError(owner, owner.context(), 0, err, provErrno, errData, errData == null ? 0 : errData.length);
        }
    }

    /**
     * The first step of teardown: a connection up or on its way disconnects ({@code departing}:
     * its {@code FI_SHUTDOWN}, R15).
     */
    void end(boolean departing) {
        if (state == CONNECTED || state == ACCEPTING || state == CONNECTING) {
            if (id != 0) {
                Rdmacm.rdma_disconnect(id);
            }
            down(departing);
        }
    }

    /**
     * The last step of teardown (before the endpoint's queues go): a request never accepted is
     * rejected; the queue pair and the id go (verbs' order: queue pair first), and the
     * parameters' memory.
     */
    void release() {
        if (request != null && id == 0 && request.pep.take(request)) {
            Rdmacm.rdma_reject(request.id, 0, (byte) 0);
            Rdmacm.rdma_destroy_id(request.id);
        }
        if (id != 0) {
            if (qp != 0) {
                queues.destroyQueuePair(cm, id, qp);
                qp = 0;
            }
            cm.destroyId(id);
            id = 0;
        }
        if (param != null) {
            param.close();
            param = null;
        }
    }
}
