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
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.EndpointBindings;
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
 * <p><b>Parts.</b> This class is the public face: it owns the bindings, the listener and the
 * receive posts ({@link TcpReceiveSide}, one {@link RxMatcher} all connections deliver into).
 * {@link RdmPeers} keeps the peers and their connections; each connection is a
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
final class TcpRdmEndpoint extends AbstractFid implements Endpoint, SelectHandler, TcpAddressVector.RemovalListener,
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
    /** Operations the caps cover; others answer {@code -ENOSYS} before any address is looked at. */
    private final boolean tagged;
    private final boolean rma;
    private final boolean atomics;
    /** fi_ep_bind's rules and retains (util); {@link #bound} holds the data path's copies. */
    private final EndpointBindings bindings;
    private final DataPathBindings bound = new DataPathBindings();
    private final TcpReceiveSide receives;
    private final RdmPeers peers;

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
        this.bindings = new EndpointBindings(domain.engine(), EndpointBindings.ALL_COUNTER_ROLES);
        this.receives = new TcpReceiveSide(this, this, bound, this.info, domain.provider());
        this.peers = new RdmPeers(this, domain, this.info, bound, receives.matcher);
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
            // The bindings keep every binding, the AV too (EndpointBindings' rules and retains);
            // this endpoint only listens to the AV's removals.
            bindings.bind(fid, flags);
            bound.update(bindings);
            receives.bound();
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
                hello = TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, n);
            } catch (IOException e) {
                Sockets.closeQuietly(s);
                throw new FabricException(Errno.EIO, "enable: cannot listen on " + local + ": " + e.getMessage(), e);
            } catch (FabricException e) {
                Sockets.closeQuietly(s);
                throw e;
            }
            receives.directed(directed);
            bindings.seal();
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

    // =================================================================== peers (called by RdmPeers, RdmIncoming, RdmConnectionRole)

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

    /** CM loop, after every pass: sends parked too long connect again ({@link RdmPeers#checkParked}). */
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

    /** {@code fi_recv}: from any peer, or with {@code FI_DIRECTED_RECV} only from {@code srcAddr}. */
    @Override
    public int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        synchronized (this) {
            return resumed(receives.recv(buf, desc, srcAddr, context));
        }
    }

    /** {@code fi_recvmsg}: as MSG endpoints; {@code msg.addr()} directs it with {@code FI_DIRECTED_RECV}. */
    @Override
    public int recvMsg(Msg msg, long flags) {
        synchronized (this) {
            return resumed(receives.recvMsg(msg, flags));
        }
    }

    /** {@code fi_trecv}: as MSG endpoints, directed as {@link #recv}. */
    @Override
    public int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        synchronized (this) {
            return resumed(receives.trecv(buf, desc, srcAddr, tag, ignore, context));
        }
    }

    /** {@code fi_trecvmsg}: as MSG endpoints. */
    @Override
    public int trecvMsg(TaggedMsg msg, long flags) {
        if (!tagged) {
            return -Errno.ENOSYS;
        }
        synchronized (this) {
            return resumed(receives.trecvMsg(msg, flags));
        }
    }

    // =================================================================== data path: transmit

    /**
     * Picks the connection for {@code dest} ({@link RdmPeers#target}) after the checks every
     * transmit makes first. Caller holds the lock.
     *
     * @return 0, or {@code -ENOSYS} without the capability, {@code -EBADF}/{@code -ENODEV}
     *         (closed/departed), {@code -EOPBADSTATE} (not enabled), {@code -EINVAL}
     *         ({@code dest} is not in the AV)
     */
    private int target(boolean capable, long dest) {
        if (!capable) {
            return -Errno.ENOSYS;
        }
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        return peers.target(dest, av);
    }

    /** {@link #target(boolean, long)} of a message's address ({@code -EINVAL} without a message). */
    private int target(boolean capable, Msg msg) {
        if (!capable) {
            return -Errno.ENOSYS;
        }
        return msg == null ? -Errno.EINVAL : target(true, msg.addr());
    }

    /** After the operation was handed to the chosen connection: a new connection connects now. */
    private int launched(int rc) {
        return peers.launched(rc, hello);
    }

    /** {@code fi_send} to {@code destAddr} (connects on first use). */
    @Override
    public int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        synchronized (this) {
            int rc = target(true, destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.send(buf, desc, destAddr, context));
        }
    }

    @Override
    public int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        synchronized (this) {
            int rc = target(true, destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.sendData(buf, desc, data, destAddr, context));
        }
    }

    @Override
    public int inject(ByteBuffer buf, long destAddr) {
        synchronized (this) {
            int rc = target(true, destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.inject(buf, destAddr));
        }
    }

    @Override
    public int injectData(ByteBuffer buf, long data, long destAddr) {
        synchronized (this) {
            int rc = target(true, destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.injectData(buf, data, destAddr));
        }
    }

    /** {@code fi_sendmsg} to {@code msg.addr()}. */
    @Override
    public int sendMsg(Msg msg, long flags) {
        synchronized (this) {
            int rc = target(true, msg);
            return rc != 0 ? rc : launched(peers.target.messages.sendMsg(msg, flags));
        }
    }

    @Override
    public int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        synchronized (this) {
            int rc = target(tagged, destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.tsend(buf, desc, destAddr, tag, context));
        }
    }

    @Override
    public int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        synchronized (this) {
            int rc = target(tagged, destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.tsendData(buf, desc, data, destAddr, tag, context));
        }
    }

    @Override
    public int tinject(ByteBuffer buf, long destAddr, long tag) {
        synchronized (this) {
            int rc = target(tagged, destAddr);
            return rc != 0 ? rc : launched(peers.target.messages.tinject(buf, destAddr, tag));
        }
    }

    @Override
    public int tsendMsg(TaggedMsg msg, long flags) {
        synchronized (this) {
            int rc = target(tagged, msg);
            return rc != 0 ? rc : launched(peers.target.messages.tsendMsg(msg, flags));
        }
    }

    /** {@code fi_read} from {@code srcAddr}'s registered memory. */
    @Override
    public int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        synchronized (this) {
            int rc = target(rma, srcAddr);
            return rc != 0 ? rc : launched(peers.target.rma.read(buf, desc, srcAddr, addr, key, context));
        }
    }

    @Override
    public int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        synchronized (this) {
            int rc = target(rma, destAddr);
            return rc != 0 ? rc : launched(peers.target.rma.write(buf, desc, destAddr, addr, key, context));
        }
    }

    @Override
    public int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        synchronized (this) {
            int rc = target(rma, destAddr);
            return rc != 0 ? rc : launched(peers.target.rma.writeData(buf, desc, data, destAddr, addr, key, context));
        }
    }

    @Override
    public int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        synchronized (this) {
            int rc = target(rma, destAddr);
            return rc != 0 ? rc : launched(peers.target.rma.injectWrite(buf, destAddr, addr, key));
        }
    }

    /** {@code fi_readmsg} from {@code msg.addr()}. */
    @Override
    public int readMsg(RmaMsg msg, long flags) {
        synchronized (this) {
            int rc = target(rma, msg);
            return rc != 0 ? rc : launched(peers.target.rma.readMsg(msg, flags));
        }
    }

    /** {@code fi_writemsg} to {@code msg.addr()}. */
    @Override
    public int writeMsg(RmaMsg msg, long flags) {
        synchronized (this) {
            int rc = target(rma, msg);
            return rc != 0 ? rc : launched(peers.target.rma.writeMsg(msg, flags));
        }
    }

    @Override
    public int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        synchronized (this) {
            int rc = target(atomics, destAddr);
            return rc != 0 ? rc : launched(peers.target.rma.atomic(operand, destAddr, addr, key, op, context));
        }
    }

    @Override
    public int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                           int op, Object context) {
        synchronized (this) {
            int rc = target(atomics, destAddr);
            return rc != 0 ? rc
                    : launched(peers.target.rma.fetchAtomic(operand, result, resultDesc, destAddr, addr, key, op, context));
        }
    }

    @Override
    public int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                             long addr, long key, Object context) {
        synchronized (this) {
            int rc = target(atomics, destAddr);
            return rc != 0 ? rc
                    : launched(peers.target.rma.compareAtomic(compare, swap, result, resultDesc, destAddr, addr, key, context));
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
                receives.matcher.discardPosted();
            }
            bindings.releaseAll(this); // the AV's too
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
            receives.matcher.failPosted(err, 0, null);
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
