package io.jofi.provider.tcp;

import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.AtomicTable;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.UtilEventQueue;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The MSG endpoint of the tcp provider ({@code fi_endpoint(3)}, {@code fi_cm(3)},
 * {@code fi_msg(3)}, {@code fi_tagged(3)}, {@code fi_rma(3)}, {@code fi_atomic(3)}): the
 * public face of one {@link TcpConnection}, speaking libfabric's tcp wire format (docs/TCP-WIRE.md).
 *
 * <p>{@link UtilEndpoint} owns the bindings (copied for the connection's data path into
 * {@link DataPathBindings}) and checks every post; its funnels hand what passes to the
 * connection's {@link TcpMessageInitiator} and {@link TcpRmaInitiator} and to the receive
 * posts ({@link TcpReceiveSide}). This class owns the connection and reports its events:
 * they go to the bound EQ ({@code FI_CONNECTED},
 * {@code FI_SHUTDOWN}, connect errors; R14), and the end of the connection fails its posted
 * receives.
 *
 * <p><b>Threads.</b> This object's monitor guards it and its connection; the progress step
 * takes it per selected key, the application's calls per operation. Completions are written
 * under it (the util CQ has its own synchronisation).
 */
final class TcpEndpoint extends UtilEndpoint implements TcpReceiveSide.Owner {
    private final Info info;
    /** The connection request this endpoint was opened for (passive side), or null. */
    private final PendingConnection request;
    /** The data path's copies of what is bound ({@link #onBind}). */
    private final DataPathBindings bound = new DataPathBindings();
    /** The receive queue its connection delivers into and its receive side posts to. */
    private final ReceiveQueue queue;
    private final TcpReceiveSide receives;
    private final TcpConnection conn;
    private boolean enabled;

    TcpEndpoint(TcpDomain domain, Info info, Object context) {
        super(context, domain.engine(), EndpointBindings.ALL_COUNTER_ROLES, limits(info));
        this.info = info.copy();
        this.request = (PendingConnection) info.handle();
        this.info.handle(null);
        io.jofi.spi.util.EndpointCounters posts = countPostsUnderLock();
        this.queue = TcpReceiveSide.newQueue(this.info, domain.provider(), posts);
        this.receives = new TcpReceiveSide(this, this, bound, queue, posts);
        this.conn = new TcpConnection(domain, this.info, this, bound, queue,
                queueSize(this.info), new TcpConnectionCounters(counters()), posts);
    }

    /** The transmit queue depth of an endpoint opened with {@code info}: its tx/rx size, within 16..65536. */
    static int queueSize(Info info) {
        long tx = info.txAttr().size();
        long rx = info.rxAttr().size();
        return (int) Math.max(16, Math.min(65536, Math.max(tx, rx) == 0 ? TcpProvider.QUEUE_SIZE : Math.max(tx, rx)));
    }

    /** What the post checks measure an endpoint of {@code info} against (the provider's limits, its caps). */
    static Limits limits(Info info) {
        return new Limits(info.caps(), info.txAttr().opFlags(), info.rxAttr().opFlags(), TcpProvider.INJECT_SIZE,
                TcpProvider.MAX_MSG_SIZE, TcpProvider.IOV_LIMIT, TcpWireDescriptor.MAX_RMA_IOV_COUNT);
    }

    // =================================================================== control path

    /** After {@code fi_ep_bind}: the connection's data path and the receive queue see what is bound. */
    @Override
    protected void onBind(Fid fid, long flags) {
        bound.update(txCq(), rxCq(), selectiveTx(), selectiveRx(), eq(), counterFor(Fi.FI_SEND),
                counterFor(Fi.FI_RECV), counterFor(Fi.FI_READ), counterFor(Fi.FI_WRITE), counterFor(Fi.FI_REMOTE_READ),
                counterFor(Fi.FI_REMOTE_WRITE));
        receives.bound();
    }

    /**
     * {@code fi_enable}.
     *
     * @throws FabricException {@code ENOEQ} without a bound EQ (MSG endpoints report their
     *         connection there)
     */
    @Override
    public void enable() throws FabricException {
        synchronized (this) {
            ensureOpen("enable");
            if (bound.eq() == null) {
                throw new FabricException(Errno.ENOEQ, "enable: an MSG endpoint needs a bound event queue");
            }
            enabled = true;
            sealBindings();
        }
    }

    /**
     * {@code fi_getname}: the local socket address once connected or connecting, else the
     * info's source address.
     */
    @Override
    public byte[] getName() throws FabricException {
        synchronized (this) {
            ensureOpen("getName");
            InetSocketAddress a = conn.localAddress();
            if (a != null) {
                return Addresses.toSockaddr(a);
            }
            if (info.srcAddr() == null) {
                throw new FabricException(Errno.EADDRNOTAVAIL, "getName: not connected and no source address");
            }
            return info.srcAddr().clone();
        }
    }

    /** {@code fi_getpeer}: the peer's socket address. */
    @Override
    public byte[] getPeer() throws FabricException {
        synchronized (this) {
            ensureOpen("getPeer");
            return Addresses.toSockaddr(conn.remoteAddress());
        }
    }

    /**
     * {@code fi_connect}: starts connecting to {@code addr} with up to 256 bytes of
     * connection data; the outcome arrives on the EQ (R14).
     *
     * @throws FabricException {@code EOPBADSTATE} when not enabled or already connecting /
     *         connected; {@code EINVAL} for a bad address or too much data; {@code EIO} when no
     *         socket can be opened
     */
    @Override
    public void connect(byte[] addr, byte[] param) throws FabricException {
        synchronized (this) {
            ensureOpen("connect");
            if (!enabled) {
                throw new FabricException(Errno.EOPBADSTATE, "connect: enable the endpoint first");
            }
            if (request != null) {
                throw new FabricException(Errno.EOPBADSTATE, "connect: the endpoint is not idle (connect once, on an endpoint not opened for a connection request)");
            }
            conn.connect(addr, param);
        }
    }

    /**
     * {@code fi_accept}: accepts the connection request this endpoint was opened for, with up
     * to 256 bytes of data for the active side's {@code FI_CONNECTED}; this side's
     * {@code FI_CONNECTED} is posted before the response is written, so that it precedes any
     * request the peer makes after its own (R14); a response that cannot be written then
     * ends the connection with {@code FI_SHUTDOWN}.
     *
     * @throws FabricException {@code EOPBADSTATE} when not enabled, not opened from a
     *         {@code FI_CONNREQ}, or accepted already; {@code EINVAL} for too much data or a
     *         request that was rejected / is gone
     */
    @Override
    public void accept(byte[] param) throws FabricException {
        synchronized (this) {
            ensureOpen("accept");
            if (!enabled) {
                throw new FabricException(Errno.EOPBADSTATE, "accept: enable the endpoint first");
            }
            if (request == null || !conn.idle()) {
                throw new FabricException(Errno.EOPBADSTATE, request == null
                        ? "accept: the endpoint was not opened with the info of an FI_CONNREQ event"
                        : "accept: called already");
            }
            int len = TcpCmHandshake.checkData("accept", param);
            SocketChannel ch = request.take();
            // Answer JOFI's marker only to a peer that announced it (a C peer gets zeros, as libfabric sends).
            conn.accept(ch, request.selectionKey(), param, len, request.peerIsJofi());
        }
    }

    /**
     * {@code fi_shutdown}: FIN to the peer; this side raises {@code FI_SHUTDOWN} once and
     * fails its pending operations with {@code ECANCELED} (R14). A second call does nothing.
     *
     * @throws FabricException {@code ENOTCONN} when it never connected
     */
    @Override
    public void shutdown(long flags) throws FabricException {
        synchronized (this) {
            ensureOpen("shutdown");
            conn.shutdown();
        }
    }

    /** {@code fi_cancel}: a pending receive with this context completes with {@code ECANCELED} (R13). */
    @Override
    public int cancel(Object context) {
        return receives.cancel(context);
    }

    /** {@code fi_getopt}: {@code FI_OPT_CM_DATA_SIZE} (256), {@code FI_OPT_MIN_MULTI_RECV}. */
    @Override
    public long getOpt(int level, int name) throws FabricException {
        ensureOpen("getOpt");
        return receives.getOpt(level, name);
    }

    /** {@code fi_setopt}: {@code FI_OPT_CM_DATA_SIZE} (at most 256), {@code FI_OPT_MIN_MULTI_RECV}. */
    @Override
    public void setOpt(int level, int name, long value) throws FabricException {
        ensureOpen("setOpt");
        receives.setOpt(level, name, value);
    }

    // =================================================================== data path (UtilEndpoint's funnels)

    @Override
    protected int postSend(ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long destAddr, boolean tagged, long tag, long data,
                           long flags, Object context) {
        return conn.postSend(buf, msg, length, tagged, tag, data, flags, context);
    }

    @Override
    protected int postRecv(ByteBuffer buf, MemoryRegion desc, Msg msg, long srcAddr, boolean tagged, long tag, long ignore, long flags,
                           Object context) {
        return receives.postRecv(buf, msg, srcAddr, tagged, tag, ignore, flags, context);
    }

    @Override
    protected int postPeek(TaggedMsg msg, long flags) {
        return receives.postPeek(msg, flags);
    }

    @Override
    protected int postRma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length, long peerAddr, long addr, long key,
                          long data, long flags, Object context) {
        return conn.postRma(read, buf, msg, length, addr, key, data, flags, context);
    }

    @Override
    protected int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                             long flags, Object context) {
        return conn.postAtomic(op, operand, compare, result, addr, key, flags, context);
    }

    @Override
    protected int typedAtomicCount(int datatype, int op, long kind) {
        return AtomicTable.count(datatype, op, kind, TcpWireDescriptor.ATOMIC_TYPED_BYTES);
    }

    @Override
    protected int postTypedAtomic(long kind, int datatype, int op, int count, ByteBuffer buf, ByteBuffer compare,
                                  ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                                  long flags, Object context) {
        return conn.postTypedAtomic(kind, datatype, op, count, buf, compare, result, addr, key, flags, context);
    }

    // =================================================================== TcpReceiveSide.Owner

    @Override
    public int postState() {
        return dataPathCheck();
    }

    @Override
    public boolean receiving() {
        return enabled && (!conn.down() || queue.hasUnexpected());
    }

    @Override
    public void receivePosted() {
        conn.receivePosted();
    }

    // =================================================================== its connection's events

    /** {@code FI_CONNECTED} with the acceptor's data (active side) or none (passive side). */
    void connected(CmMessage accept) {
        byte[] data = accept == null ? null : accept.dataCopy();
        bound.eq().post(Fi.FI_CONNECTED, this, context(), 0, null, data, data == null ? 0 : data.length);
    }

    /** The connect failed: everything pending ends with {@code ECANCELED}; the EQ gets the connect error (R14). */
    void connectFailed(int err, int provErrno, byte[] errData, int errDataSize) {
        conn.failAll(Errno.ECANCELED);
        UtilEventQueue eq = bound.eq();
        if (eq != null) {
            eq.postError(this, context(), 0, err, provErrno, errData, errDataSize);
        }
    }

    /**
     * The connection ended (its operations failed already); {@code shutdownEvent}: it was
     * established and the end is reported ({@code FI_SHUTDOWN} with {@code reason}).
     */
    void ended(boolean shutdownEvent, byte[] reason) {
        UtilEventQueue eq = bound.eq();
        if (shutdownEvent && eq != null) {
            eq.post(Fi.FI_SHUTDOWN, this, context(), 0, null, reason, reason == null ? 0 : reason.length);
        }
    }

    // =================================================================== life cycle

    /**
     * Closing discards what is pending without completions (fi_endpoint(3)), gives back the CQ
     * room it reserved, and releases the bindings.
     */
    @Override
    protected void onClose() {
        synchronized (this) {
            conn.discard();
            if (bound.rxCq() != null) {
                queue.discardPosted();
            }
            if (request != null) {
                request.drop();
            }
            releaseBindings(this);
        }
    }

    /**
     * R15: pending operations fail with ECANCELED, a connected endpoint raises FI_SHUTDOWN; the
     * same with EIO when the domain's progress failed ({@link #departureError()}).
     */
    @Override
    protected void onDeparture() {
        synchronized (this) {
            boolean idle = conn.idle();
            conn.depart(departureError());
            if (idle && request != null) {
                request.drop();
            }
        }
    }

    @Override
    protected String describe() {
        return "tcp MSG endpoint";
    }

    /** Whether a message is being read into the unexpected buffer right now (tests). */
    boolean isBuffering() {
        synchronized (this) {
            return conn.readState() == InboundFrame.UNEXPECTED;
        }
    }

    /** Whether reading stopped because a request's response finds no transmit room (tests). */
    boolean isBlocked() {
        synchronized (this) {
            return conn.readState() == InboundFrame.BLOCKED;
        }
    }
}
