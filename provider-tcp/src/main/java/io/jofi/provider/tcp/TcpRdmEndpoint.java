package io.jofi.provider.tcp;

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
import io.jofi.provider.tcp.wire.RdmHelloDescriptor;
import io.jofi.spi.util.AbstractFid;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An RDM endpoint of the tcp provider ({@code fi_endpoint(3)} with {@code FI_EP_RDM}):
 * reliable, connectionless messaging addressed through an AV, carried by per-peer tcp
 * connections made on first use and reused in both directions (provider-tcp/README.md, "RDM
 * endpoints", has the message diagram).
 *
 * <p><b>Set-up.</b> {@code enable} binds a listening socket to the info's source address (port
 * 0 = ephemeral); {@link #getName()} is that concrete sockaddr, never a wildcard (a wildcard
 * host is replaced by the address of the info's interface) — what peers insert in their AV.
 * The first operation towards an {@code fi_addr} looks its address up in the AV and opens a
 * connection with libfabric's CM request whose connection data is an RDM hello carrying this
 * endpoint's name ({@link RdmHelloDescriptor}); operations posted meanwhile queue on the
 * connection and go out in order once it is up (a failed connect fails each of them with
 * {@code ECONNREFUSED}; the next operation tries a new connection). The acceptor learns the
 * initiator's name from the hello and maps it to an {@code fi_addr} by reverse AV lookup
 * (FI_SOURCE, R10); a connection accepted from a peer carries sends to it too.
 *
 * <p><b>Crossed connects</b> (both endpoints connect to each other at once) end with one
 * connection: the one initiated by the lower name (unsigned byte order). The higher side
 * accepts the lower side's request and hands the sends it had queued on its own connection to
 * the accepted one; the lower side rejects the higher side's request
 * ({@link RdmHelloDescriptor#KIND_REJECT_CROSSED}), and a higher side that learns of the
 * reject first keeps its queued sends waiting for the lower side's connection (at most
 * {@link #PARK_RETRY_NANOS}, then it connects again). Nothing is lost or reordered: queued
 * sends were never started.
 *
 * <p><b>Reuse of the MSG machinery.</b> Each per-peer connection is a {@link TcpEndpoint} in
 * RDM mode (framing, transmit path, acks and receive path unchanged), guarded by this
 * endpoint's monitor and delivering into one {@link RxMatcher} shared by all connections; a
 * further {@code TcpEndpoint} that never connects ({@link #rx}) holds the bound CQs/counters
 * and posts receives into that matcher, so every operation the MSG endpoint offers is offered
 * here with the same semantics.
 *
 * <p><b>Failures.</b> A dead peer (reset, FIN, bad input) fails only the operations on its
 * connection ({@code ECONNRESET}); the next send reconnects. {@code fi_av_remove} of a peer
 * closes its connection. Departure (R15): everything pending ends with {@code ECANCELED},
 * listener and connections close. Close discards what is pending, as MSG endpoints do.
 *
 * <p><b>Threads.</b> This object's monitor guards all of it (the connections' {@code lock});
 * the progress step, the CM loop and the application's calls take it per event/operation.
 */
final class TcpRdmEndpoint extends AbstractFid implements Endpoint, SelectHandler, TcpAddressVector.RemovalListener {
    /**
     * How long sends parked by a crossed-connect reject wait for the peer's connection before
     * this side connects again (the peer's own connect may have failed): a retry is safe — a
     * peer still connecting to us rejects it again, one that is not accepts it.
     */
    static final long PARK_RETRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
    /** fi_addr → peer cache covers slots below this; beyond, the AV lookup allocates a key. */
    private static final int MAX_CACHED_SLOT = 1 << 20;

    private final TcpDomain domain;
    private final Info info;
    /** Holds the bindings and posts receives into the shared matcher; never connects. */
    private final TcpEndpoint rx;
    private final boolean source;
    private final boolean sourceErr;
    private final boolean directed;
    /** Operations the caps cover; others answer {@code -ENOSYS} before any address is looked at. */
    private final boolean tagged;
    private final boolean rma;
    private final boolean atomics;

    // ---- under this
    private TcpAddressVector av;
    private boolean enabled;
    private ServerSocketChannel listener;
    private SelectionKey listenKey;
    private byte[] name;
    private byte[] hello;
    private final Map<RdmPeer, RdmPeer> byName = new HashMap<>();
    private final List<RdmPeer> peers = new ArrayList<>();
    private final Set<RdmIncoming> incoming = Collections.newSetFromMap(new IdentityHashMap<>());
    /** fi_addr cache, indexed by the fi_addr's slot (its low 32 bits): no allocation per operation. */
    private long[] cachedAddr = new long[16];
    private RdmPeer[] cachedPeer = new RdmPeer[16];
    /** The connection {@link #target} chose, and whether it created it (then it still has to connect). */
    private TcpEndpoint target;
    private boolean targetFresh;
    /** Peers whose sends are parked (crossed-connect reject); read without the lock by {@link #checkParked}. */
    private volatile int parkedCount;
    /** Runs {@link #checkParked} after every pass of the fabric's CM loop while enabled. */
    private final Runnable parkTicker = this::checkParked;
    private NioLoop cmLoop;

    TcpRdmEndpoint(TcpDomain domain, Info info, Object context) {
        super(FidClass.ENDPOINT, context);
        this.domain = domain;
        this.info = info.copy();
        this.info.handle(null);
        long caps = info.caps();
        this.source = (caps & Fi.FI_SOURCE) != 0;
        this.sourceErr = source && (caps & Fi.FI_SOURCE_ERR) != 0;
        this.directed = (caps & Fi.FI_DIRECTED_RECV) != 0;
        this.tagged = (caps & Fi.FI_TAGGED) != 0;
        this.rma = (caps & Fi.FI_RMA) != 0;
        this.atomics = (caps & Fi.FI_ATOMIC) != 0;
        this.rx = new TcpEndpoint(domain, this.info, context, this, null);
        Arrays.fill(cachedAddr, Fi.FI_ADDR_NOTAVAIL);
    }

    // =================================================================== control path

    /**
     * {@code fi_ep_bind}: an AV (required before {@code enable}; this provider's), CQs
     * ({@code FI_TRANSMIT}, {@code FI_RECV}, {@code FI_SELECTIVE_COMPLETION}) and counters as for
     * MSG endpoints; an EQ is accepted (RDM endpoints raise no connection events). Each bound
     * object is retained until close (R9).
     *
     * @throws FabricException {@code EINVAL} for a foreign object, wrong flags or a second bind;
     *         {@code EOPBADSTATE} after {@code enable}
     */
    @Override
    public void bind(Fid fid, long flags) throws FabricException {
        synchronized (this) {
            ensureOpen("bind");
            if (enabled) {
                throw new FabricException(Errno.EOPBADSTATE, "bind: the endpoint is enabled already; bind before enable");
            }
            if (fid instanceof io.jofi.spi.util.UtilAddressVector && !(fid instanceof TcpAddressVector)) {
                throw new FabricException(Errno.EINVAL, "bind: " + fid + " is not an address vector of a tcp domain");
            }
            // The bindings holder keeps every binding, the AV too (EndpointBindings' rules and
            // retains); this endpoint only listens to the AV's removals.
            rx.bind(fid, flags);
            if (fid instanceof TcpAddressVector a) {
                av = a;
                a.addRemovalListener(this);
            }
        }
    }

    /**
     * {@code fi_enable}: starts listening on the info's source address (port 0: an ephemeral
     * port; none: every address) so that peers can connect; {@link #getName()} is then the
     * concrete address. A second call does nothing.
     *
     * @throws FabricException {@code ENOAV} without a bound AV; {@code EADDRINUSE} /
     *         {@code EADDRNOTAVAIL} when the address cannot be bound; {@code ENODEV} after departure
     */
    @Override
    public void enable() throws FabricException {
        synchronized (this) {
            ensureOpen("enable");
            if (enabled) {
                return;
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
                hello = RdmHelloDescriptor.encode(RdmHelloDescriptor.KIND_HELLO, n);
            } catch (IOException e) {
                Sockets.closeQuietly(s);
                throw new FabricException(Errno.EIO, "enable: cannot listen on " + local + ": " + e.getMessage(), e);
            } catch (FabricException e) {
                Sockets.closeQuietly(s);
                throw e;
            }
            rx.enableForRdm(directed);
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
        synchronized (this) {
            return rx.cancel(context);
        }
    }

    /** {@code fi_getopt}: as MSG endpoints. */
    @Override
    public long getOpt(int level, int name) throws FabricException {
        return rx.getOpt(level, name);
    }

    /** {@code fi_setopt}: as MSG endpoints. */
    @Override
    public void setOpt(int level, int name, long value) throws FabricException {
        rx.setOpt(level, name, value);
    }

    // =================================================================== peers and connections

    /**
     * Picks the connection for {@code dest} into {@link #target} (creating it, unconnected, on
     * first use). Caller holds the lock.
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
        RdmPeer p = null;
        long slot = dest & 0xFFFF_FFFFL;
        if (dest >= 0 && slot < cachedAddr.length && cachedAddr[(int) slot] == dest) {
            p = cachedPeer[(int) slot];
        }
        if (p == null) {
            byte[] addr = av.addressOf(dest);
            if (addr == null) {
                return -Errno.EINVAL;
            }
            p = peerNamed(addr);
            if (dest >= 0 && slot < MAX_CACHED_SLOT) {
                cache((int) slot, dest, p);
            }
        }
        TcpEndpoint c = p.conn;
        targetFresh = false;
        if (c == null) {
            c = new TcpEndpoint(this, p, rx);
            p.conn = c;
            p.active = true;
            targetFresh = true;
        }
        target = c;
        return 0;
    }

    /**
     * {@link #target(long)} for an operation of a capability the endpoint may lack:
     * {@code -ENOSYS} without it. Caller holds the lock.
     */
    private int target(boolean capable, long dest) {
        return capable ? target(dest) : -Errno.ENOSYS;
    }

    /**
     * {@link #target(long)} of a message's address: {@code -ENOSYS} without the capability,
     * then {@code -EINVAL} without a message. Caller holds the lock.
     */
    private int target(boolean capable, Msg msg) {
        if (!capable) {
            return -Errno.ENOSYS;
        }
        return msg == null ? -Errno.EINVAL : target(msg.addr());
    }

    private void cache(int slot, long dest, RdmPeer p) {
        if (slot >= cachedAddr.length) {
            int n = Math.max(slot + 1, cachedAddr.length * 2);
            int old = cachedAddr.length;
            cachedAddr = Arrays.copyOf(cachedAddr, n);
            Arrays.fill(cachedAddr, old, n, Fi.FI_ADDR_NOTAVAIL);
            cachedPeer = Arrays.copyOf(cachedPeer, n);
        }
        cachedAddr[slot] = dest;
        cachedPeer[slot] = p;
    }

    /** The peer of that name, created on first sight. Caller holds the lock. */
    private RdmPeer peerNamed(byte[] peerName) {
        RdmPeer probe = new RdmPeer(peerName);
        RdmPeer p = byName.get(probe);
        if (p == null) {
            p = probe;
            byName.put(p, p);
            peers.add(p);
        }
        return p;
    }

    /**
     * After an operation was handed to {@link #target}: a connection created for it starts
     * connecting now (the operation is queued first, so even a connect refused at once fails it
     * with an error completion rather than losing it).
     */
    private int launched(int rc) {
        TcpEndpoint c = target;
        target = null;
        if (targetFresh) {
            targetFresh = false;
            if (rc < 0) {
                // refused (PostChecks, a full CQ): nothing was queued, so no connection is
                // opened either — a refused call changes nothing
                if (c.peer.conn == c) {
                    c.peer.conn = null;
                    c.peer.active = false;
                }
                return rc;
            }
            try {
                c.connect(c.peer.name, hello);
            } catch (FabricException e) {
                if (c.peer.conn == c) {
                    c.peer.conn = null;
                }
                c.failRdm(e.errno() > 0 ? e.errno() : Errno.EIO);
            }
        }
        return rc;
    }

    /** The fi_addr a connection's messages report (R10): the peer's AV entry, or FI_ADDR_NOTAVAIL. Under the lock. */
    long sourceOf(RdmPeer p) {
        return source ? p.fiAddr(av) : Fi.FI_ADDR_NOTAVAIL;
    }

    /** Whether a sender not in the AV turns receive completions into EADDRNOTAVAIL errors (R10). */
    boolean sourceErr() {
        return sourceErr;
    }

    /**
     * A connection's connect failed (called by it, under the lock, its socket closed and its
     * queued sends kept): a crossed-connect reject parks them for the peer's connection;
     * anything else fails them with {@code err}.
     */
    void connectFailed(TcpEndpoint c, int err, byte[] errData, int errDataSize) {
        RdmPeer p = c.peer;
        if (p.conn == c && errData != null
                && RdmHelloDescriptor.kind(errData, errDataSize) == RdmHelloDescriptor.KIND_REJECT_CROSSED) {
            c.awaitPeer();
            p.parkedAt = System.nanoTime();
            parkedCount++;
            return;
        }
        if (p.conn == c) {
            p.conn = null;
        }
        c.failRdm(err == Errno.ENOPROTOOPT ? Errno.ECONNREFUSED : err);
    }

    /**
     * CM loop, after every pass: sends parked longer than {@link #PARK_RETRY_NANOS} move to a
     * new connection of ours (the peer's connection never came).
     */
    private void checkParked() {
        if (parkedCount == 0) {
            return;
        }
        synchronized (this) {
            long now = System.nanoTime();
            int still = 0;
            for (int i = 0, n = peers.size(); i < n; i++) {
                RdmPeer p = peers.get(i);
                TcpEndpoint c = p.conn;
                if (c == null || !c.isAwaitingPeer()) {
                    continue;
                }
                if (now - p.parkedAt < PARK_RETRY_NANOS || !enabled) {
                    still++;
                    continue;
                }
                TcpEndpoint fresh = new TcpEndpoint(this, p, rx);
                p.conn = fresh;
                p.active = true;
                c.moveQueuedSendsTo(fresh);
                target = fresh;
                targetFresh = true;
                launched(0);
            }
            parkedCount = still;
        }
    }

    /** A connection went down (its operations failed already): forget it; a standby takes over. */
    void connectionDown(TcpEndpoint c) {
        RdmPeer p = c.peer;
        if (p.standby == c) {
            p.standby = null;
        }
        if (p.conn == c) {
            p.conn = p.standby;
            p.active = false;
            p.standby = null;
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
            RdmPeer p = peerNamed(peerName);
            TcpEndpoint old = p.conn;
            if (old != null && !old.isUp()) {
                old = null;
            }
            if (old != null && p.active && RdmPeer.compare(name, peerName) < 0 && !old.isEstablished()) {
                // Crossed connects: ours (initiated by the lower name) is kept.
                in.reject(RdmHelloDescriptor.KIND_REJECT_CROSSED);
                return;
            }
            TcpEndpoint c = new TcpEndpoint(this, p, rx);
            try {
                c.acceptRdm(in.channel, in.key, hello);
            } catch (FabricException e) {
                in.close();
                return;
            }
            if (old != null && Arrays.equals(name, peerName)) {
                // A send to itself (FI_LOCAL_COMM): both ends of one socket are this endpoint's; the
                // initiating end sends, the accepted end receives.
                p.standby = c;
            } else if (old == null) {
                p.conn = c;
                p.active = false;
            } else if (!old.isEstablished()) {
                // Ours crosses the peer's and loses (or waits for it): hand its queued sends over.
                p.conn = c;
                p.active = false;
                old.moveQueuedSendsTo(c);
            } else {
                // The peer connects again while ours looks established: it reconnects after losing
                // the old one, or this is the late request of crossed connects. Keep both; sends
                // stay on the old one until it goes down (connectionDown promotes this one).
                TcpEndpoint previous = p.standby;
                p.standby = c;
                if (previous != null) {
                    previous.failRdm(Errno.ECONNRESET);
                }
            }
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
            Arrays.fill(cachedAddr, Fi.FI_ADDR_NOTAVAIL);
            Arrays.fill(cachedPeer, null);
            if (addrs == null) {
                return;
            }
            for (byte[] a : addrs) {
                if (a == null) {
                    continue;
                }
                RdmPeer p = byName.get(new RdmPeer(a));
                if (p == null) {
                    continue;
                }
                TcpEndpoint c = p.conn;
                TcpEndpoint s = p.standby;
                p.conn = null;
                p.standby = null;
                if (c != null) {
                    c.failRdm(Errno.ECANCELED);
                }
                if (s != null) {
                    s.failRdm(Errno.ECANCELED);
                }
            }
        }
    }

    /** A receive was posted: connections that paused for want of one read on. Under the lock. */
    private int resumed(int rc) {
        if (rc == 0) {
            for (int i = 0, n = peers.size(); i < n; i++) {
                RdmPeer p = peers.get(i);
                if (p.conn != null) {
                    p.conn.resumeIfPaused();
                }
                if (p.standby != null) {
                    p.standby.resumeIfPaused();
                }
            }
        }
        return rc;
    }

    // =================================================================== data path: receive

    /** {@code fi_recv}: from any peer, or with {@code FI_DIRECTED_RECV} only from {@code srcAddr}. */
    @Override
    public int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        synchronized (this) {
            return resumed(rx.recv(buf, desc, srcAddr, context));
        }
    }

    /** {@code fi_recvmsg}: as MSG endpoints; {@code msg.addr()} directs it with {@code FI_DIRECTED_RECV}. */
    @Override
    public int recvMsg(Msg msg, long flags) {
        synchronized (this) {
            return resumed(rx.recvMsg(msg, flags));
        }
    }

    /** {@code fi_trecv}: as MSG endpoints, directed as {@link #recv}. */
    @Override
    public int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        synchronized (this) {
            return resumed(rx.trecv(buf, desc, srcAddr, tag, ignore, context));
        }
    }

    /** {@code fi_trecvmsg}: as MSG endpoints. */
    @Override
    public int trecvMsg(TaggedMsg msg, long flags) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        synchronized (this) {
            return resumed(rx.trecvMsg(msg, flags));
        }
    }

    // =================================================================== data path: transmit

    /** {@code fi_send} to {@code destAddr} (connects on first use). */
    @Override
    public int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        synchronized (this) {
            int rc = target(destAddr);
            return rc != 0 ? rc : launched(target.send(buf, desc, destAddr, context));
        }
    }

    /** {@code fi_senddata}. */
    @Override
    public int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        synchronized (this) {
            int rc = target(destAddr);
            return rc != 0 ? rc : launched(target.sendData(buf, desc, data, destAddr, context));
        }
    }

    /** {@code fi_inject}. */
    @Override
    public int inject(ByteBuffer buf, long destAddr) {
        synchronized (this) {
            int rc = target(destAddr);
            return rc != 0 ? rc : launched(target.inject(buf, destAddr));
        }
    }

    /** {@code fi_injectdata}. */
    @Override
    public int injectData(ByteBuffer buf, long data, long destAddr) {
        synchronized (this) {
            int rc = target(destAddr);
            return rc != 0 ? rc : launched(target.injectData(buf, data, destAddr));
        }
    }

    /** {@code fi_sendmsg} to {@code msg.addr()}. */
    @Override
    public int sendMsg(Msg msg, long flags) {
        synchronized (this) {
            int rc = target(true, msg);
            return rc != 0 ? rc : launched(target.sendMsg(msg, flags));
        }
    }

    /** {@code fi_tsend}. */
    @Override
    public int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        synchronized (this) {
            int rc = target(tagged, destAddr);
            return rc != 0 ? rc : launched(target.tsend(buf, desc, destAddr, tag, context));
        }
    }

    /** {@code fi_tsenddata}. */
    @Override
    public int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        synchronized (this) {
            int rc = target(tagged, destAddr);
            return rc != 0 ? rc : launched(target.tsendData(buf, desc, data, destAddr, tag, context));
        }
    }

    /** {@code fi_tinject}. */
    @Override
    public int tinject(ByteBuffer buf, long destAddr, long tag) {
        synchronized (this) {
            int rc = target(tagged, destAddr);
            return rc != 0 ? rc : launched(target.tinject(buf, destAddr, tag));
        }
    }

    /** {@code fi_tsendmsg} to {@code msg.addr()}. */
    @Override
    public int tsendMsg(TaggedMsg msg, long flags) {
        synchronized (this) {
            int rc = target(tagged, msg);
            return rc != 0 ? rc : launched(target.tsendMsg(msg, flags));
        }
    }

    /** {@code fi_read} from {@code srcAddr}'s registered memory. */
    @Override
    public int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        synchronized (this) {
            int rc = target(rma, srcAddr);
            return rc != 0 ? rc : launched(target.read(buf, desc, srcAddr, addr, key, context));
        }
    }

    /** {@code fi_write}. */
    @Override
    public int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        synchronized (this) {
            int rc = target(rma, destAddr);
            return rc != 0 ? rc : launched(target.write(buf, desc, destAddr, addr, key, context));
        }
    }

    /** {@code fi_writedata}. */
    @Override
    public int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        synchronized (this) {
            int rc = target(rma, destAddr);
            return rc != 0 ? rc : launched(target.writeData(buf, desc, data, destAddr, addr, key, context));
        }
    }

    /** {@code fi_inject_write}. */
    @Override
    public int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        synchronized (this) {
            int rc = target(rma, destAddr);
            return rc != 0 ? rc : launched(target.injectWrite(buf, destAddr, addr, key));
        }
    }

    /** {@code fi_readmsg} from {@code msg.addr()}. */
    @Override
    public int readMsg(RmaMsg msg, long flags) {
        synchronized (this) {
            int rc = target(rma, msg);
            return rc != 0 ? rc : launched(target.readMsg(msg, flags));
        }
    }

    /** {@code fi_writemsg} to {@code msg.addr()}. */
    @Override
    public int writeMsg(RmaMsg msg, long flags) {
        synchronized (this) {
            int rc = target(rma, msg);
            return rc != 0 ? rc : launched(target.writeMsg(msg, flags));
        }
    }

    /** {@code fi_atomic}. */
    @Override
    public int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        synchronized (this) {
            int rc = target(atomics, destAddr);
            return rc != 0 ? rc : launched(target.atomic(operand, destAddr, addr, key, op, context));
        }
    }

    /** {@code fi_fetch_atomic}. */
    @Override
    public int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                           int op, Object context) {
        synchronized (this) {
            int rc = target(atomics, destAddr);
            return rc != 0 ? rc
                    : launched(target.fetchAtomic(operand, result, resultDesc, destAddr, addr, key, op, context));
        }
    }

    /** {@code fi_compare_atomic}. */
    @Override
    public int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                             long addr, long key, Object context) {
        synchronized (this) {
            int rc = target(atomics, destAddr);
            return rc != 0 ? rc
                    : launched(target.compareAtomic(compare, swap, result, resultDesc, destAddr, addr, key, context));
        }
    }

    // =================================================================== life cycle

    private List<TcpEndpoint> connections() {
        List<TcpEndpoint> all = new ArrayList<>();
        for (RdmPeer p : peers) {
            if (p.conn != null) {
                all.add(p.conn);
            }
            if (p.standby != null) {
                all.add(p.standby);
            }
        }
        return all;
    }

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
            for (TcpEndpoint c : connections()) {
                c.close();
            }
            for (RdmPeer p : peers) {
                p.conn = null;
                p.standby = null;
            }
            if (av != null) {
                av.removeRemovalListener(this);
                av = null;
            }
            rx.close(); // releases the bindings, the AV's too
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
            for (TcpEndpoint c : connections()) {
                departAlong(c);
            }
            departAlong(rx);
        }
    }

    @Override
    protected String describe() {
        return "tcp RDM endpoint";
    }

    /** A connection waiting for its peer's crossed connection, or null (tests). */
    TcpEndpoint awaitingPeer() {
        synchronized (this) {
            for (RdmPeer p : peers) {
                if (p.conn != null && p.conn.isAwaitingPeer()) {
                    return p.conn;
                }
            }
            return null;
        }
    }

    /** Connections not down (tests: reuse in both directions, one connection after crossed connects). */
    int connectionCount() {
        synchronized (this) {
            int n = 0;
            for (TcpEndpoint c : connections()) {
                if (c.isUp()) {
                    n++;
                }
            }
            return n;
        }
    }
}
