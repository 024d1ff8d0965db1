package io.jofi.provider.verbs;

import com.sun.jna.Native;
import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.RdmaCmIdDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.UtilAddressVector;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The peer connections of an RDM endpoint ({@link VerbsRdmEndpoint}): its rdma_cm listener
 * (whose address is the endpoint's name), one RC connection per peer made on the first send to
 * it or accepted from it, their set-up through rdma_cm with the {@link VerbsRdmHelloDescriptor}
 * hello, crossed connects, failures, timers and the AV's removals.
 *
 * <p><b>Set-up.</b> The first send to an fi_addr resolves the peer's name (its listener) and
 * connects an RC queue pair to it, the connect request carrying a hello with this endpoint's
 * name; sends wait on the connection, in order ({@link RdmTransmitter}), until it is
 * established. The target accepts (its hello names it back) and maps the connection to the
 * sender's name, so that receives report the sender's fi_addr (FI_SOURCE) or, with
 * {@code FI_SOURCE_ERR}, its raw name (R10). A connection carries sends both ways.
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
 * <p><b>Failures.</b> A set-up that fails fails the sends queued on it with an error
 * completion: no listener ({@code ECONNREFUSED}), no route or a loopback name
 * ({@code EHOSTUNREACH}), no answer within rdma_cm's timeouts or {@link #CONNECT_NANOS}
 * ({@code ETIMEDOUT}); a peer that disconnects or dies fails the operations still pending on
 * its connection ({@code ECONNRESET}); a peer removed from the AV ends its connections, and the
 * operations pending towards it complete with {@code ECANCELED}. The endpoint works on with
 * every other peer, and the next send to that peer connects again.
 *
 * <p>Not thread-safe: every method runs under the endpoint's monitor (the CM thread per event,
 * the progress thread per poll, the application per operation).
 */
final class RdmPeers {
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
    private static final int RESOLVE_TIMEOUT_MS = 2000;

    /** The endpoint: the rdma_cm and async-event handler of every id and queue pair made here. */
    private final VerbsRdmEndpoint owner;
    private final VerbsDomain domain;
    private final CmChannel cm;
    private final EndpointQueues queues;
    private final RdmTransmitter transmitter;
    private final UtilAddressVector av;
    /**
     * RDM endpoints of this device offer RMA ({@link VerbsInfos#RDM_RMA_ON_IWARP}): only then do
     * its connections ask for RDMA read depths (on iWARP they stay as they were before RMA).
     */
    private final boolean rmaHere;
    private final boolean iwarp;
    private final ConnParam param = new ConnParam();
    /** {@link #CONNECT_NANOS}, shorter in tests ({@link #connectTimeout}). */
    private long connectNanos = CONNECT_NANOS;
    private long listenId;
    private byte[] name;
    /** Every connection not released yet (lookup by id and by qp_num). */
    private final List<RdmConnection> connections = new ArrayList<>();
    /** The last connection a receive completion named (most completions come from the same peer). */
    private RdmConnection lastRx;

    RdmPeers(VerbsRdmEndpoint owner, VerbsDomain domain, EndpointQueues queues, RdmTransmitter transmitter,
             UtilAddressVector av, boolean rmaHere) throws FabricException {
        this.owner = owner;
        this.domain = domain;
        this.cm = domain.verbsFabric().cm();
        this.queues = queues;
        this.transmitter = transmitter;
        this.av = av;
        this.rmaHere = rmaHere;
        this.iwarp = domain.port().iwarp();
    }

    /** The listener's concrete sockaddr: the endpoint's name (null before {@link #listen}). */
    byte[] name() {
        return name;
    }

    /** Binds and starts the listener on {@code src} (port 0: ephemeral); its address becomes the name. */
    void listen(byte[] src) throws FabricException {
        long newId = cm.createId(owner);
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

    /** Creates the RC queue pair of {@code c} on its id (the endpoint's CQ and SRQ); 0 or an errno. */
    private int createQueuePair(RdmConnection c) {
        if (!queues.onThisDevice(c.id)) {
            return Errno.EINVAL; // the address routes through another device than this domain's
        }
        long qp = queues.createQueuePair(c.id, 0, owner);
        if (qp == 0) {
            return Errno.ENOMEM;
        }
        c.qp = qp;
        c.qpNum = EndpointQueues.qpNum(qp);
        c.chain.queuePair(qp);
        return 0;
    }

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
    RdmConnection connectionFor(long dest) {
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
            c.chain = queues.newSendChain();
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
            newId = cm.createId(owner);
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
    void connectTimeout(long nanos) {
        connectNanos = nanos;
    }

    /** A connect request on the listener: the hello names the peer; accept, or reject a crossed connect. */
    private void onConnectRequest(long reqId, byte[] privateData) {
        byte[] hello = ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length);
        byte[] peer = VerbsRdmHelloDescriptor.kind(hello) == VerbsRdmHelloDescriptor.HELLO ? VerbsRdmHelloDescriptor.name(hello) : null;
        if (peer == null) {
            reject(reqId, VerbsRdmHelloDescriptor.REJECT_BAD_HELLO);
            return;
        }
        if (!queues.onThisDevice(reqId)) {
            reject(reqId, VerbsRdmHelloDescriptor.REJECT_BAD_HELLO); // arrived through another device
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
            transmitter.moveWaiting(existing, c);
            abandon(existing);
        } else if (existing.state == RdmConnection.CONNECTING) {
            if (RdmTrace.ON) {
                RdmTrace.log(name, existing, "crossed: the peer's request refused, ours is kept");
            }
            reject(reqId, VerbsRdmHelloDescriptor.REJECT_CROSSED); // ours (the lower name's) is kept
            return;
        } else {
            c.receiveOnly = true; // a second connection while one is up: a standby (receives now, sends later)
        }
        c.chain = queues.newSendChain();
        c.connectDeadline = System.nanoTime() + connectNanos;
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "accept" + (existing == null ? "" : ", existing conn@"
                    + Integer.toHexString(System.identityHashCode(existing)) + " state " + existing.state));
        }
        c.token = cm.adopt(reqId, owner);
        c.id = reqId;
        connections.add(c);
        int rc = createQueuePair(c);
        param.write(VerbsRdmHelloDescriptor.encode(VerbsRdmHelloDescriptor.HELLO, name), rmaHere, domain.port());
        if (rc != 0 || Rdmacm.rdma_accept(reqId, param.address()) != 0) {
            connectionFailed(c, Errno.ECONNREFUSED);
        }
    }

    /** Rejects connect request {@code reqId} with a hello of {@code kind} and destroys its id. */
    static void reject(long reqId, int kind) {
        byte[] hello = VerbsRdmHelloDescriptor.encode(kind, null);
        try (NativeBlock data = new NativeBlock(ConnData.MAX_FRAME)) {
            int n = ConnData.write(hello, data.view(), 0);
            Rdmacm.rdma_reject(reqId, data.address(), (byte) n);
        }
        // never adopted: the id still carries the listener's token, so destroy it directly
        Rdmacm.rdma_destroy_id(reqId);
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

    /** An rdma_cm event of the listener or of a connection (CM thread, under the endpoint's monitor). */
    void onCmEvent(long cmId, long token, int event, int status, byte[] privateData) {
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
                param.write(VerbsRdmHelloDescriptor.encode(VerbsRdmHelloDescriptor.HELLO, name), rmaHere, domain.port());
                if (Rdmacm.rdma_connect(c.id, param.address()) != 0) {
                    connectionFailed(c, Errno.ECONNREFUSED);
                }
                break;
            }
            case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED:
                if (c.state == RdmConnection.CONNECTING || c.state == RdmConnection.ACCEPTING) {
                    c.state = RdmConnection.CONNECTED;
                    transmitter.flushWaiting(c);
                }
                break;
            case VerbsConstants.RDMA_CM_EVENT_REJECTED: {
                byte[] hello = ConnData.read(ByteBuffer.wrap(privateData), 0, privateData.length);
                if (VerbsRdmHelloDescriptor.kind(hello) == VerbsRdmHelloDescriptor.REJECT_CROSSED && c.active) {
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
                    connectionFailed(c, CmEvents.setupErrno(event));
                }
                break;
            default:
                break; // timewait exit, address change: nothing to do
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

    /** The connection of queue pair number {@code qpNum} (a work completion's), or null. */
    RdmConnection connectionOfQp(int qpNum) {
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
        transmitter.failWaiting(c, err);
        if (c.outstanding == 0) {
            release(c);
        }
    }

    /**
     * The device reported an error of one connection's queue pair that no work completion
     * carries ({@link AsyncEvents}): that connection ends as if the peer had gone (its pending
     * sends fail with {@code ECONNRESET}, the next send connects again); the others live on.
     */
    void onQueuePairError(long qp) {
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
    void peerDown(RdmConnection c) {
        if (RdmTrace.ON) {
            RdmTrace.log(name, c, "down");
        }
        Rdmacm.rdma_disconnect(c.id);
        c.state = RdmConnection.DOWN;
        c.peerGone = true;
        sweepLater(c);
        transmitter.failWaiting(c, Errno.ECONNRESET);
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
            c.sweepAt = Math.max(1, System.nanoTime() + MsgConnection.SWEEP_DELAY_NANOS);
        }
    }

    /** Destroys the queue pair and the id of {@code c} (the endpoint keeps the object). */
    private void destroyNative(RdmConnection c) {
        transmitter.forget(c);
        if (c.id != 0) {
            if (c.qp != 0) {
                queues.destroyQueuePair(c.id, c.qp);
                c.qp = 0;
            }
            cm.destroyId(c.id);
            c.id = 0;
        }
    }

    /** Forgets {@code c}: native resources and staging memory go. */
    void release(RdmConnection c) {
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
    void connectionTimers() {
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
                transmitter.sweep(c);
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
    void removed(byte[][] addrs) {
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

    /** For tests: the connections that carry sends (live, not receive-only), one per peer. */
    int sendConnections() {
        int n = 0;
        for (int i = 0; i < connections.size(); i++) {
            if (connections.get(i).live() && !connections.get(i).receiveOnly) {
                n++;
            }
        }
        return n;
    }

    /**
     * Teardown: every connection ends (established ones disconnect), nothing waits on them any
     * more, their queue pairs and ids go, then the listener and the parameters' memory.
     */
    void close() {
        for (RdmConnection c : new ArrayList<>(connections)) {
            if (c.id != 0 && (c.state == RdmConnection.CONNECTED || c.state == RdmConnection.ACCEPTING)) {
                Rdmacm.rdma_disconnect(c.id);
            }
            c.waitHead = -1;
            c.waitTail = -1;
            c.waitCount = 0;
            release(c);
        }
        if (listenId != 0) {
            cm.destroyId(listenId);
            listenId = 0;
        }
        param.close();
    }
}
