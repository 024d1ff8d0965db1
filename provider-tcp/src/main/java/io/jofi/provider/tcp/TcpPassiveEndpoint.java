package io.jofi.provider.tcp;

import io.jofi.Addresses;
import io.jofi.ConnReq;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.SafeLog;
import io.jofi.spi.util.UtilEventQueue;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * {@code fi_passive_ep} of the tcp provider: a listening socket on the fabric's
 * connection-management loop. Each accepted socket becomes a {@link PendingConnection} that
 * reads the connection request and raises {@code FI_CONNREQ} on the bound EQ (R14).
 */
final class TcpPassiveEndpoint extends AbstractFid implements PassiveEndpoint, SelectHandler {
    private static final System.Logger LOG = System.getLogger(TcpPassiveEndpoint.class.getName());

    private final TcpFabric fabric;
    private final Info info;
    private final Set<PendingConnection> pending = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Guarded by this. */
    private UtilEventQueue eq;
    /** Guarded by this. */
    private ServerSocketChannel server;
    /** The listening socket's key on the CM loop (accepting pauses through it after a failed accept). */
    private volatile SelectionKey listenKey;

    TcpPassiveEndpoint(TcpFabric fabric, Info info, Object context) {
        super(FidClass.PASSIVE_ENDPOINT, context);
        this.fabric = fabric;
        this.info = info.copy();
        this.info.handle(null);
    }

    Info info() {
        return info;
    }

    /**
     * {@code fi_pep_bind}: the EQ that receives {@code FI_CONNREQ}.
     *
     * @throws FabricException {@code EINVAL} for a foreign EQ or a second bind
     */
    @Override
    public void bind(EventQueue queue, long flags) throws FabricException {
        ensureOpen("bind");
        if (!(queue instanceof UtilEventQueue q)) {
            throw new FabricException(Errno.EINVAL, "bind: " + queue + " is not an event queue of this provider");
        }
        synchronized (this) {
            if (eq != null) {
                throw new FabricException(Errno.EINVAL, "bind: an event queue is bound already");
            }
            q.retain();
            eq = q;
        }
    }

    /**
     * {@code fi_listen}: binds to {@code info.srcAddr()} (port 0 → an ephemeral port; none →
     * every address) and starts accepting.
     *
     * @throws FabricException {@code ENOEQ} without a bound EQ; {@code EINVAL} when listening
     *         already; {@code EADDRINUSE}/{@code EADDRNOTAVAIL} when the address cannot be bound
     */
    @Override
    public synchronized void listen() throws FabricException {
        ensureOpen("listen");
        if (eq == null) {
            throw new FabricException(Errno.ENOEQ, "listen: bind an event queue first (FI_CONNREQ goes there)");
        }
        if (server != null) {
            throw new FabricException(Errno.EINVAL, "listen: already listening on " + Addresses.toString(getName()));
        }
        InetSocketAddress local = info.srcAddr() == null ? new InetSocketAddress(0)
                : Addresses.fromSockaddr(info.srcAddr());
        ServerSocketChannel s = Sockets.listen(fabric.provider(), local, "listen");
        try {
            listenKey = fabric.cmLoop().register(s, SelectionKey.OP_ACCEPT, this);
            server = s;
        } catch (IOException e) {
            Sockets.closeQuietly(s);
            throw new FabricException(Errno.EIO, "listen: cannot listen on " + Sockets.text(local) + ": " + e.getMessage(), e);
        } catch (FabricException e) {
            Sockets.closeQuietly(s);
            throw e;
        }
    }

    /** Accepts every waiting socket and starts reading its connection request. */
    @Override
    public void onSelected(int readyOps) {
        ServerSocketChannel s;
        synchronized (this) {
            s = server;
        }
        if (s == null) {
            return;
        }
        SocketChannel ch;
        ConnectionSetupTimer timer = fabric.setupTimer();
        while ((ch = Sockets.acceptNext(fabric.provider(), s, listenKey, timer)) != null) {
            PendingConnection pc = new PendingConnection(this, ch, timer);
            try {
                synchronized (pending) {
                    pending.add(pc);
                }
                pc.key(fabric.cmLoop().register(ch, SelectionKey.OP_READ, pc));
                timer.start(pc);
            } catch (IOException | FabricException e) {
                pc.drop();
            }
        }
    }

    int post(int event, Info connInfo, byte[] data, int length) {
        UtilEventQueue q;
        synchronized (this) {
            q = eq;
        }
        return q == null ? -Errno.ENOEQ : q.post(event, this, context(), 0, connInfo, data, length);
    }

    /**
     * The fabric's connection management failed ({@code why}): an {@code EIO} error event with
     * {@code why} as {@code errData} on the bound EQ, then this endpoint fails (no longer
     * listening; control calls {@code EIO}). On the CM thread; never throws.
     */
    void cmFailed(String why) {
        UtilEventQueue q;
        synchronized (this) {
            q = eq;
        }
        if (q != null) {
            byte[] reason = why.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int rc = q.postError(this, context(), 0L, Errno.EIO, 0, reason, reason.length);
            if (rc < 0) {
                SafeLog.log(LOG, System.Logger.Level.ERROR, "JOFI tcp passive endpoint: " + why
                        + "; the error event could not be posted (" + Errno.strerror(rc) + ")", null);
            }
        }
        fail(why);
    }

    void forget(PendingConnection pc) {
        synchronized (pending) {
            pending.remove(pc);
        }
    }

    /**
     * {@code fi_getname}: the address it listens on (after {@code listen}), else its source address.
     *
     * @throws FabricException {@code EADDRNOTAVAIL} when it has neither
     */
    @Override
    public byte[] getName() throws FabricException {
        ensureOpen("getName");
        ServerSocketChannel s;
        synchronized (this) {
            s = server;
        }
        if (s != null) {
            try {
                return Addresses.toSockaddr((InetSocketAddress) s.getLocalAddress());
            } catch (IOException e) {
                throw new FabricException(Errno.EIO, "getName: " + e.getMessage(), e);
            }
        }
        if (info.srcAddr() == null) {
            throw new FabricException(Errno.EADDRNOTAVAIL, "getName: not listening and no source address");
        }
        return info.srcAddr().clone();
    }

    /**
     * {@code fi_reject}: refuses a connection request with up to 256 bytes of data, which the
     * active side receives as {@code errData} of its {@code ECONNREFUSED} error event (R14).
     *
     * @throws FabricException {@code EINVAL} for a handle that is not a pending request of this
     *         endpoint or data longer than 256 bytes
     */
    @Override
    public void reject(ConnReq handle, byte[] param) throws FabricException {
        ensureOpen("reject");
        if (!(handle instanceof PendingConnection pc) || !isMine(pc)) {
            throw new FabricException(Errno.EINVAL, "reject: " + handle + " is not a pending connection request of this endpoint");
        }
        pc.reject(param);
    }

    private boolean isMine(PendingConnection pc) {
        synchronized (pending) {
            return pending.contains(pc);
        }
    }

    private void shut() {
        ServerSocketChannel s;
        UtilEventQueue q;
        synchronized (this) {
            s = server;
            server = null;
            q = eq;
            eq = null;
        }
        Sockets.closeQuietly(s);
        dropPending();
        if (q != null) {
            q.removeEventsOf(this);
            q.release();
        }
    }

    @Override
    protected void onClose() {
        fabric.forget(this);
        shut();
    }

    /** R15: stops listening and drops requests nobody took; the EQ stays bound until close. */
    @Override
    protected void onDeparture() {
        ServerSocketChannel s;
        synchronized (this) {
            s = server;
            server = null;
        }
        Sockets.closeQuietly(s);
        dropPending();
    }

    private void dropPending() {
        List<PendingConnection> all;
        synchronized (pending) {
            all = new ArrayList<>(pending);
        }
        for (PendingConnection pc : all) {
            pc.drop();
        }
    }

    @Override
    protected String describe() {
        return "tcp passive endpoint";
    }
}
