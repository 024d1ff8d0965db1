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
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.UtilEndpoint;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The RDM endpoint of the tcp provider ({@code fi_endpoint(3)} with {@code FI_EP_RDM}):
 * reliable, connectionless messaging addressed through an AV, carried by per-peer tcp
 * connections made on first use and reused in both directions (provider-tcp/README.md, "RDM
 * endpoints", has the message diagram).
 *
 * <p><b>Set-up.</b> {@code enable} binds a listening socket to the info's source address (port
 * 0 = ephemeral); {@link #getName()} is that concrete sockaddr, never a wildcard (a wildcard
 * host is replaced by the address of the info's interface) — what peers insert in their AV.
 * The first operation towards an {@code fi_addr} looks its address up in the AV and opens a
 * connection with libfabric's CM request whose connection data is an RDM hello carrying this
 * endpoint's name ({@link TcpRdmHelloDescriptor}); operations posted meanwhile queue on the
 * connection and go out in order once it is up (a failed connect fails each of them with
 * {@code ECONNREFUSED}; the next operation tries a new connection). The acceptor learns the
 * initiator's name from the hello and maps it to an {@code fi_addr} by reverse AV lookup
 * (FI_SOURCE, R10); a connection accepted from a peer carries sends to it too.
 *
 * <p><b>Crossed connects</b> (both endpoints connect to each other at once) end with one
 * connection: the one initiated by the lower name (unsigned byte order). The higher side
 * accepts the lower side's request and hands the sends it had queued on its own connection to
 * the accepted one; the lower side rejects the higher side's request
 * ({@link TcpRdmHelloDescriptor#KIND_REJECT_CROSSED}), and a higher side that learns of the
 * reject first keeps its queued sends waiting for the lower side's connection (at most
 * {@link #PARK_RETRY_NANOS}, then it connects again). Nothing is lost or reordered: queued
 * sends were never started.
 *
 * <p><b>Parts.</b> This class is the public face: {@link UtilEndpoint} owns the bindings and
 * checks every post; this class owns the listener and the receive posts
 * ({@link TcpReceiveSide}: one {@link io.jofi.spi.util.ReceiveQueue} all connections deliver
 * into), and its funnels hand each transmit to the peer's connection. {@link TcpRdmPeers}
 * keeps the peers and their connections; each connection is a
 * {@link TcpConnection} (framing, transmit path, acks and receive path as for MSG) in the
 * {@link RdmConnectionRole}, so every operation the MSG endpoint offers is offered here with
 * the same semantics.
 *
 * <p><b>Failures.</b> A dead peer (reset, FIN, bad input) fails only the operations on its
 * connection ({@code ECONNRESET}); the next send reconnects. {@code fi_av_remove} of a peer
 * closes its connection. Departure (R15): everything pending ends with {@code ECANCELED},
 * listener and connections close. Close discards what is pending, as MSG endpoints do.
 *
 * <p><b>Threads.</b> This object's monitor guards all of it (the connections' {@code lock});
 * the progress step, the CM loop and the application's calls take it per event/operation.
 */
final class TcpRdmEndpoint extends UtilEndpoint implements SelectHandler, io.jofi.spi.util.rxm.PeerRemovalSource.Listener,
        TcpReceiveSide.Owner {
    /**
     * How long sends parked by a crossed-connect reject wait for the peer's connection before
     * this side connects again (the peer's own connect may have failed): a retry is safe — a
     * peer still connecting to us rejects it again, one that is not accepts it.
     */
    static final long PARK_RETRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private final TcpDomain domain;
    private final Info info;
    private final boolean source;
    private final boolean sourceErr;
    private final boolean directed;
    /** The data path's copies of what is bound ({@link #onBind}), shared by every connection. */
    private final DataPathBindings bound = new DataPathBindings();
    private final TcpReceiveSide receives;
    private final TcpRdmPeers peers;

    // ---- under this
    private TcpAddressVector av;
    private boolean enabled;
    private ServerSocketChannel listener;
    private SelectionKey listenKey;
    private byte[] name;
    private byte[] hello;
    private final Set<RdmIncoming> incoming = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Runs {@link #checkParked} after every pass of the fabric's CM loop while enabled. */
    private final Runnable parkTicker = this::checkParked;
    private NioLoop cmLoop;

    TcpRdmEndpoint(TcpDomain domain, Info info, Object context) {
        super(context, domain.engine(), EndpointBindings.ALL_COUNTER_ROLES, TcpEndpoint.limits(info));
        this.domain = domain;
        this.info = info.copy();
        this.info.handle(null);
        long caps = info.caps();
        this.source = (caps & Fi.FI_SOURCE) != 0;
        this.sourceErr = source && (caps & Fi.FI_SOURCE_ERR) != 0;
        this.directed = (caps & Fi.FI_DIRECTED_RECV) != 0;
        this.receives = new TcpReceiveSide(this, this, bound, this.info, domain.provider());
        this.peers = new TcpRdmPeers(this, domain, this.info, bound, receives.queue);
    }

    // =================================================================== control path

    /**
     * After {@code fi_ep_bind} (an AV, required before {@code enable}; CQs and counters as for
     * MSG endpoints; an EQ is accepted, RDM endpoints raise no connection events): the
     * connections' data path and the receive queue see what is bound; this endpoint listens to
     * the removals of its AV.
     */
    @Override
    protected void onBind(Fid fid, long flags) {
        bound.update(txCq(), rxCq(), selectiveTx(), selectiveRx(), eq(), counterFor(Fi.FI_SEND),
                counterFor(Fi.FI_RECV), counterFor(Fi.FI_READ), counterFor(Fi.FI_WRITE), counterFor(Fi.FI_REMOTE_READ),
                counterFor(Fi.FI_REMOTE_WRITE));
        receives.bound();
        if (fid instanceof TcpAddressVector a) {
            av = a;
            a.addRemovalListener(this);
        }
    }

    /**
     * {@code fi_enable}: starts listening on the info's source address (port 0: an ephemeral
     * port; none: every address) so that peers can connect; {@link #getName()} is then the
     * concrete address. A second call does nothing.
     *
     * @throws FabricException {@code ENOAV} without a bound AV, {@code EINVAL} when it is not a
     *         tcp domain's; {@code EADDRINUSE} /
     *         {@code EADDRNOTAVAIL} when the address cannot be bound; {@code ENODEV} after departure
     */
    @Override
    public void enable() throws FabricException {
        synchronized (this) {
            ensureOpen("enable");
            if (enabled) {
                return;
            }
            if (av == null && av() != null) {
                throw new FabricException(Errno.EINVAL, "enable: " + av() + " is not an address vector of a tcp domain");
            }
            if (av == null) {
                throw new FabricException(Errno.ENOAV, "enable: an RDM endpoint needs a bound address vector"
                        + " (domain.openAv, then ep.bind(av, 0)): its peers are addressed through it");
            }
            InetSocketAddress local = info.srcAddr() == null ? new InetSocketAddress(0) : Addresses.fromSockaddr(info.srcAddr());
            ServerSocketChannel s = Sockets.listen(domain.provider(), local, "enable");
            try {
                InetSocketAddress bound = (InetSocketAddress) s.getLocalAddress();
                byte[] n = Addresses.toSockaddr(concrete(bound));
                cmLoop = domain.cmLoop();
                listenKey = cmLoop.register(s, SelectionKey.OP_ACCEPT, this);
                cmLoop.addTicker(parkTicker);
                listener = s;
                name = n;
                hello = TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, n);
            } catch (IOException e) {
                Sockets.closeQuietly(s);
                throw new FabricException(Errno.EIO, "enable: cannot listen on " + local + ": " + e.getMessage(), e);
            } catch (FabricException e) {
                Sockets.closeQuietly(s);
                throw e;
            }
            receives.directed(directed);
            sealBindings();
            enabled = true;
        }
    }

    /** A bound wildcard address becomes the info's interface address (getName is never a wildcard). */
    private InetSocketAddress concrete(InetSocketAddress bound) {
        InetAddress a = bound.getAddress();
        if (!a.isAnyLocalAddress()) {
            return bound;
        }
        boolean v6 = a instanceof Inet6Address;
        try {
            String ifName = info.domainAttr().name();
            NetworkInterface nif = ifName == null ? null : NetworkInterface.getByName(ifName);
            if (nif != null) {
                for (InetAddress x : Collections.list(nif.getInetAddresses())) {
                    if ((x instanceof Inet6Address) == v6 && !x.isLinkLocalAddress()) {
                        return new InetSocketAddress(x, bound.getPort());
                    }
                }
            }
        } catch (SocketException e) {
            // no interface information: the loopback address below is still concrete
        }
        try {
            return new InetSocketAddress(v6 ? InetAddress.getByName("::1") : InetAddress.getByName("127.0.0.1"), bound.getPort());
        } catch (java.net.UnknownHostException e) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort());
        }
    }

    /**
     * {@code fi_getname}: after {@code enable} the listening address peers insert in their AV
     * (concrete, never a wildcard); before, the info's source address.
     *
     * @throws FabricException {@code EADDRNOTAVAIL} before enable without a source address
     */
    @Override
    public byte[] getName() throws FabricException {
        synchronized (this) {
            ensureOpen("getName");
            if (name != null) {
                return name.clone();
            }
            if (info.srcAddr() == null) {
                throw new FabricException(Errno.EADDRNOTAVAIL, "getName: not enabled and no source address");
            }
            return info.srcAddr().clone();
        }
    }

    /** {@code fi_getpeer}: RDM endpoints have no single peer. @throws FabricException {@code ENOSYS} */
    @Override
    public byte[] getPeer() throws FabricException {
        throw new FabricException(Errno.ENOSYS, "getPeer: an RDM endpoint has no single peer (use the AV)");
    }

    /** {@code fi_connect}: not for RDM endpoints (connections are made on first use). @throws FabricException {@code ENOSYS} */
    @Override
    public void connect(byte[] addr, byte[] param) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "connect: RDM endpoints connect on first use; insert the peer in the AV and send");
    }

    /** {@code fi_accept}: not for RDM endpoints. @throws FabricException {@code ENOSYS} */
    @Override
    public void accept(byte[] param) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "accept: RDM endpoints accept their peers' connections themselves");
    }

    /** {@code fi_shutdown}: not for RDM endpoints. @throws FabricException {@code ENOSYS} */
    @Override
    public void shutdown(long flags) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "shutdown: RDM endpoints have no connection to shut down; close the endpoint");
    }

    /** {@code fi_cancel} of a pending receive (R13): as MSG endpoints. */
    @Override
    public int cancel(Object context) {
        return receives.cancel(context);
    }

    /** {@code fi_getopt}: as MSG endpoints. */
    @Override
    public long getOpt(int level, int name) throws FabricException {
        ensureOpen("getOpt");
        return receives.getOpt(level, name);
    }

    /** {@code fi_setopt}: as MSG endpoints. */
    @Override
    public void setOpt(int level, int name, long value) throws FabricException {
        ensureOpen("setOpt");
        receives.setOpt(level, name, value);
    }

    // =================================================================== peers (called by TcpRdmPeers, RdmIncoming, RdmConnectionRole)

    /** 0 or the negative errno of this endpoint's fid state, for data-path calls. */
    @Override
    public int postState() {
        return dataPathCheck();
    }

    /** The fi_addr a connection's messages report (R10): the peer's AV entry, or FI_ADDR_NOTAVAIL. Under the lock. */
    long sourceOf(RdmPeer p) {
        return source ? p.fiAddr(av) : Fi.FI_ADDR_NOTAVAIL;
    }

    /** Whether a sender not in the AV turns receive completions into EADDRNOTAVAIL errors (R10). */
    boolean sourceErr() {
        return sourceErr;
    }

    /** CM loop, after every pass: sends parked too long connect again ({@link TcpRdmPeers#checkParked}). */
    private void checkParked() {
        if (!peers.anyParked()) {
            return;
        }
        synchronized (this) {
            peers.checkParked(enabled, hello);
        }
    }

    /**
     * The listener read a peer's request with its hello (CM loop thread): accept it as the
     * connection to that peer, unless it crosses a connection of ours that wins.
     */
    void incoming(RdmIncoming in, byte[] peerName) {
        synchronized (this) {
            incoming.remove(in);
            if (!enabled || state() != OPEN) {
                in.close();
                return;
            }
            peers.incoming(in, peerName, name, hello);
        }
    }

    /** Forgets a request being read (dropped or rejected). */
    void forget(RdmIncoming in) {
        synchronized (this) {
            incoming.remove(in);
        }
    }

    /** The listener is ready: accept every waiting socket and read its request (CM loop thread). */
    @Override
    public void onSelected(int readyOps) {
        ServerSocketChannel s;
        synchronized (this) {
            s = listener;
        }
        if (s == null) {
            return;
        }
        SocketChannel ch;
        ConnectionSetupTimer timer = domain.setupTimer();
        while ((ch = Sockets.acceptNext(domain.provider(), s, listenKey, timer)) != null) {
            RdmIncoming in = new RdmIncoming(this, ch, timer);
            try {
                synchronized (this) {
                    if (listener == null) {
                        in.close();
                        return;
                    }
                    incoming.add(in);
                }
                in.key = domain.cmLoop().register(ch, SelectionKey.OP_READ, in);
                timer.start(in);
            } catch (IOException | FabricException e) {
                in.drop();
            }
        }
    }

    /** {@code fi_av_remove} took peers out of the bound AV: their connections close ({@code ECANCELED}). */
    @Override
    public void removed(byte[][] addrs) {
        synchronized (this) {
            peers.removed(addrs);
        }
    }

    // =================================================================== data path: receive

    /** Whether receives may be posted: after {@code enable}. */
    @Override
    public boolean receiving() {
        return enabled;
    }

    /** Nothing here: {@link #resumed} resumes the paused connections after every successful post. */
    @Override
    public void receivePosted() {
    }

    /** A receive was posted (or a peek or claim made room): connections that paused for want of one read on. */
    private int resumed(int rc) {
        if (rc == 0) {
            peers.resumeAll();
        }
        return rc;
    }

    /** From any peer, or with {@code FI_DIRECTED_RECV} only from {@code srcAddr}. */
    @Override
    protected int postRecv(ByteBuffer buf, MemoryRegion desc, Msg msg, long srcAddr, boolean tagged, long tag, long ignore, long flags,
                           Object context) {
        synchronized (this) {
            return resumed(receives.postRecv(buf, msg, srcAddr, tagged, tag, ignore, flags, context));
        }
    }

    @Override
    protected int postPeek(TaggedMsg msg, long flags) {
        synchronized (this) {
            return resumed(receives.postPeek(msg, flags));
        }
    }

    // =================================================================== data path: transmit (UtilEndpoint's funnels)

    /**
     * Picks the connection for {@code dest} into {@link TcpRdmPeers#target}, created and not yet
     * connected on first use. Caller holds the lock.
     *
     * @return 0, or {@code -EBADF}/{@code -ENODEV} (closed/departed), {@code -EOPBADSTATE}
     *         (not enabled), {@code -EINVAL} ({@code dest} is not in the AV)
     */
    private int target(long dest) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        return peers.target(dest, av);
    }

    /** After the operation was handed to the chosen connection: a new connection connects now. */
    private int launched(int rc) {
        return peers.launched(rc, hello);
    }

    /** A send to {@code destAddr} (connects on first use). */
    @Override
    protected int postSend(ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long destAddr, boolean tagged, long tag, long data,
                           long flags, Object context) {
        synchronized (this) {
            int rc = target(destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.post(buf, msg, length, tagged, tag, data, flags, context));
        }
    }

    /** An RMA read from or write to {@code peerAddr}'s registered memory. */
    @Override
    protected int postRma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length, long peerAddr, long addr, long key,
                          long data, long flags, Object context) {
        synchronized (this) {
            int rc = target(peerAddr);
            return rc != 0 ? rc : launched(peers.target.rma.post(read, buf, msg, length, addr, key, data, flags, context));
        }
    }

    @Override
    protected int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                             long flags, Object context) {
        synchronized (this) {
            int rc = target(destAddr);
            return rc != 0 ? rc : launched(peers.target.rma.atomic(op, operand, compare, result, addr, key, flags, context));
        }
    }

    // =================================================================== life cycle

    private void stopListening() {
        if (cmLoop != null) {
            cmLoop.removeTicker(parkTicker);
        }
        SelectionKey k = listenKey;
        listenKey = null;
        if (k != null) {
            k.cancel();
        }
        Sockets.closeQuietly(listener);
        listener = null;
        for (RdmIncoming in : new ArrayList<>(incoming)) {
            in.close();
        }
        incoming.clear();
    }

    /**
     * Close: listener and connections closed; pending operations are discarded without
     * completions, as for MSG endpoints (fi_endpoint(3)); bindings released.
     */
    @Override
    protected void onClose() throws FabricException {
        synchronized (this) {
            enabled = false;
            stopListening();
            peers.discardAll();
            if (av != null) {
                av.removeRemovalListener(this);
                av = null;
            }
            if (bound.rxCq != null) {
                receives.queue.discardPosted();
            }
            releaseBindings(this); // the AV's too
        }
    }

    /**
     * R15: every pending operation ends with {@code ECANCELED}; listener and connections close.
     * When the domain's progress failed, the connections fail alike, with {@code EIO}.
     */
    @Override
    protected void onDeparture() {
        synchronized (this) {
            stopListening();
            int err = departureError();
            peers.departAll(err);
            receives.queue.failPosted(err, 0, null);
        }
    }

    @Override
    protected String describe() {
        return "tcp RDM endpoint";
    }

    /** A connection waiting for its peer's crossed connection, or null (tests). */
    TcpConnection awaitingPeer() {
        synchronized (this) {
            return peers.parked();
        }
    }

    /** Connections not down (tests: reuse in both directions, one connection after crossed connects). */
    int connectionCount() {
        synchronized (this) {
            return peers.connectionCount();
        }
    }
}
