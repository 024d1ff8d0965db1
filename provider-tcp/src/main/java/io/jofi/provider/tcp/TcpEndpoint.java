package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.BASE_HEADER_LENGTH;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_DELIVERY_COMPLETE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_REMOTE_CQ_DATA;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.ID_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_ATOMIC_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_ATOMIC_RESPONSE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_MSG;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_RESPONSE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_TAGGED;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_WRITE;

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
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.provider.tcp.wire.RdmHelloDescriptor;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.provider.tcp.wire.WireStatus;
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.Atomics;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.MemoryRegistry;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilMemoryRegion;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * An MSG endpoint of the tcp provider ({@code fi_endpoint(3)}, {@code fi_cm(3)},
 * {@code fi_msg(3)}), speaking libfabric's tcp wire format (TCP-WIRE.md).
 *
 * <p><b>Connection state machine.</b> Active: {@code connect} → CONNECTING (socket connect) →
 * REQ_SENT (CM request written, response awaited) → CONNECTED ({@code FI_CONNECTED} with the
 * acceptor's data) or refused (EQ error {@code ECONNREFUSED}, reject data in {@code errData};
 * {@code ENOPROTOOPT} for a response of another version). Passive: opened with the
 * {@code ConnReq} of an {@code FI_CONNREQ} → {@code accept} → ACCEPTING (response being
 * written) → CONNECTED ({@code FI_CONNECTED}). Any end of the connection — local
 * {@code shutdown}, the peer's FIN, reset, malformed input, departure — goes to DOWN once:
 * one {@code FI_SHUTDOWN} (R14) and an error completion for every pending operation
 * ({@code ECONNRESET} when the peer ended it, {@code ECANCELED} when we did).
 *
 * <p><b>Data path.</b> A send is a header plus payload written with one gathering write from
 * a pooled {@link TxOp} (written inline in the caller's thread when nothing is queued ahead);
 * receives are matched by the {@link RxMatcher} (posting order; tag/ignore for tagged
 * receives) and the payload is read straight into the posted buffers. Messages that find no
 * receive are buffered up to the configured limit ({@link TcpSettings}), beyond which the
 * endpoint stops reading from the socket (back-pressure) until a receive is posted.
 * {@code FI_TRANSMIT_COMPLETE}/{@code FI_DELIVERY_COMPLETE}/{@code FI_MATCH_COMPLETE} set
 * flag bit 2; such a send completes when the peer's ack arrives. This side acks a message
 * once it is placed in a receive buffer or buffered unexpected, or — when a JOFI peer asked
 * for {@code FI_MATCH_COMPLETE} (flag bit 1) — once a receive takes it; always before its own
 * receive completion and always in arrival order ({@link AckSequencer}, R11). Truncation
 * completes with {@code ETRUNC} (R12).
 *
 * <p><b>RMA and atomics.</b> Writes (op 4) and read requests (op 2) from the peer are checked
 * against the domain's {@code MemoryRegistry} before any byte of a region is touched; a
 * refused descriptor tears the connection down. Read responses (op 3) and JOFI's atomic
 * responses (op 6) are matched with this side's requests in order. Atomics (op 5/6) exist only
 * on a connection whose CM handshake carried {@code CM_JOFI_MARKER} on both sides.
 *
 * <p><b>RDM connection mode.</b> A {@link TcpRdmEndpoint} uses this class twice: as its
 * per-peer connections (constructor with the RDM endpoint and an {@link RdmPeer}: no EQ,
 * connection outcomes go to the RDM endpoint, sends queue from creation until the connection
 * is up, a failure fails only this connection's operations, the sender's fi_addr comes from the
 * peer's AV entry) and, never connected, as the holder of its bindings that posts receives into
 * the matcher all connections share ({@link #enableForRdm}). MSG behaviour is unchanged.
 *
 * <p><b>Threads.</b> One lock ({@link #lock}: this endpoint's monitor for MSG, the RDM endpoint
 * for its per-peer connections) guards the connection state, the queues, the socket and the
 * {@link RxMatcher}; the progress step takes it per selected key, the application's calls per
 * operation. Completions are written under it (the util CQ has its own synchronisation).
 */
final class TcpEndpoint extends AbstractFid implements Endpoint, SelectHandler, RxMatcher.Source {
    private static final int IDLE = 0;
    private static final int CONNECTING = 1;
    private static final int REQ_SENT = 2;
    private static final int ACCEPTING = 3;
    private static final int CONNECTED = 4;
    private static final int DOWN = 5;
    /**
     * RDM only: our connect was rejected because the peer's connection to us wins (crossed
     * connects); the queued sends wait here for that connection ({@link TcpRdmEndpoint}).
     */
    private static final int AWAITING_PEER = 6;

    /**
     * Bytes of the per-connection read buffer: many small messages per read, and at most this
     * much of a large payload copied (what arrived with its header).
     */
    static final int READ_BUFFER_BYTES = 16 * 1024;
    /**
     * A payload with at least this many bytes still due, when the read buffer is empty, is read
     * straight into its destination (scattering read, the read buffer last for what follows);
     * a smaller rest is read into the read buffer and copied.
     */
    static final int COPY_THRESHOLD = 2 * 1024;

    /** Read states of a data message. */
    private static final int R_HEADER = 0;
    private static final int R_PAYLOAD = 1;
    private static final int R_UNEXPECTED = 2;
    private static final int R_DISCARD = 3;
    private static final int R_PAUSED = 4;
    /** A read/atomic request waits for room in the transmit queue for its response. */
    private static final int R_BLOCKED = 5;

    /** What the payload being read is for. */
    private static final int P_MSG = 0;
    private static final int P_WRITE = 1;
    private static final int P_READ_RESPONSE = 2;
    private static final int P_ATOMIC_REQUEST = 3;
    private static final int P_ATOMIC_RESPONSE = 4;

    /** TxOp kinds: what completes them and which counter they count on. */
    private static final int K_SEND = 0;
    private static final int K_WRITE = 1;
    private static final int K_READ = 2;
    private static final int K_ATOMIC = 3;
    private static final int K_ATOMIC_FETCH = 4;
    /** A read or atomic response this side sends: no completion, no counter. */
    private static final int K_RESPONSE = 5;

    private static final long TSEND_FLAGS = Fi.FI_SEND | Fi.FI_TAGGED;
    private static final long WRITE_FLAGS = Fi.FI_RMA | Fi.FI_WRITE;
    private static final long READ_FLAGS = Fi.FI_RMA | Fi.FI_READ;
    private static final long REMOTE_WRITE_FLAGS = Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA;
    /** Op word bit of an atomic request: the initiator fetches (the target checks FI_REMOTE_READ too). */
    private static final int ATOMIC_FETCH_BIT = TcpWireDescriptor.ATOMIC_FETCH;
    /** Default FI_OPT_MIN_MULTI_RECV. */
    static final long DEFAULT_MIN_MULTI_RECV = 64;

    private static final long SEND_FLAGS = Fi.FI_SEND | Fi.FI_MSG;
    /**
     * Completion levels served by the wire ack (flag bit 2). The receiver acks once the message
     * is placed in a matched receive buffer, which meets all three (R11: a stronger level than
     * asked is allowed).
     */
    private static final long ACK_LEVELS = Fi.FI_TRANSMIT_COMPLETE | Fi.FI_DELIVERY_COMPLETE | Fi.FI_MATCH_COMPLETE;

    private final TcpDomain domain;
    private final Info info;
    private final PendingConnection request;
    private final int queueSize;
    private final long txOpFlags;
    private final long rxOpFlags;
    /** The endpoint's caps (its info's): operations outside them return -ENOSYS (API.md "Endpoints"). */
    private final long caps;
    /**
     * The monitor that guards this endpoint's state: the endpoint itself for an MSG endpoint;
     * an RDM endpoint passes itself for all its per-peer connections (they share one matcher).
     */
    final Object lock;
    /** Receive matching state (posted receives, unexpected messages); guarded by {@link #lock}. */
    final RxMatcher matcher;

    // ---- bindings (control path, under this)
    /**
     * fi_ep_bind's rules, retains and progress attach (util); the fields below are the data
     * path's copies of what it holds. An RDM connection shares its endpoint's.
     */
    private EndpointBindings bindings;
    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private UtilEventQueue eq;
    private UtilCounter sendCntr;
    private UtilCounter recvCntr;
    private UtilCounter writeCntr;
    private UtilCounter readCntr;
    private UtilCounter remoteWriteCntr;
    private UtilCounter remoteReadCntr;
    private long minMultiRecv = DEFAULT_MIN_MULTI_RECV;
    private UtilAddressVector av;
    private volatile boolean selectiveTx;
    private volatile boolean selectiveRx;
    private boolean enabled;

    // ---- connection (under this)
    private int cm = IDLE;
    private SocketChannel channel;
    private SelectionKey key;
    private final CmMessage cmMessage = new CmMessage();
    private final ByteBuffer cmOut = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + TcpWireDescriptor.CM_MAX_DATA_LENGTH);
    private final ByteBuffer cmIn = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + TcpWireDescriptor.CM_MAX_DATA_LENGTH);
    private boolean interestWrite;
    private boolean interestRead;
    /** Both CM messages carried JOFI's marker: atomics (ops 5/6) and flag bit 1 may be used. */
    private boolean jofiPeer;

    // ---- transmit (under this)
    private final TxOp[] txFree;
    private int txFreeCount;
    private int txCreated;
    private final OpRing<TxOp> txQueue;
    private final OpRing<TxOp> ackWait;
    private int pendingAcks;
    /** Acks leave in the order their messages arrived (tagged matching reorders receives). */
    private final AckSequencer acks = new AckSequencer();
    /** RMA reads and atomics sent, waiting for their responses (in request order). */
    private final OpRing<TxOp> readWait;
    private final OpRing<TxOp> atomicWait;
    /** Operations the application posted that have not completed (bounded by queueSize). */
    private int txOutstanding;
    private boolean ackInFlight;
    private final ByteBuffer ackFrame = ByteBuffer.allocateDirect(BASE_HEADER_LENGTH).order(ByteOrder.BIG_ENDIAN);
    private int headerId;

    // ---- receive (under lock)
    /**
     * The connection's read buffer, in read mode between calls (position = first byte not
     * consumed, limit = end of what arrived). One {@code read} fetches as much as the socket
     * has: headers, small payloads (copied from here into the posted buffers), the start of
     * the next message. Large payloads bypass it ({@link #scatter}).
     */
    private final ByteBuffer rxBuf = ByteBuffer.allocateDirect(READ_BUFFER_BYTES).order(ByteOrder.BIG_ENDIAN).limit(0);
    /** {@link #scatter}'s destinations: a payload's views, then {@link #rxBuf} for what follows. */
    private final ByteBuffer[] scatterViews = new ByteBuffer[TcpProvider.IOV_LIMIT + 1];
    /**
     * The last read returned less than the room it was offered: the socket is empty, so the
     * next read waits for the selector to report the socket readable again (level-triggered:
     * a byte that arrives later is reported). Saves the read that would only find EAGAIN.
     */
    private boolean drained;
    /** {@link #readMessages} is on the stack (a nested call from a completion path returns at once). */
    private boolean reading;
    /** Bytes read from the socket so far (tells a {@link #poll} whether it found anything). */
    private long received;
    /** Why the connection ended ({@link EndReason}): provErrno and errData of its error completions; 0/null for a plain end. */
    private int endProvErrno;
    private byte[] endReason;
    /** Bytes written to the socket (with {@link #received}: the progress the progress timeout watches). */
    private long sent;
    private final StallWatch stall = new StallWatch();
    /** Decoded received header; big-endian (JOFI declares big-endian, TCP-WIRE "Byte order"). */
    private final MessageHeader rxHeader = new MessageHeader(ByteOrder.BIG_ENDIAN);
    /** Encodes sent headers and acks. */
    private final MessageHeader txHeader = new MessageHeader(ByteOrder.BIG_ENDIAN);
    private int readState = R_HEADER;
    private RxOp current;
    private Unexpected currentUnexpected;
    private long messageLength;
    private long discardLeft;
    /** Bytes of the current message that find no room in the receive (R12 {@code olen}). */
    private long messageDiscarded;
    private boolean messageHasData;
    private long messageData;
    private boolean messageAck;
    private long messageAckSeq = -1;
    /** The sender asked for FI_MATCH_COMPLETE (JOFI flag bit 1): no ack while buffered. */
    private boolean messageMatchAck;
    private boolean messageTagged;
    private long messageTag;
    private int payloadKind = P_MSG;
    /** Where the payload of a write, read response or atomic goes (not a posted receive). */
    private final RxOp rmaSink = new RxOp();
    /** Where an atomic request's or response's payload goes ({@link #atomicIn}; its own view, never re-made). */
    private final RxOp atomicSink = new RxOp();
    /** The read or atomic whose response is being read. */
    private TxOp responseFor;
    /** Atomic request payload (operand, compare) or response (old value). */
    private final ByteBuffer atomicIn = ByteBuffer.allocateDirect(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD)
            .order(ByteOrder.BIG_ENDIAN);
    private long atomicAddr;
    private long atomicKey;
    private final MemoryRegistry registry;
    /**
     * The fi_addr the matcher and the receive completions name as this connection's sender:
     * {@code FI_ADDR_NOTAVAIL} on an MSG endpoint; an RDM endpoint sets its peer's
     * ({@link #sourceAddress}) so that FI_DIRECTED_RECV and readFrom (R10) see it.
     */
    private long rxSource = Fi.FI_ADDR_NOTAVAIL;

    // ---- RDM connection mode (both null for an MSG endpoint)
    /** The RDM endpoint this is a per-peer connection of (it is also {@link #lock}), or null. */
    private final TcpRdmEndpoint rdm;
    /** The peer of an RDM connection, or null. */
    final RdmPeer peer;
    /** {@code FI_DIRECTED_RECV} on an RDM endpoint: receives match only their source address. */
    private boolean directedRecv;

    TcpEndpoint(TcpDomain domain, Info info, Object context) {
        this(domain, info, context, null, null);
    }

    /**
     * A per-peer connection of an RDM endpoint: guarded by {@code rdm}, delivering into its
     * shared matcher, with the bindings of {@code bindings} (the RDM endpoint's, not retained
     * again) and no EQ: connection events go to {@code rdm} ({@link TcpRdmEndpoint}).
     */
    TcpEndpoint(TcpRdmEndpoint rdm, RdmPeer peer, TcpEndpoint bindings) {
        this(bindings.domain, bindings.info, rdm.context(), rdm, bindings.matcher, rdm, peer);
        this.bindings = bindings.bindings;
        this.txCq = bindings.txCq;
        this.rxCq = bindings.rxCq;
        this.sendCntr = bindings.sendCntr;
        this.recvCntr = bindings.recvCntr;
        this.writeCntr = bindings.writeCntr;
        this.readCntr = bindings.readCntr;
        this.remoteWriteCntr = bindings.remoteWriteCntr;
        this.remoteReadCntr = bindings.remoteReadCntr;
        this.jofiPeer = true; // both ends of an RDM connection are JOFI (the hello), from the first op on
        this.selectiveTx = bindings.selectiveTx;
        this.selectiveRx = bindings.selectiveRx;
        this.enabled = true;
    }

    /**
     * @param lock    the monitor guarding this endpoint, or null for the endpoint itself (MSG)
     * @param matcher the receive matcher to deliver into (shared by an RDM endpoint's
     *                connections), or null for one of its own (MSG)
     */
    TcpEndpoint(TcpDomain domain, Info info, Object context, Object lock, RxMatcher matcher) {
        this(domain, info, context, lock, matcher, null, null);
    }

    private TcpEndpoint(TcpDomain domain, Info info, Object context, Object lock, RxMatcher matcher,
                        TcpRdmEndpoint rdm, RdmPeer peer) {
        super(FidClass.ENDPOINT, context);
        this.rdm = rdm;
        this.peer = peer;
        this.lock = lock == null ? this : lock;
        this.domain = domain;
        this.info = info.copy();
        this.request = (PendingConnection) info.handle();
        this.info.handle(null);
        long tx = info.txAttr().size();
        long rx = info.rxAttr().size();
        this.queueSize = (int) Math.max(16, Math.min(65536, Math.max(tx, rx) == 0 ? TcpProvider.QUEUE_SIZE : Math.max(tx, rx)));
        this.txOpFlags = info.txAttr().opFlags();
        this.rxOpFlags = info.rxAttr().opFlags();
        this.caps = info.caps();
        this.txFree = new TxOp[2 * queueSize];
        // room for queueSize operations of the application plus queueSize responses to the peer
        this.txQueue = new OpRing<>(2 * queueSize + 1);
        this.ackWait = new OpRing<>(queueSize + 1);
        this.readWait = new OpRing<>(queueSize + 1);
        this.atomicWait = new OpRing<>(queueSize + 1);
        this.registry = domain.memoryRegistry();
        this.bindings = new EndpointBindings(domain.engine(), EndpointBindings.ALL_COUNTER_ROLES);
        this.matcher = matcher != null ? matcher
                : new RxMatcher(queueSize, domain.provider().unexpectedMessages(), domain.provider().unexpectedBytes());
        cmIn.limit(TcpWireDescriptor.CM_HEADER_LENGTH);
    }

    // =================================================================== control path

    /**
     * {@code fi_ep_bind}: a CQ ({@code FI_TRANSMIT}, {@code FI_RECV},
     * {@code FI_SELECTIVE_COMPLETION}), an EQ, a counter (every role of
     * {@link EndpointBindings#ALL_COUNTER_ROLES}) or an AV (accepted, unused by MSG endpoints),
     * with the rules of {@link EndpointBindings}. Each bound object is retained until this
     * endpoint closes (R9) and is driven by the domain's engine in manual progress.
     *
     * @throws FabricException {@code EINVAL} for a foreign object, wrong flags or a second bind
     *         of the same role; {@code EOPBADSTATE} after {@code enable}
     */
    @Override
    public void bind(Fid fid, long flags) throws FabricException {
        synchronized (lock) {
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
            remoteReadCntr = bindings.counter(Fi.FI_REMOTE_READ);
            remoteWriteCntr = bindings.counter(Fi.FI_REMOTE_WRITE);
            matcher.cq(rxCq);
            matcher.counter(recvCntr);
        }
    }

    /**
     * {@code fi_enable}.
     *
     * @throws FabricException {@code ENOEQ} without a bound EQ (MSG endpoints report their
     *         connection there)
     */
    @Override
    public void enable() throws FabricException {
        synchronized (lock) {
            ensureOpen("enable");
            if (eq == null) {
                throw new FabricException(Errno.ENOEQ, "enable: an MSG endpoint needs a bound event queue");
            }
            enabled = true;
            bindings.seal();
        }
    }

    /**
     * Enables the bindings holder of an RDM endpoint ({@link TcpRdmEndpoint}): it posts
     * receives into the shared matcher and never connects, so it needs no EQ. With
     * {@code directed} ({@code FI_DIRECTED_RECV}) a receive's source address restricts it to
     * that peer.
     */
    void enableForRdm(boolean directed) {
        synchronized (lock) {
            directedRecv = directed;
            enabled = true;
            bindings.seal();
        }
    }

    /**
     * {@code fi_getname}: the local socket address once connected or connecting, else the
     * info's source address.
     */
    @Override
    public byte[] getName() throws FabricException {
        synchronized (lock) {
            ensureOpen("getName");
            if (channel != null) {
                try {
                    InetSocketAddress a = (InetSocketAddress) channel.getLocalAddress();
                    if (a != null) {
                        return Addresses.toSockaddr(a);
                    }
                } catch (IOException e) {
                    throw new FabricException(Errno.ENOTCONN, "getName: the socket is closed", e);
                }
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
        synchronized (lock) {
            ensureOpen("getPeer");
            try {
                InetSocketAddress a = channel == null ? null : (InetSocketAddress) channel.getRemoteAddress();
                if (a == null) {
                    throw new FabricException(Errno.ENOTCONN, "getPeer: not connected");
                }
                return Addresses.toSockaddr(a);
            } catch (IOException e) {
                throw new FabricException(Errno.ENOTCONN, "getPeer: the socket is closed", e);
            }
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
        synchronized (lock) {
            ensureOpen("connect");
            if (!enabled) {
                throw new FabricException(Errno.EOPBADSTATE, "connect: enable the endpoint first");
            }
            if (cm != IDLE || request != null) {
                throw new FabricException(Errno.EOPBADSTATE, "connect: the endpoint is not idle (connect once, on an endpoint not opened for a connection request)");
            }
            int len = param == null ? 0 : param.length;
            if (len > TcpProvider.CM_DATA_SIZE) {
                throw new FabricException(Errno.EINVAL, "connect: " + len + " bytes of connection data; at most "
                        + TcpProvider.CM_DATA_SIZE);
            }
            InetSocketAddress dest;
            try {
                dest = Addresses.fromSockaddr(addr);
            } catch (RuntimeException e) {
                throw new FabricException(Errno.EINVAL, "connect: not a socket address: " + e.getMessage(), e);
            }
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open(Sockets.family(dest.getAddress()));
                ch.configureBlocking(false);
                domain.provider().configure(ch); // before connect: the window scale covers SO_RCVBUF
                bindSource(ch, dest);
                cmOut.clear();
                cmMessage.set(TcpWireDescriptor.CM_TYPE_REQUEST, param, 0, len).msgId(TcpWireDescriptor.CM_JOFI_MARKER)
                        .encode(cmOut);
                cmOut.flip();
                channel = ch;
                cm = CONNECTING;
                boolean done;
                try {
                    done = ch.connect(dest);
                } catch (java.net.ConnectException refused) {
                    // Refused at once (possible on loopback): the outcome goes to the EQ as always.
                    failConnect(Errno.ECONNREFUSED, null, 0);
                    return;
                }
                cm = done ? REQ_SENT : CONNECTING;
                interestRead = done;
                interestWrite = done;
                // Connection set-up runs on the fabric's CM loop (control progress is AUTO even when
                // data progress is MANUAL); the socket moves to the domain's loop once connected.
                key = domain.cmLoop().register(ch, done ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, this);
            } catch (FabricException e) {
                cm = IDLE;
                channel = null;
                Sockets.closeQuietly(ch);
                throw e;
            } catch (IOException e) {
                cm = IDLE;
                channel = null;
                Sockets.closeQuietly(ch);
                throw new FabricException(Errno.EIO, "connect: cannot open a socket to " + dest + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * The endpoint's source address ({@code info.srcAddr()}, fi_getinfo(3) {@code src_addr}) is
     * the local end of its connection: an application that names a
     * port or an interface there gets exactly that, as libfabric's tcp provider binds it. A
     * wildcard address with port 0 (nothing named) leaves the choice to the kernel; so does an
     * address of the other family than the destination's (the kernel could not route it).
     *
     * @throws FabricException {@code EADDRINUSE} for a port in use, {@code EADDRNOTAVAIL} for
     *         an address this host does not have; nothing is connected then
     */
    private void bindSource(SocketChannel ch, InetSocketAddress dest) throws FabricException, IOException {
        byte[] src = info.srcAddr();
        if (src == null || rdm != null) {
            return; // an RDM endpoint's srcAddr is its listener's: its connections take the kernel's choice
        }
        InetSocketAddress local;
        try {
            local = Addresses.fromSockaddr(src);
        } catch (RuntimeException e) {
            throw new FabricException(Errno.EINVAL, "connect: the source address is not a socket address: " + e.getMessage(), e);
        }
        if ((local.getAddress() instanceof java.net.Inet6Address) != (dest.getAddress() instanceof java.net.Inet6Address)
                || (local.getAddress().isAnyLocalAddress() && local.getPort() == 0)) {
            return;
        }
        try {
            ch.bind(local);
        } catch (java.net.BindException e) {
            throw Sockets.bindFailed("connect: cannot bind the source address", local, e);
        }
    }

    /**
     * {@code fi_accept}: accepts the connection request this endpoint was opened for, with up
     * to 256 bytes of data for the active side's {@code FI_CONNECTED}; this side's
     * {@code FI_CONNECTED} follows once the response is written (R14).
     *
     * @throws FabricException {@code EOPBADSTATE} when not enabled, not opened from a
     *         {@code FI_CONNREQ}, or accepted already; {@code EINVAL} for too much data or a
     *         request that was rejected / is gone
     */
    @Override
    public void accept(byte[] param) throws FabricException {
        synchronized (lock) {
            ensureOpen("accept");
            if (!enabled) {
                throw new FabricException(Errno.EOPBADSTATE, "accept: enable the endpoint first");
            }
            if (request == null || cm != IDLE) {
                throw new FabricException(Errno.EOPBADSTATE, request == null
                        ? "accept: the endpoint was not opened with the info of an FI_CONNREQ event"
                        : "accept: called already");
            }
            int len = param == null ? 0 : param.length;
            if (len > TcpProvider.CM_DATA_SIZE) {
                throw new FabricException(Errno.EINVAL, "accept: " + len + " bytes of connection data; at most "
                        + TcpProvider.CM_DATA_SIZE);
            }
            SocketChannel ch = request.take();
            // Answer JOFI's marker only to a peer that announced it (a C peer gets zeros, as libfabric sends).
            startAccept(ch, request.selectionKey(), param, len, request.peerIsJofi());
        }
    }

    /**
     * An RDM connection accepts the request its endpoint's listener read from {@code ch}
     * (key {@code k} on the CM loop), answering with {@code hello} ({@link TcpRdmEndpoint}).
     */
    void acceptRdm(SocketChannel ch, SelectionKey k, byte[] hello) throws FabricException {
        synchronized (lock) {
            startAccept(ch, k, hello, hello.length, true); // an RDM hello comes from JOFI only
        }
    }

    private void startAccept(SocketChannel ch, SelectionKey k, byte[] param, int len, boolean jofi)
            throws FabricException {
        channel = ch;
        cmOut.clear();
        jofiPeer = jofi;
        cmMessage.set(TcpWireDescriptor.CM_TYPE_ACCEPT, param, 0, len)
                .msgId(jofiPeer ? TcpWireDescriptor.CM_JOFI_MARKER : 0L).encode(cmOut);
        cmOut.flip();
        cm = ACCEPTING;
        // Take over the request's key on the CM loop: the response is written there, then the
        // socket moves to this domain's loop (moveToDataLoop).
        if (k == null || !k.isValid()) {
            teardown(Errno.ECONNRESET, true);
            return;
        }
        k.attach(this);
        key = k;
        interestRead = true;
        interestWrite = true;
        updateInterest();
        domain.cmLoop().wakeup();
        flushTx();
    }

    /**
     * {@code fi_shutdown}: FIN to the peer; this side raises {@code FI_SHUTDOWN} once and
     * fails its pending operations with {@code ECANCELED} (R14). A second call does nothing.
     *
     * @throws FabricException {@code ENOTCONN} when it never connected
     */
    @Override
    public void shutdown(long flags) throws FabricException {
        synchronized (lock) {
            ensureOpen("shutdown");
            if (cm == DOWN) {
                return;
            }
            if (cm == IDLE) {
                throw new FabricException(Errno.ENOTCONN, "shutdown: the endpoint is not connected");
            }
            if (channel != null) {
                try {
                    channel.shutdownOutput();
                } catch (IOException e) {
                    // already reset by the peer: teardown below reports the end all the same
                }
            }
            teardown(Errno.ECANCELED, cm == CONNECTED || cm == ACCEPTING);
        }
    }

    /**
     * {@code fi_cancel}: a pending receive with this context completes with {@code ECANCELED}
     * (R13).
     *
     * @return 0, or {@code -ENOENT} when no such receive is pending
     */
    @Override
    public int cancel(Object context) {
        synchronized (lock) {
            int rc = dataPathCheck();
            if (rc != 0) {
                return rc;
            }
            return matcher.cancel(context);
        }
    }

    /**
     * {@code fi_getopt}: {@code FI_OPT_CM_DATA_SIZE} (256).
     *
     * @throws FabricException {@code ENOPROTOOPT} for other levels/options
     */
    @Override
    public long getOpt(int level, int name) throws FabricException {
        ensureOpen("getOpt");
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            return TcpProvider.CM_DATA_SIZE;
        }
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_MIN_MULTI_RECV) {
            synchronized (lock) {
                return minMultiRecv;
            }
        }
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + name + " at level " + level
                + " is not supported (FI_OPT_CM_DATA_SIZE is)");
    }

    /**
     * {@code fi_setopt}: {@code FI_OPT_CM_DATA_SIZE} may be set to at most 256 (the wire's limit).
     *
     * @throws FabricException {@code EINVAL} for a larger size; {@code ENOPROTOOPT} for other options
     */
    @Override
    public void setOpt(int level, int name, long value) throws FabricException {
        ensureOpen("setOpt");
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            if (value < 0 || value > TcpProvider.CM_DATA_SIZE) {
                throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_CM_DATA_SIZE " + value + " is outside 0..256");
            }
            return;
        }
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_MIN_MULTI_RECV) {
            if (value < 0) {
                throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_MIN_MULTI_RECV " + value + " is negative");
            }
            synchronized (lock) {
                // applies to multi-receive buffers posted from now on (fi_endpoint(3))
                minMultiRecv = value;
            }
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "setOpt: option " + name + " at level " + level + " is not supported");
    }

    // =================================================================== data path: send

    /** {@code fi_send}: completes on the write, or on the ack with FI_*_COMPLETE op flags (R11). */
    @Override
    public int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        return post(buf, null, 0, false, 0, txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION), context, OP_MSG, 0);
    }

    /** {@code fi_senddata}: a send carrying 8 bytes of remote CQ data (flag bit 0). */
    @Override
    public int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return post(buf, null, 0, true, data, txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION), context, OP_MSG, 0);
    }

    /** {@code fi_inject}: at most 128 bytes, copied; no completion. */
    @Override
    public int inject(ByteBuffer buf, long destAddr) {
        return post(buf, null, 0, false, 0, Fi.FI_INJECT, null, OP_MSG, 0);
    }

    /** {@code fi_injectdata}. */
    @Override
    public int injectData(ByteBuffer buf, long data, long destAddr) {
        return post(buf, null, 0, true, data, Fi.FI_INJECT, null, OP_MSG, 0);
    }

    /**
     * {@code fi_sendmsg}: flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT},
     * {@code FI_COMPLETION}, {@code FI_TRANSMIT_COMPLETE}/{@code FI_DELIVERY_COMPLETE}
     * (acked, R11), {@code FI_INJECT_COMPLETE}, {@code FI_FENCE}/{@code FI_MORE} (ordered anyway).
     */
    @Override
    public int sendMsg(Msg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return post(null, msg, msg.iovCount(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(),
                flags | (selectiveTx ? 0 : Fi.FI_COMPLETION), msg.context(), OP_MSG, 0);
    }

    /** {@code fi_tsend}: a tagged message (op 1 with the tag extension); completion {@code FI_TAGGED|FI_SEND}. */
    @Override
    public int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        return post(buf, null, 0, false, 0, txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION), context, OP_TAGGED, tag);
    }

    /** {@code fi_tsenddata}: tagged, with remote CQ data. */
    @Override
    public int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        return post(buf, null, 0, true, data, txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION), context, OP_TAGGED, tag);
    }

    /** {@code fi_tinject}: tagged, at most 128 bytes, copied; no completion. */
    @Override
    public int tinject(ByteBuffer buf, long destAddr, long tag) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        return post(buf, null, 0, false, 0, Fi.FI_INJECT, null, OP_TAGGED, tag);
    }

    /** {@code fi_tsendmsg}: as {@link #sendMsg} with the message's tag. */
    @Override
    public int tsendMsg(TaggedMsg msg, long flags) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return post(null, msg, msg.iovCount(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(),
                flags | (selectiveTx ? 0 : Fi.FI_COMPLETION), msg.context(), OP_TAGGED, msg.tag());
    }

    /** Common checks of a transmit post; 0 or the negative errno. Under lock. */
    private int txCheck(boolean reports) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (cm != CONNECTED && (rdm == null || cm == DOWN)) {
            // An RDM connection queues sends from its creation until it is up (nothing lost).
            return cm == DOWN || cm == IDLE ? -Errno.ENOTCONN : -Errno.EAGAIN;
        }
        if (reports && txCq == null) {
            return -Errno.ENOCQ;
        }
        if (txOutstanding >= queueSize) {
            return -Errno.EAGAIN;
        }
        return 0;
    }

    private int post(ByteBuffer buf, Msg msg, int iovCount, boolean withData, long data, long flags,
                     Object context, int wireOp, long tag) {
        synchronized (lock) {
            if (msg != null && (iovCount < 0 || iovCount > TcpProvider.IOV_LIMIT)) {
                return -Errno.EINVAL;
            }
            long length;
            if (msg == null) {
                if (buf == null) {
                    return -Errno.EINVAL;
                }
                length = buf.remaining();
            } else {
                length = iovLength(msg, iovCount);
                if (length < 0) {
                    return (int) length;
                }
            }
            boolean inject = (flags & Fi.FI_INJECT) != 0;
            int bad = PostChecks.transmit(length, inject, TcpProvider.INJECT_SIZE, TcpProvider.MAX_MSG_SIZE);
            if (bad != 0) {
                return bad;
            }
            boolean reports = !(inject && msg == null); // fi_inject never completes; sendMsg(FI_INJECT) may
            int rc = admitTx(reports);
            if (rc != 0) {
                return rc;
            }
            TxOp op = startTx(K_SEND, context, reports, flags, wireOp == OP_TAGGED ? TSEND_FLAGS : SEND_FLAGS, length);
            op.ackWanted = (flags & ACK_LEVELS) != 0;
            int wireFlags = (withData ? FLAG_REMOTE_CQ_DATA : 0) | (op.ackWanted ? FLAG_DELIVERY_COMPLETE : 0);
            if (jofiPeer && (flags & Fi.FI_MATCH_COMPLETE) != 0) {
                wireFlags |= TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE; // ack only once matched
            }
            ByteBuffer h = op.header;
            h.clear();
            txHeader.clear().op(wireOp).flags(wireFlags).payloadLength(length);
            if (withData) {
                txHeader.cqData(data);
            }
            if (wireOp == OP_TAGGED) {
                txHeader.tag(tag);
            }
            txHeader.encode(h);
            if (length <= TcpProvider.INJECT_SIZE) {
                // A small message travels as one contiguous frame (one plain write): its bytes
                // are copied now, which every completion level allows (the buffer is free at
                // return, as for inject).
                copyBehindHeader(op, buf, msg, iovCount);
                h.flip();
                op.count = 1;
                return queueTx(op);
            }
            h.flip();
            attachPayload(op, buf, msg, iovCount, inject);
            return queueTx(op);
        }
    }

    /**
     * The bytes of a message's first {@code iovCount} iovs, or {@code -EINVAL} when one of
     * them is missing (the caller checked {@code iovCount} against the limit).
     */
    private static long iovLength(Msg msg, int iovCount) {
        long length = 0;
        for (int i = 0; i < iovCount; i++) {
            ByteBuffer b = msg.iov(i);
            if (b == null) {
                return -Errno.EINVAL;
            }
            length += b.remaining();
        }
        return length;
    }

    /**
     * Admits a transmit post: {@link #txCheck}, then, when it reports a completion, a slot
     * reserved on the transmit CQ; 0 or the negative errno. Under lock.
     */
    private int admitTx(boolean reports) {
        int rc = txCheck(reports);
        if (rc != 0 || !reports) {
            return rc;
        }
        return txCq.reserve();
    }

    /** A pooled descriptor set up for a transmit of {@code kind}; the completion flag comes from {@code flags}. */
    private TxOp startTx(int kind, Object context, boolean reports, long flags, long cqFlags, long length) {
        TxOp op = takeTx();
        op.kind = kind;
        op.context = context;
        op.reports = reports;
        op.complete = (flags & Fi.FI_COMPLETION) != 0;
        op.cqFlags = cqFlags;
        op.length = length;
        return op;
    }

    /**
     * Puts the payload behind the op's header: {@code buf} or the message's iovs as views, or
     * with {@code inject} a copy of them (FI_INJECT: the caller's buffers are free at return).
     */
    private static void attachPayload(TxOp op, ByteBuffer buf, Msg msg, int iovCount, boolean inject) {
        if (inject) {
            if (msg == null) {
                op.payloadInjected(buf);
            } else {
                gatherInto(op, msg, iovCount);
            }
            op.count = 2;
        } else if (msg == null) {
            op.payload(0, buf);
            op.count = 2;
        } else {
            for (int i = 0; i < iovCount; i++) {
                op.payload(i, msg.iov(i));
            }
            op.count = 1 + iovCount;
        }
    }

    /** Copies {@code buf} or the message's first {@code iovCount} iovs behind the op's encoded header. */
    private static void copyBehindHeader(TxOp op, ByteBuffer buf, Msg msg, int iovCount) {
        if (msg == null) {
            op.payloadBehindHeader(buf);
            return;
        }
        for (int i = 0; i < iovCount; i++) {
            op.payloadBehindHeader(msg.iov(i));
        }
    }

    /** Copies a message's iovs into the op's inject buffer (FI_INJECT: the caller's buffers are free at return). */
    private static void gatherInto(TxOp op, Msg msg, int iovCount) {
        op.injectCopy.clear();
        for (int i = 0; i < iovCount; i++) {
            ByteBuffer b = msg.iov(i);
            op.injectCopy.put(op.injectCopy.position(), b, b.position(), b.remaining());
            op.injectCopy.position(op.injectCopy.position() + b.remaining());
        }
        op.injectCopy.flip();
        op.gather[1] = op.injectCopy;
    }

    private int queueTx(TxOp op) {
        op.first = 0;
        if (op.kind != K_RESPONSE) {
            txOutstanding++;
        }
        txQueue.offer(op);
        flushTx();
        return 0;
    }

    // =================================================================== data path: RMA (fi_rma(3))

    /** {@code fi_read}: op 2 request; completes ({@code FI_RMA|FI_READ}) when the op 3 response is placed. */
    @Override
    public int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        if ((caps & Fi.FI_RMA) == 0) {
            return -Errno.ENOSYS;
        }
        int rc = PostChecks.landing(buf, null, 0, 0, TcpProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        synchronized (lock) {
            return postRead(buf, null, 0, buf.remaining(), addr, key, null, context,
                    txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION));
        }
    }

    /** {@code fi_readmsg}: local iovs, up to 4 remote descriptors. */
    @Override
    public int readMsg(RmaMsg msg, long flags) {
        long local = rmaMsgLength(msg, 1);
        if (local < 0) {
            return (int) local;
        }
        int rc = PostChecks.flags(flags, PostChecks.READ_MSG_FLAGS);
        if (rc == 0) {
            rc = PostChecks.landing(null, msg, msg.iovCount(), 0, TcpProvider.MAX_MSG_SIZE);
        }
        if (rc != 0) {
            return rc;
        }
        synchronized (lock) {
            return postRead(null, msg, msg.iovCount(), local, 0, 0, msg, msg.context(),
                    flags | (selectiveTx ? 0 : Fi.FI_COMPLETION));
        }
    }

    /**
     * The local bytes of an RMA message ({@code fi_readmsg}, {@code fi_writemsg}):
     * {@code -ENOSYS} without {@code FI_RMA}; {@code -EINVAL} without a message, with fewer than
     * {@code minIovs} or more than {@link TcpProvider#IOV_LIMIT} iovs, or with one missing.
     */
    private long rmaMsgLength(RmaMsg msg, int minIovs) {
        if ((caps & Fi.FI_RMA) == 0) {
            return -Errno.ENOSYS;
        }
        if (msg == null || msg.iovCount() < minIovs || msg.iovCount() > TcpProvider.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        return iovLength(msg, msg.iovCount());
    }

    private int postRead(ByteBuffer buf, Msg local, int iovCount, long length, long addr, long key, RmaMsg rma,
                         Object context, long flags) {
        int n = remoteIovCount(rma, length);
        if (n < 0) {
            return n;
        }
        int rc = admitTx(true);
        if (rc != 0) {
            return rc;
        }
        TxOp op = startTx(K_READ, context, true, flags, READ_FLAGS, length);
        RxOp sink = matcher.take();
        if (local == null) {
            sink.buffer(0, buf);
            sink.count = 1;
        } else {
            for (int i = 0; i < iovCount; i++) {
                sink.buffer(i, local.iov(i));
            }
            sink.count = iovCount;
        }
        sink.capacity = length;
        op.sink = sink;
        ByteBuffer h = op.header;
        h.clear();
        txHeader.clear().op(OP_READ_REQUEST).rmaIovCount(n).payloadLength(0);
        putRmaIovs(n, rma, addr, length, key);
        txHeader.encode(h);
        h.flip();
        op.count = 1;
        return queueTx(op);
    }

    /**
     * The number of remote descriptors of an RMA: {@code rma}'s, or 1 ({@code addr}, {@code key})
     * without a message; {@code -EINVAL} when there are none or too many, or when their lengths
     * do not add up to the local {@code length}; {@code -EMSGSIZE} above max_msg_size.
     */
    private static int remoteIovCount(RmaMsg rma, long length) {
        int n = rma == null ? 1 : rma.rmaIovCount();
        if (n < 1 || n > TcpWireDescriptor.MAX_RMA_IOV_COUNT) {
            return -Errno.EINVAL;
        }
        long remote = 0;
        for (int i = 0; i < n; i++) {
            remote += rma == null ? length : rma.rmaLen(i);
        }
        if (remote != length) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.length(length, TcpProvider.MAX_MSG_SIZE);
        return rc != 0 ? rc : n;
    }

    /** Writes the {@code n} remote descriptors into the transmit header: {@code rma}'s, or the one of {@code addr}/{@code key}. */
    private void putRmaIovs(int n, RmaMsg rma, long addr, long length, long key) {
        for (int i = 0; i < n; i++) {
            if (rma == null) {
                txHeader.rmaIov(i, addr, length, key);
            } else {
                txHeader.rmaIov(i, rma.rmaAddr(i), rma.rmaLen(i), rma.rmaKey(i));
            }
        }
    }

    /**
     * {@code fi_write}: op 4 with one descriptor, payload follows. Completes ({@code FI_RMA|FI_WRITE})
     * when the target acks it: every write asks for the ack (flag bit 2; R11 allows the stronger
     * level), so that a write the target refuses (key, bounds, access) fails here with an error
     * completion instead of completing before the target looked at it.
     */
    @Override
    public int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return writeBuf(buf, false, 0, addr, key, context, txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION));
    }

    /**
     * {@code fi_writedata}: a write whose target gets a completion on its receive CQ with
     * {@code FI_RMA|FI_REMOTE_WRITE|FI_REMOTE_CQ_DATA} and the data (no posted receive used).
     */
    @Override
    public int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        return writeBuf(buf, true, data, addr, key, context, txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION));
    }

    /** {@code fi_inject_write}: at most 128 bytes, copied; no completion, no ack. */
    @Override
    public int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        return writeBuf(buf, false, 0, addr, key, null, Fi.FI_INJECT);
    }

    /** A write of one buffer to one remote descriptor ({@code fi_write}, {@code fi_writedata}, {@code fi_inject_write}). */
    private int writeBuf(ByteBuffer buf, boolean withData, long data, long addr, long key, Object context, long flags) {
        if ((caps & Fi.FI_RMA) == 0) {
            return -Errno.ENOSYS;
        }
        if (buf == null) {
            return -Errno.EINVAL;
        }
        synchronized (lock) {
            return postWrite(buf, null, 0, buf.remaining(), withData, data, addr, key, null, context, flags);
        }
    }

    /**
     * {@code fi_writemsg}: flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT},
     * {@code FI_COMPLETION}, {@code FI_COMMIT_COMPLETE} (flag bit 3, treated as delivery),
     * {@code FI_FENCE} (one ordered stream: earlier operations are handled first anyway).
     */
    @Override
    public int writeMsg(RmaMsg msg, long flags) {
        long length = rmaMsgLength(msg, 0);
        if (length < 0) {
            return (int) length;
        }
        int rc = PostChecks.flags(flags, PostChecks.WRITE_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        synchronized (lock) {
            return postWrite(null, msg, msg.iovCount(), length, (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(), 0, 0,
                    msg, msg.context(), flags | (selectiveTx ? 0 : Fi.FI_COMPLETION));
        }
    }

    private int postWrite(ByteBuffer buf, Msg local, int iovCount, long length, boolean withData, long data, long addr,
                          long key, RmaMsg rma, Object context, long flags) {
        int n = remoteIovCount(rma, length);
        if (n < 0) {
            return n;
        }
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        int bad = PostChecks.transmit(length, inject, TcpProvider.INJECT_SIZE, TcpProvider.MAX_MSG_SIZE);
        if (bad != 0) {
            return bad;
        }
        boolean reports = !(inject && rma == null);
        int rc = admitTx(reports);
        if (rc != 0) {
            return rc;
        }
        TxOp op = startTx(K_WRITE, context, reports, flags, WRITE_FLAGS, length);
        op.ackWanted = reports;
        int wireFlags = (withData ? FLAG_REMOTE_CQ_DATA : 0) | (op.ackWanted ? FLAG_DELIVERY_COMPLETE : 0)
                | ((flags & Fi.FI_COMMIT_COMPLETE) != 0 ? TcpWireDescriptor.FLAG_COMMIT_COMPLETE : 0);
        ByteBuffer h = op.header;
        h.clear();
        txHeader.clear().op(OP_WRITE).flags(wireFlags).rmaIovCount(n).payloadLength(length);
        if (withData) {
            txHeader.cqData(data);
        }
        putRmaIovs(n, rma, addr, length, key);
        txHeader.encode(h);
        h.flip();
        attachPayload(op, buf, local, iovCount, inject);
        return queueTx(op);
    }

    // =================================================================== data path: atomics (fi_atomic(3))

    /** {@code fi_atomic} on a 64-bit word; completion {@code FI_ATOMIC|FI_WRITE} when the target answered. */
    @Override
    public int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        if ((caps & Fi.FI_ATOMIC) == 0) {
            return -Errno.ENOSYS;
        }
        synchronized (lock) {
            return postAtomic(op, operand, 0, null, addr, key, context, false);
        }
    }

    /** {@code fi_fetch_atomic}: the old value goes to {@code result} (host order); completion {@code FI_ATOMIC|FI_READ}. */
    @Override
    public int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                           int op, Object context) {
        if ((caps & Fi.FI_ATOMIC) == 0) {
            return -Errno.ENOSYS;
        }
        if (PostChecks.writable(result) != 0 || result.remaining() < Long.BYTES) {
            return -Errno.EINVAL;
        }
        synchronized (lock) {
            return postAtomic(op, operand, 0, result, addr, key, context, true);
        }
    }

    /** {@code fi_compare_atomic} ({@code FI_CSWAP}): swaps in {@code swap} when the word equals {@code compare}. */
    @Override
    public int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                             long addr, long key, Object context) {
        if ((caps & Fi.FI_ATOMIC) == 0) {
            return -Errno.ENOSYS;
        }
        if (PostChecks.writable(result) != 0 || result.remaining() < Long.BYTES) {
            return -Errno.EINVAL;
        }
        synchronized (lock) {
            return postAtomic(Fi.FI_CSWAP, swap, compare, result, addr, key, context, true);
        }
    }

    /**
     * An atomic request (JOFI op 5). libfabric's tcp wire has no atomics, so only a peer that
     * announced JOFI in the CM handshake can take one: any other peer gets
     * {@code -EOPNOTSUPP}, as does an op this provider does not implement.
     */
    private int postAtomic(int atomicOp, long operand, long compare, ByteBuffer result, long addr, long key,
                           Object context, boolean fetch) {
        int rc = txCheck(true);
        if (rc != 0) {
            return rc;
        }
        if (!jofiPeer || !Atomics.supported(atomicOp)) {
            return -Errno.EOPNOTSUPP;
        }
        rc = txCq.reserve();
        if (rc != 0) {
            return rc;
        }
        TxOp op = startTx(fetch ? K_ATOMIC_FETCH : K_ATOMIC, context, true, txOpFlags | (selectiveTx ? 0 : Fi.FI_COMPLETION),
                Fi.FI_ATOMIC | (fetch ? Fi.FI_READ : Fi.FI_WRITE), Long.BYTES);
        op.result = result;
        ByteBuffer h = op.header;
        h.clear();
        txHeader.clear().op(OP_ATOMIC_REQUEST).rmaIovCount(1)
                .rmaIov(0, addr, Long.BYTES, key).payloadLength(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        txHeader.encode(h);
        h.flip();
        ByteBuffer p = op.injectCopy;
        p.clear();
        p.putLong(0, atomicOp | (fetch ? ATOMIC_FETCH_BIT : 0)); // a direct buffer is big-endian: the header's order
        p.putLong(8, operand);
        p.putLong(16, compare);
        p.limit(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        op.gather[1] = p;
        op.count = 2;
        return queueTx(op);
    }

    // =================================================================== data path: receive

    /** {@code fi_recv}: matched in posting order (MSG). */
    @Override
    public int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        int rc = PostChecks.landing(buf, null, 1, rxOpFlags, TcpProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        return postRecv(buf, null, 1, rxOpFlags | (selectiveRx ? 0 : Fi.FI_COMPLETION), context, false, 0, 0, srcAddr);
    }

    /**
     * {@code fi_recvmsg}: flags {@code FI_COMPLETION}, {@code FI_MULTI_RECV} (one buffer, one
     * iov: messages are placed one after another, each completion points into it with
     * {@code buf}/{@code bufOffset}; the completion that leaves less than
     * {@code FI_OPT_MIN_MULTI_RECV} bytes carries {@code FI_MULTI_RECV} and releases it).
     */
    @Override
    public int recvMsg(Msg msg, long flags) {
        if (msg == null || msg.iovCount() < 0 || msg.iovCount() > TcpProvider.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        if ((flags & Fi.FI_MULTI_RECV) != 0 && msg.iovCount() != 1) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.RECV_MSG_FLAGS);
        if (rc == 0) {
            rc = PostChecks.landing(null, msg, msg.iovCount(), flags, TcpProvider.MAX_MSG_SIZE);
        }
        if (rc != 0) {
            return rc;
        }
        return postRecv(null, msg, msg.iovCount(), flags | (selectiveRx ? 0 : Fi.FI_COMPLETION), msg.context(), false,
                0, 0, msg.addr());
    }

    /** {@code fi_trecv}: matches a tagged message whose tag equals {@code tag} outside the {@code ignore} bits. */
    @Override
    public int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        int rc = PostChecks.landing(buf, null, 1, 0, TcpProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        return postRecv(buf, null, 1, rxOpFlags | (selectiveRx ? 0 : Fi.FI_COMPLETION), context, true, tag, ignore,
                srcAddr);
    }

    /**
     * {@code fi_trecvmsg}: as {@link #trecv}; with {@code FI_PEEK} (and {@code FI_CLAIM} /
     * {@code FI_DISCARD}) looks at the unexpected messages without receiving: a completion
     * with len/tag/data of the first match, or an error completion {@code ENOMSG}; with
     * {@code FI_CLAIM} alone receives the message a peek claimed for the same context
     * ({@code -ENOMSG} when there is none); {@code FI_CLAIM|FI_DISCARD} drops it.
     */
    @Override
    public int trecvMsg(TaggedMsg msg, long flags) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        if (msg == null || msg.iovCount() < 0 || msg.iovCount() > TcpProvider.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.TRECV_MSG_FLAGS); // FI_MULTI_RECV is not for tagged receives
        if (rc == 0) {
            rc = PostChecks.landing(null, msg, msg.iovCount(), 0, TcpProvider.MAX_MSG_SIZE);
        }
        if (rc != 0) {
            return rc;
        }
        return postRecv(null, msg, msg.iovCount(), flags | (selectiveRx ? 0 : Fi.FI_COMPLETION), msg.context(), true,
                msg.tag(), msg.ignore(), msg.addr());
    }

    private int postRecv(ByteBuffer buf, Msg msg, int iovCount, long flags, Object context, boolean tagged, long tag,
                         long ignore, long srcAddr) {
        synchronized (lock) {
            int rc = dataPathCheck();
            if (rc != 0) {
                return rc;
            }
            boolean peek = tagged && (flags & Fi.FI_PEEK) != 0;
            boolean claim = tagged && !peek && (flags & Fi.FI_CLAIM) != 0;
            if (!enabled || (cm == DOWN && !matcher.hasUnexpected())) {
                // After the connection ended, only messages that had arrived can still be received.
                return -Errno.EOPBADSTATE;
            }
            if (rxCq == null) {
                return -Errno.ENOCQ;
            }
            if (!peek && !claim && !matcher.canPost(tagged)) {
                return -Errno.EAGAIN;
            }
            rc = rxCq.reserve();
            if (rc != 0) {
                return rc;
            }
            RxOp op = matcher.take();
            op.context = context;
            op.src = directedRecv ? srcAddr : Fi.FI_ADDR_UNSPEC;
            op.complete = (flags & Fi.FI_COMPLETION) != 0;
            op.tagged = tagged;
            op.tag = tag;
            op.ignore = ignore;
            long cap = 0;
            if (msg == null) {
                op.buffer(0, buf);
                op.count = 1;
                op.buf = buf;
                op.bufOffset = buf.position();
                cap = buf.remaining();
            } else {
                for (int i = 0; i < iovCount; i++) {
                    op.buffer(i, msg.iov(i));
                    cap += msg.iov(i).remaining();
                }
                op.count = iovCount;
                op.buf = iovCount > 0 ? msg.iov(0) : null;
                op.bufOffset = iovCount > 0 ? msg.iov(0).position() : 0;
            }
            op.capacity = cap;
            if (peek) {
                matcher.peek(op, flags);
                return 0;
            }
            if (claim) {
                if (!matcher.claim(op, flags)) {
                    rxCq.unreserve();
                    matcher.give(op);
                    return -Errno.ENOMSG;
                }
                return 0;
            }
            if (!tagged && (flags & Fi.FI_MULTI_RECV) != 0) {
                op.multi = true;
                op.minFree = minMultiRecv;
            }
            // An earlier message that waits is this receive's (in order); else it is queued.
            matcher.post(op);
            if (readState == R_PAUSED && cm != DOWN) {
                resumeReading();
            }
            return 0;
        }
    }

    // =================================================================== progress

    /** The selector found the socket ready: finish the connect, read, write. */
    @Override
    public void onSelected(int readyOps) {
        synchronized (lock) {
            try {
                onSelectedLocked(readyOps);
            } catch (java.nio.channels.CancelledKeyException e) {
                // The socket was closed while this key was selected: the endpoint is down already.
            } catch (RuntimeException e) {
                // A defect must not stop the domain's progress thread for every other endpoint:
                // this connection ends (FI_SHUTDOWN, error completions), the others go on.
                teardown(Errno.EIO, true);
            }
        }
    }

    /**
     * Manual progress without a selector pass ({@link NioLoop#registerPolled}): reads what has
     * arrived on a connected socket. Needs the selector (-1) while a write waits for room or
     * the connection is not established.
     */
    @Override
    public int poll() {
        synchronized (lock) {
            try {
                if (cm != CONNECTED || channel == null || interestWrite) {
                    return -1;
                }
                if (!interestRead) {
                    return 0; // paused or blocked: a posted receive or transmit room resumes it
                }
                long before = received;
                drained = false;
                readMessages();
                return received != before ? 1 : 0;
            } catch (java.nio.channels.CancelledKeyException e) {
                return -1;
            } catch (RuntimeException e) {
                teardown(Errno.EIO, true);
                return 1;
            }
        }
    }

    private void onSelectedLocked(int readyOps) {
        if (cm == DOWN || channel == null) {
            return;
        }
        if ((readyOps & SelectionKey.OP_CONNECT) != 0 && cm == CONNECTING) {
            try {
                channel.finishConnect();
            } catch (IOException e) {
                failConnect(Errno.ECONNREFUSED, null, 0);
                return;
            }
            cm = REQ_SENT;
            interestRead = true;
            interestWrite = true;
            updateInterest();
        }
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            flushTx();
        }
        if ((readyOps & SelectionKey.OP_READ) != 0 && cm != DOWN) {
            drained = false; // the selector says there are bytes (or an end) to read
            if (cm == REQ_SENT) {
                readResponse();
            }
            if (cm == CONNECTED || cm == ACCEPTING) {
                readMessages();
            }
        }
    }

    /** Active side: reads exactly the CM response (header, then its data) and acts on it. */
    private void readResponse() {
        try {
            int n = channel.read(cmIn);
            if (n < 0) {
                failConnect(Errno.ECONNREFUSED, null, 0);
                return;
            }
        } catch (IOException e) {
            failConnect(Errno.ECONNREFUSED, null, 0);
            return;
        }
        ByteBuffer view = cmIn.duplicate().flip();
        int status = cmMessage.decode(view);
        if (status == WireStatus.NEED_MORE) {
            if (cmIn.limit() == TcpWireDescriptor.CM_HEADER_LENGTH && cmIn.position() == cmIn.limit()) {
                // header complete but decode wants the data: extend to seg_size
                int seg = ((cmIn.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET) & 0xFF) << 8)
                        | (cmIn.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET + 1) & 0xFF);
                cmIn.limit(TcpWireDescriptor.CM_HEADER_LENGTH + seg);
                readResponse();
            }
            return;
        }
        if (status == WireStatus.CM_WRONG_VERSION) {
            failConnect(Errno.ENOPROTOOPT, null, 0);
            return;
        }
        if (WireStatus.isError(status)) {
            failConnect(Errno.ECONNREFUSED, null, 0);
            return;
        }
        if (cmMessage.type() == TcpWireDescriptor.CM_TYPE_REJECT) {
            byte[] data = cmMessage.dataCopy();
            failConnect(Errno.ECONNREFUSED, data, data.length);
            return;
        }
        if (cmMessage.type() != TcpWireDescriptor.CM_TYPE_ACCEPT) {
            failConnect(Errno.ECONNREFUSED, null, 0);
            return;
        }
        if (rdm != null && RdmHelloDescriptor.kind(cmMessage.dataCopy(), cmMessage.dataLength())
                != RdmHelloDescriptor.KIND_HELLO) {
            failConnect(Errno.ECONNREFUSED, null, 0); // accepted by something that is not a JOFI RDM endpoint
            return;
        }
        cm = CONNECTED;
        jofiPeer = cmMessage.isJofi();
        if (!moveToDataLoop()) {
            return;
        }
        if (rdm != null) {
            flushTx(); // the sends queued since the first one to this peer go out now, in order
            return;
        }
        byte[] data = cmMessage.dataCopy();
        eq.post(Fi.FI_CONNECTED, this, context(), 0, null, data, data.length);
    }

    /**
     * The connection is established: its socket leaves the fabric's CM loop for the domain's
     * data loop (progressed in the domain's mode). Nothing of the stream is lost: the CM
     * response was read exactly, and the passive side's response is written completely.
     *
     * @return false when the socket is gone (torn down, R14)
     */
    private boolean moveToDataLoop() {
        SelectionKey old = key;
        if (old != null) {
            old.cancel();
        }
        interestRead = true;
        interestWrite = false;
        try {
            key = domain.loop().registerPolled(channel, SelectionKey.OP_READ, this);
            return true;
        } catch (IOException e) {
            key = null;
            teardown(Errno.ECONNRESET, true);
            return false;
        }
    }

    private void failConnect(int err, byte[] errData, int errDataSize) {
        cm = DOWN;
        closeChannel();
        if (rdm != null) {
            // RDM: the endpoint decides — park the queued sends (crossed connects) or fail them.
            rdm.connectFailed(this, err, errData, errDataSize);
            return;
        }
        failAll(Errno.ECANCELED);
        if (eq != null) {
            eq.postError(this, context(), 0, err, 0, errData, errDataSize);
        }
    }

    /** Writes what is queued: the CM message, then frames, acks between frames. */
    private void flushTx() {
        SocketChannel ch = channel;
        if (ch == null || cm == DOWN || cm == CONNECTING) {
            return;
        }
        try {
            if (cmOut.hasRemaining()) {
                ch.write(cmOut);
                if (cmOut.hasRemaining()) {
                    wantWrite(true);
                    return;
                }
                if (cm == ACCEPTING) {
                    cm = CONNECTED;
                    if (!moveToDataLoop()) {
                        return;
                    }
                    if (rdm == null) {
                        eq.post(Fi.FI_CONNECTED, this, context(), 0, null, null, 0);
                    }
                }
            }
            if (cm != CONNECTED) {
                wantWrite(false);
                return;
            }
            while (true) {
                TxOp op = txQueue.peek();
                if (ackInFlight || (pendingAcks > 0 && (op == null || !op.started))) {
                    if (!ackInFlight) {
                        prepareAck();
                        pendingAcks--;
                        ackInFlight = true;
                    }
                    sent += ch.write(ackFrame);
                    if (ackFrame.hasRemaining()) {
                        wantWrite(true);
                        return;
                    }
                    ackInFlight = false;
                    continue;
                }
                if (op == null) {
                    wantWrite(false);
                    return;
                }
                if (!op.started) {
                    op.header.put(ID_OFFSET, (byte) headerId++);
                    op.started = true;
                }
                if (op.count - op.first == 1) {
                    sent += ch.write(op.gather[op.first]); // one buffer: a plain write, not the gathering path
                } else {
                    sent += ch.write(op.gather, op.first, op.count - op.first);
                }
                if (!op.advance()) {
                    wantWrite(true);
                    return;
                }
                txQueue.poll();
                if (op.ackWanted) {
                    ackWait.offer(op);
                } else if (op.kind == K_READ) {
                    readWait.offer(op);
                } else if (op.kind == K_ATOMIC || op.kind == K_ATOMIC_FETCH) {
                    atomicWait.offer(op);
                } else {
                    completeSend(op);
                }
                if (readState == R_BLOCKED) {
                    unblock();
                }
            }
        } catch (IOException e) {
            teardown(Errno.ECONNRESET, true);
        }
    }

    /** Room in the transmit queue again: the blocked request is handled and reading goes on. */
    private void unblock() {
        if (txQueue.isFull() || cm == DOWN) {
            return;
        }
        readState = R_HEADER;
        onHeader(); // rxHeader still holds the blocked request (nothing was decoded since)
        if (readState != R_BLOCKED && readState != R_PAUSED && cm != DOWN) {
            wantRead();
        }
        consumeBuffered();
    }

    private void prepareAck() {
        ByteBuffer a = ackFrame;
        a.clear();
        txHeader.ack().id(headerId++ & 0xFF).encode(a);
        a.flip();
    }

    private void wantWrite(boolean on) {
        if (interestWrite != on) {
            interestWrite = on;
            updateInterest();
            if (on) {
                domain.loop().wakeup();
            }
        }
    }

    private void resumeReading() {
        // The paused message's header is read already: find its destination again (the
        // receive just posted, or room freed in the unexpected buffer).
        beginMessage();
        if (readState == R_PAUSED) {
            return;
        }
        wantRead();
        consumeBuffered();
    }

    /** Reading goes on: read interest back on, and the loop woken to see it (it may be asleep in select). */
    private void wantRead() {
        if (!interestRead) {
            interestRead = true;
            updateInterest();
            domain.loop().wakeup();
        }
    }

    private void updateInterest() {
        SelectionKey k = key;
        if (k != null && k.isValid()) {
            k.interestOps((interestRead ? SelectionKey.OP_READ : 0) | (interestWrite ? SelectionKey.OP_WRITE : 0));
        }
    }

    /**
     * Reads and dispatches messages until the socket has nothing more (or reading pauses or
     * blocks). Bytes already in {@link #rxBuf} are consumed first; a read is issued only when
     * they do not finish the current step and the socket was not found drained.
     */
    private void readMessages() {
        if (reading) {
            return; // the outer call's loop sees the new state
        }
        reading = true;
        try {
            readLoop();
        } catch (IOException e) {
            teardown(Errno.ECONNRESET, true);
        } finally {
            reading = false;
        }
    }

    private void readLoop() throws IOException {
        SocketChannel ch = channel;
        ByteBuffer in = rxBuf;
        while (cm == CONNECTED || cm == ACCEPTING) {
            switch (readState) {
                case R_HEADER -> {
                    int st = in.hasRemaining()
                            ? rxHeader.decode(in, TcpProvider.MAX_MSG_SIZE,
                                    jofiPeer ? TcpWireDescriptor.MAX_JOFI_OP : TcpWireDescriptor.MAX_OP)
                            : WireStatus.NEED_MORE;
                    if (st == WireStatus.NEED_MORE) {
                        if (!readMore(ch, null, 0, 0, 0)) {
                            return;
                        }
                        continue;
                    }
                    if (st < 0) {
                        malformed("malformed header: " + WireStatus.describe(st)); // malformed input: this connection only
                        return;
                    }
                    onHeader();
                }
                case R_PAYLOAD -> {
                    RxOp op = current;
                    if (!op.advance()) {
                        copyInto(op.views, op.first, op.count);
                        if (!op.advance()) {
                            long due = 0;
                            for (int i = op.first; i < op.count; i++) {
                                due += op.views[i].remaining();
                            }
                            if (!readMore(ch, op.views, op.first, op.count, due)) {
                                return;
                            }
                            continue;
                        }
                    }
                    if (discardLeft > 0) {
                        readState = R_DISCARD;
                    } else {
                        endMessage();
                    }
                }
                case R_DISCARD -> {
                    int skip = (int) Math.min(in.remaining(), discardLeft);
                    in.position(in.position() + skip);
                    discardLeft -= skip;
                    if (discardLeft > 0) {
                        if (!readMore(ch, null, 0, 0, 0)) {
                            return;
                        }
                        continue;
                    }
                    endMessage();
                }
                case R_UNEXPECTED -> {
                    ByteBuffer d = currentUnexpected.data;
                    if (d.hasRemaining()) {
                        ByteBuffer[] one = scatterViews;
                        one[0] = d;
                        copyInto(one, 0, 1);
                        if (d.hasRemaining()) {
                            if (!readMore(ch, one, 0, 1, d.remaining())) {
                                return;
                            }
                            continue;
                        }
                    }
                    d.flip();
                    Unexpected u = currentUnexpected;
                    currentUnexpected = null;
                    readState = R_HEADER;
                    if (messageAck && !messageMatchAck) {
                        // buffered at the target: delivery/transmit complete are met (R11)
                        ackReady(messageAckSeq);
                    }
                    // A receive posted while this message was being buffered takes it now.
                    matcher.arrived(u);
                }
                default -> {
                    return; // R_PAUSED, R_BLOCKED
                }
            }
        }
    }

    /**
     * Reads more for the current step, unless the socket was found drained: a step due at
     * least {@link #COPY_THRESHOLD} bytes reads them straight into {@code views[from..to)}
     * ({@link #scatter}), any other into {@link #rxBuf} ({@link #fill}).
     *
     * @return false when the read loop must return: the socket is drained (the selector
     *         reports it again) or the stream ended (the connection is torn down)
     */
    private boolean readMore(SocketChannel ch, ByteBuffer[] views, int from, int to, long due) throws IOException {
        if (drained) {
            return false;
        }
        if ((due >= COPY_THRESHOLD ? scatter(ch, views, from, to, due) : fill(ch)) < 0) {
            teardown(Errno.ECONNRESET, true);
            return false;
        }
        return true;
    }

    /**
     * Reads into the free room of {@link #rxBuf} (after moving the unconsumed bytes to its
     * start). Marks the socket {@link #drained} when the read did not fill the room.
     *
     * @return the bytes read, or -1 at end of stream
     */
    private int fill(SocketChannel ch) throws IOException {
        ByteBuffer in = rxBuf;
        in.compact();
        int room = in.remaining();
        int n = ch.read(in);
        in.flip();
        if (n < room) {
            drained = true;
        }
        if (n > 0) {
            received += n;
        }
        return n;
    }

    /**
     * One scattering read straight into {@code views[from..to)} ({@code due} bytes of room,
     * never copied) and then into the emptied {@link #rxBuf}, which catches the next header
     * and small messages in the same system call.
     *
     * @return the bytes read, or -1 at end of stream
     */
    private long scatter(SocketChannel ch, ByteBuffer[] views, int from, int to, long due) throws IOException {
        ByteBuffer[] s = scatterViews;
        int n = to - from;
        for (int i = 0; i < n; i++) {
            s[i] = views[from + i];
        }
        ByteBuffer in = rxBuf;
        in.clear();
        s[n] = in;
        long got;
        try {
            got = ch.read(s, 0, n + 1);
        } finally {
            in.flip();
            for (int i = 0; i <= n; i++) {
                s[i] = null; // keep no reference to the application's buffers
            }
        }
        if (got < due + in.capacity()) {
            drained = true;
        }
        if (got > 0) {
            received += got;
        }
        return got;
    }

    /** Copies buffered bytes from {@link #rxBuf} into {@code views[from..to)} (as much as both have). */
    private void copyInto(ByteBuffer[] views, int from, int to) {
        ByteBuffer in = rxBuf;
        int left = in.remaining();
        if (left == 0) {
            return;
        }
        int at = in.position();
        for (int i = from; i < to && left > 0; i++) {
            ByteBuffer v = views[i];
            int take = Math.min(v.remaining(), left);
            if (take > 0) {
                v.put(v.position(), in, at, take);
                v.position(v.position() + take);
                at += take;
                left -= take;
            }
        }
        in.position(at);
    }

    /**
     * Consumes what {@link #rxBuf} holds after reading was re-enabled outside a selector pass
     * (a receive was posted, transmit room came back): those bytes are in no socket, so no
     * selector would report them. Reads nothing new; the selector reports the socket. A step
     * that needs no more bytes (a 0-byte message whose header was read before it found room)
     * is finished here too: no selector would ever report it.
     */
    private void consumeBuffered() {
        if ((rxBuf.hasRemaining() || readState != R_HEADER) && !reading && (cm == CONNECTED || cm == ACCEPTING)) {
            drained = true;
            readMessages();
        }
    }

    private void onHeader() {
        MessageHeader h = rxHeader;
        if (h.isAck()) {
            TxOp op = ackWait.poll();
            if (op == null || h.payloadLength() != 0) {
                malformed("an acknowledgement nobody asked for"); // an ack nobody asked for: the peer is confused
                return;
            }
            completeSend(op);
            return;
        }
        switch (h.op()) {
            case OP_MSG, OP_TAGGED -> {
                messageLength = h.payloadLength();
                messageHasData = h.hasCqData();
                messageData = messageHasData ? h.cqData() : 0;
                messageTagged = h.hasTag();
                messageTag = messageTagged ? h.tag() : 0;
                messageMatchAck = jofiPeer && (h.flags() & TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE) != 0;
                if (!assignAck(h.ackRequested())) {
                    return;
                }
                payloadKind = P_MSG;
                beginMessage();
            }
            case OP_WRITE -> onWriteRequest(h);
            case OP_READ_REQUEST -> onReadRequest(h);
            case OP_READ_RESPONSE -> onResponse(h, readWait, P_READ_RESPONSE);
            case OP_ATOMIC_REQUEST -> onAtomicRequest(h);
            case OP_ATOMIC_RESPONSE -> onResponse(h, atomicWait, P_ATOMIC_RESPONSE);
            default -> malformed("unknown op " + h.op()); // the decoder lets no other op through
        }
    }

    /** The message asks for an ack (flag bit 2, or bit 3 on a write): it gets a place in the ack order. */
    private boolean assignAck(boolean wanted) {
        messageAck = wanted;
        messageAckSeq = -1;
        if (wanted) {
            messageAckSeq = acks.assign();
            if (messageAckSeq < 0) {
                malformed("more unacknowledged messages than any queue allows"); // far more unacked messages than any queue allows
                return false;
            }
        }
        return true;
    }

    /** The ack of message {@code seq} may go: released with every earlier one that may (arrival order). */
    private void ackReady(long seq) {
        acks.ready(seq);
        int n = acks.drain();
        if (n > 0) {
            pendingAcks += n;
            flushTx();
        }
    }

    /**
     * The registered region a peer's descriptor names, checked for {@code access}, or null:
     * an unknown key, a range outside the region or a missing access right is peer
     * misbehaviour (issue 3 "Bad input"): the caller tears the connection down before any
     * byte of the region is touched.
     */
    private UtilMemoryRegion target(long key, long addr, long len, long access) {
        UtilMemoryRegion r = registry.lookup(key);
        if (r == null || len > Integer.MAX_VALUE || r.check(addr, len, access) != 0) {
            return null;
        }
        return r;
    }

    /** RMA write (op 4): every descriptor checked, then the payload is read straight into the regions. */
    private void onWriteRequest(MessageHeader h) {
        int n = h.rmaIovCount();
        long total = 0;
        RxOp sink = rmaSink;
        for (int i = 0; i < n; i++) {
            UtilMemoryRegion r = target(h.rmaKey(i), h.rmaAddr(i), h.rmaLen(i), Fi.FI_REMOTE_WRITE);
            if (r == null) {
                malformed("an RMA write to memory this domain refuses (key, bounds or access)");
                return;
            }
            sink.range(i, r.buffer(), r.indexOf(h.rmaAddr(i)), (int) h.rmaLen(i));
            total += h.rmaLen(i);
        }
        if (total != h.payloadLength()) {
            malformed("an RMA write whose payload length differs from its descriptors"); // payload and descriptors disagree
            return;
        }
        sink.count = n;
        sink.first = 0;
        messageLength = total;
        messageHasData = h.hasCqData();
        messageData = messageHasData ? h.cqData() : 0;
        messageMatchAck = false;
        if (!assignAck(h.ackRequested() || (h.flags() & TcpWireDescriptor.FLAG_COMMIT_COMPLETE) != 0)) {
            return;
        }
        payloadKind = P_WRITE;
        current = sink;
        discardLeft = 0;
        messageDiscarded = 0;
        readState = R_PAYLOAD;
    }

    /** RMA read request (op 2): descriptors checked, then a response (op 3) with the regions' bytes is queued. */
    private void onReadRequest(MessageHeader h) {
        if (h.payloadLength() != 0) {
            malformed("an RMA read request that carries a payload");
            return;
        }
        if (txQueue.isFull()) {
            block();
            return;
        }
        int n = h.rmaIovCount();
        TxOp op = takeTx();
        long total = 0;
        for (int i = 0; i < n; i++) {
            UtilMemoryRegion r = target(h.rmaKey(i), h.rmaAddr(i), h.rmaLen(i), Fi.FI_REMOTE_READ);
            if (r == null) {
                giveTx(op);
                malformed("an RMA read request for memory this domain refuses (key, bounds or access)");
                return;
            }
            op.region(i, r.buffer(), r.indexOf(h.rmaAddr(i)), (int) h.rmaLen(i));
            total += h.rmaLen(i);
        }
        readState = R_HEADER;
        op.kind = K_RESPONSE;
        op.reports = false;
        ByteBuffer hb = op.header;
        hb.clear();
        txHeader.clear().op(OP_READ_RESPONSE).payloadLength(total).encode(hb);
        hb.flip();
        op.count = 1 + n;
        if (remoteReadCntr != null) {
            remoteReadCntr.increment();
        }
        queueTx(op);
    }

    /** JOFI atomic request (op 5): one 8-byte descriptor; its 16-byte payload is read, then applied in {@link #endMessage}. */
    private void onAtomicRequest(MessageHeader h) {
        if (h.rmaIovCount() != 1 || h.rmaLen(0) != Long.BYTES
                || h.payloadLength() != TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD) {
            malformed("a malformed atomic request");
            return;
        }
        if (txQueue.isFull()) {
            block();
            return;
        }
        atomicAddr = h.rmaAddr(0);
        atomicKey = h.rmaKey(0);
        readPayloadInto(atomicIn, TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD, P_ATOMIC_REQUEST);
    }

    /** A read (op 3) or atomic (op 6) response: the oldest request of that kind gets it (responses come in order). */
    private void onResponse(MessageHeader h, OpRing<TxOp> waiting, int kind) {
        TxOp op = waiting.poll();
        if (op == null) {
            malformed("a response nobody asked for"); // a response nobody asked for
            return;
        }
        responseFor = op;
        if (kind == P_READ_RESPONSE) {
            RxOp sink = op.sink;
            if (h.payloadLength() != sink.capacity) {
                malformed("a read response of another length than requested");
                return;
            }
            sink.trimTo(sink.capacity);
            messageLength = sink.capacity;
            payloadKind = P_READ_RESPONSE;
            current = sink;
            discardLeft = 0;
            messageDiscarded = 0;
            readState = R_PAYLOAD;
            return;
        }
        if (h.payloadLength() != TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD) {
            malformed("an atomic response of the wrong length");
            return;
        }
        readPayloadInto(atomicIn, TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD, P_ATOMIC_RESPONSE);
    }

    private void readPayloadInto(ByteBuffer dst, int length, int kind) {
        RxOp sink = atomicSink;
        sink.range(0, dst, 0, length);
        sink.count = 1;
        sink.first = 0;
        messageLength = length;
        payloadKind = kind;
        messageAck = false;
        current = sink;
        discardLeft = 0;
        messageDiscarded = 0;
        readState = R_PAYLOAD;
    }

    /** A request's response finds no room in the transmit queue: stop reading until it has some (back-pressure). */
    private void block() {
        readState = R_BLOCKED;
        if (interestRead) {
            interestRead = false;
            updateInterest();
        }
    }

    /** Picks where the message's payload goes: the next posted receive, the unexpected buffer, or nowhere yet (pause). */
    private void beginMessage() {
        RxOp op = matcher.match(source(), messageTagged, messageTag, messageLength);
        if (op != null) {
            current = op;
            long placed = Math.min(messageLength, op.capacity);
            op.trimTo(placed);
            discardLeft = messageLength - placed;
            messageDiscarded = discardLeft;
            readState = R_PAYLOAD;
            return;
        }
        if (matcher.hasRoomFor(messageLength)) {
            // FI_MATCH_COMPLETE (JOFI bit 1): the ack waits for the receive; else it goes once buffered
            currentUnexpected = matcher.buffer(messageLength, messageHasData, messageData,
                    messageAck && messageMatchAck, source(), this, messageTagged, messageTag);
            currentUnexpected.ackSeq = messageAckSeq;
            readState = R_UNEXPECTED;
            return;
        }
        readState = R_PAUSED;
        if (interestRead) {
            interestRead = false;
            updateInterest();
        }
    }

    private void endMessage() {
        RxOp op = current;
        current = null;
        long discarded = messageDiscarded;
        discardLeft = 0;
        messageDiscarded = 0;
        readState = R_HEADER;
        switch (payloadKind) {
            case P_WRITE -> endWrite();
            case P_READ_RESPONSE -> {
                TxOp r = responseFor;
                responseFor = null;
                completeSend(r);
            }
            case P_ATOMIC_REQUEST -> endAtomicRequest();
            case P_ATOMIC_RESPONSE -> {
                TxOp a = responseFor;
                responseFor = null;
                if (a.result != null) {
                    a.result.putLong(a.result.position(), atomicIn.getLong(0)); // the caller's buffer order
                }
                completeSend(a);
            }
            default -> {
                if (messageAck) {
                    // ack after placing the data, before this side's own completion (R11)
                    ackReady(messageAckSeq);
                }
                matcher.complete(op, messageLength - discarded, discarded, messageHasData, messageData,
                        source(), messageTag, unknownSender());
            }
        }
        payloadKind = P_MSG;
    }

    /** The write's payload is in the region: ack (if asked), count, and report remote CQ data. */
    private void endWrite() {
        if (messageAck) {
            ackReady(messageAckSeq);
        }
        if (remoteWriteCntr != null) {
            remoteWriteCntr.increment();
        }
        if (messageHasData && rxCq != null) {
            // no posted receive is used: an unsolicited completion (R6 overrun if the CQ is full)
            rxCq.completeUnsolicited(null, REMOTE_WRITE_FLAGS, messageLength, null, 0, messageData, 0, source());
        }
    }

    /** Applies a JOFI atomic request to the registered word and queues the response with the old value. */
    private void endAtomicRequest() {
        long word = atomicIn.getLong(0);
        int aop = (int) (word & 0xFF);
        boolean fetch = (word & ATOMIC_FETCH_BIT) != 0;
        UtilMemoryRegion r = (atomicAddr & 7) != 0 || !Atomics.supported(aop) ? null
                : target(atomicKey, atomicAddr, Long.BYTES, Atomics.access(aop, fetch));
        if (r == null) {
            malformed("an atomic request this domain refuses (key, bounds, access, alignment or op)");
            return;
        }
        long old = Atomics.apply(r.buffer(), r.indexOf(atomicAddr), aop, atomicIn.getLong(8), atomicIn.getLong(16));
        UtilCounter c = aop == Fi.FI_ATOMIC_READ ? remoteReadCntr : remoteWriteCntr;
        if (c != null) {
            c.increment();
        }
        TxOp op = takeTx();
        op.kind = K_RESPONSE;
        op.reports = false;
        ByteBuffer hb = op.header;
        hb.clear();
        txHeader.clear().op(OP_ATOMIC_RESPONSE).payloadLength(TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD).encode(hb);
        hb.flip();
        ByteBuffer p = op.injectCopy;
        p.clear();
        p.putLong(0, old);
        p.limit(TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD);
        op.gather[1] = p;
        op.count = 2;
        queueTx(op);
    }

    /**
     * The sender's fi_addr for matching and {@code readFrom} (R10): {@link #rxSource} on an MSG
     * endpoint ({@code FI_ADDR_NOTAVAIL}); on an RDM connection the peer's entry in the AV
     * (cached per AV version).
     */
    private long source() {
        return rdm == null ? rxSource : rdm.sourceOf(peer);
    }

    /**
     * With {@code FI_SOURCE_ERR}, the raw name of a sender that is not in the AV (its
     * completion becomes {@code EADDRNOTAVAIL} with this as errData, R10); else null.
     */
    @Override
    public byte[] unknownSender() {
        return rdm != null && rdm.sourceErr() && rdm.sourceOf(peer) == Fi.FI_ADDR_NOTAVAIL ? peer.name.clone() : null;
    }

    /** A receive took a buffered message of this connection that asked for an ack (R11). */
    @Override
    public void ackTaken() {
        if (cm != DOWN) {
            pendingAcks++;
            flushTx();
        }
    }

    /** A receive took (or discarded) a buffered message whose ack waited for the match (ack order kept). */
    @Override
    public void ackTaken(long seq) {
        if (cm != DOWN && seq >= 0) {
            ackReady(seq);
        }
    }

    private void completeSend(TxOp op) {
        if (op.kind != K_RESPONSE) {
            txOutstanding--;
        }
        if (op.reports) {
            if (op.complete) {
                txCq.complete(op.context, op.cqFlags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            } else {
                txCq.unreserve();
            }
        }
        UtilCounter c = counterOf(op.kind);
        if (c != null) {
            c.increment();
        }
        giveTx(op);
    }

    private UtilCounter counterOf(int kind) {
        return switch (kind) {
            case K_SEND -> sendCntr;
            case K_WRITE, K_ATOMIC -> writeCntr;
            case K_READ, K_ATOMIC_FETCH -> readCntr;
            default -> null;
        };
    }

    private void failSend(TxOp op, int err) {
        if (op.kind != K_RESPONSE) {
            txOutstanding--;
        }
        if (op.reports) {
            byte[] why = endReason;
            txCq.completeError(op.context, op.cqFlags, 0, null, 0, 0, 0, 0, err, endProvErrno, why,
                    why == null ? 0 : why.length, Fi.FI_ADDR_NOTAVAIL);
        }
        UtilCounter c = counterOf(op.kind);
        if (c != null) {
            c.incrementError();
        }
        giveTx(op);
    }

    /** Fails every pending operation with {@code err} (R14). */
    private void failAll(int err) {
        TxOp t;
        while ((t = txQueue.poll()) != null) {
            failSend(t, err);
        }
        while ((t = ackWait.poll()) != null) {
            failSend(t, err);
        }
        while ((t = readWait.poll()) != null) {
            failSend(t, err);
        }
        while ((t = atomicWait.poll()) != null) {
            failSend(t, err);
        }
        if (responseFor != null) {
            TxOp r = responseFor;
            responseFor = null;
            failSend(r, err);
        }
        if (current != null) {
            RxOp c = current;
            current = null;
            if (payloadKind == P_MSG) {
                matcher.fail(c, err, endProvErrno, endReason);
            }
        }
        payloadKind = P_MSG;
        if (rdm == null) {
            // An RDM connection fails only its own operations: the posted receives are the
            // endpoint's, for every peer.
            matcher.failPosted(err, endProvErrno, endReason);
        }
        // Messages that arrived whole before the end stay queued: the peer sent them before its
        // shutdown, so a receive posted now still gets them (nothing the peer sent is lost).
        // Only the message cut off mid-payload goes.
        if (currentUnexpected != null) {
            matcher.abandon(currentUnexpected);
            currentUnexpected = null;
        }
        pendingAcks = 0;
        acks.reset();
    }

    /**
     * The connection ends (once): socket closed, pending operations failed with {@code err},
     * and {@code FI_SHUTDOWN} raised when it was established (R14).
     */
    private void teardown(int err, boolean report) {
        teardown(err, report, 0, null);
    }

    /**
     * The peer sent what the wire does not allow: the connection ends ({@code ECONNRESET},
     * R14) and says why ({@link EndReason}, {@code provErrno} {@code EPROTO}).
     */
    private void malformed(String what) {
        teardown(Errno.ECONNRESET, true, Errno.EPROTO, EndReason.of(channel, "malformed input", what));
    }

    /**
     * As {@link #teardown(int, boolean)}, with a reason: {@code provErrno} and {@code reason}
     * go with every error completion and {@code reason} is the payload of {@code FI_SHUTDOWN}.
     */
    void teardown(int err, boolean report, int provErrno, byte[] reason) {
        if (cm == DOWN) {
            return;
        }
        int was = cm;
        cm = DOWN;
        endProvErrno = provErrno;
        endReason = reason;
        closeChannel();
        failAll(err);
        if (report && eq != null && (was == CONNECTED || was == ACCEPTING)) {
            eq.post(Fi.FI_SHUTDOWN, this, context(), 0, null, reason, reason == null ? 0 : reason.length);
        }
        if (rdm != null) {
            rdm.connectionDown(this);
        }
    }

    /**
     * The progress timeout ({@link ProgressWatchdog}, domain progress thread): a connection that
     * waits for its peer — operations not yet written or awaiting an ack or a response, acks not
     * yet written, a message arriving in parts — and moved no byte either way for
     * {@code timeoutNanos} ends with {@code ETIMEDOUT} (error completions, {@code FI_SHUTDOWN}).
     */
    void checkStall(long now, long timeoutNanos) {
        synchronized (lock) {
            if (cm != CONNECTED) {
                return;
            }
            boolean waiting = txOutstanding > 0 || pendingAcks > 0 || ackInFlight
                    || readState == R_PAYLOAD || readState == R_UNEXPECTED || readState == R_DISCARD;
            if (stall.stalled(received + sent, waiting, now, timeoutNanos)) {
                teardown(Errno.ETIMEDOUT, true, Errno.ETIMEDOUT, EndReason.of(channel, "no progress",
                        "nothing moved for " + timeoutNanos / 1_000_000 + " ms with operations pending"
                                + " (the peer is stopped, hung or unreachable; jofi.tcp.progressTimeout)"));
            }
        }
    }

    // =================================================================== RDM connection mode

    /**
     * Crossed connects: our request was rejected because the peer's connection to us wins.
     * The queued sends stay, not started, until that connection arrives and takes them
     * ({@link #moveQueuedSendsTo}). Caller holds the lock.
     */
    void awaitPeer() {
        cm = AWAITING_PEER;
        closeChannel();
        channel = null;
    }

    /** Whether this RDM connection waits for the peer's crossed connection. */
    boolean isAwaitingPeer() {
        return cm == AWAITING_PEER;
    }

    /** Whether this connection is up and running (CONNECTED). */
    boolean isEstablished() {
        return cm == CONNECTED;
    }

    /** Whether this connection is still usable for sends (not down). */
    boolean isUp() {
        return cm != DOWN;
    }

    /**
     * Hands every queued, not yet started send to {@code to} (the connection that replaces this
     * one), in order, and closes this one without failing anything. Caller holds the lock.
     */
    void moveQueuedSendsTo(TcpEndpoint to) {
        TxOp op;
        while ((op = txQueue.poll()) != null) {
            if (op.kind == K_RESPONSE) {
                giveTx(op); // answers this socket's peer requests: they die with it
                continue;
            }
            txOutstanding--;
            to.txOutstanding++;
            to.txQueue.offer(op);
        }
        cm = DOWN;
        closeChannel();
        failAll(Errno.ECONNRESET); // what it had received or was acking (an accepted socket replaced)
        to.flushTx();
    }

    /**
     * Ends an RDM connection: its pending operations fail with {@code err} (ECONNREFUSED for a
     * connect that failed, ECONNRESET for a dead peer, ECANCELED when the endpoint ends it).
     */
    void failRdm(int err) {
        synchronized (lock) {
            if (cm == DOWN) {
                failAll(err); // failConnect left the queued sends for the endpoint to decide
                return;
            }
            teardown(err, false);
        }
    }

    /** Resumes reading a message that waited for a receive (one was posted on the RDM endpoint). */
    void resumeIfPaused() {
        if (readState == R_PAUSED && cm != DOWN) {
            resumeReading();
        }
    }

    private void closeChannel() {
        SelectionKey k = key;
        key = null;
        if (k != null) {
            k.cancel();
            domain.loop().unpoll(k); // else the loop keeps this endpoint for the domain's life
        }
        SocketChannel ch = channel;
        if (ch != null) {
            Sockets.closeQuietly(ch);
        }
    }

    private TxOp takeTx() {
        if (txFreeCount > 0) {
            TxOp op = txFree[--txFreeCount];
            txFree[txFreeCount] = null;
            return op;
        }
        txCreated++;
        return new TxOp();
    }

    private void giveTx(TxOp op) {
        if (op.sink != null) {
            matcher.give(op.sink);
        }
        op.reset();
        if (txFreeCount < txFree.length) {
            txFree[txFreeCount++] = op;
        }
    }

    // =================================================================== life cycle

    @Override
    protected void onClose() {
        synchronized (lock) {
            // Closing discards what is pending without completions (fi_endpoint(3)); give back
            // the CQ room those operations reserved.
            cm = DOWN;
            closeChannel();
            TxOp t;
            while ((t = txQueue.poll()) != null) {
                if (t.reports) {
                    txCq.unreserve();
                }
            }
            while ((t = ackWait.poll()) != null) {
                if (t.reports) {
                    txCq.unreserve();
                }
            }
            while ((t = readWait.poll()) != null) {
                txCq.unreserve();
            }
            while ((t = atomicWait.poll()) != null) {
                txCq.unreserve();
            }
            if (responseFor != null) {
                txCq.unreserve();
                responseFor = null;
            }
            if (current != null) {
                if (payloadKind == P_MSG) {
                    rxCq.unreserve();
                }
                current = null;
            }
            if (rdm != null) {
                return; // an RDM connection: the posted receives and the bindings are the endpoint's
            }
            if (rxCq != null) {
                matcher.discardPosted();
            }
            if (request != null) {
                request.drop();
            }
            bindings.releaseAll(this);
        }
    }

    /**
     * R15: pending operations fail with ECANCELED, a connected endpoint raises FI_SHUTDOWN; the
     * same with EIO when the domain's progress failed ({@link #departureError()}).
     */
    @Override
    protected void onDeparture() {
        synchronized (lock) {
            if (cm == IDLE) {
                cm = DOWN;
                failAll(departureError());
                if (request != null) {
                    request.drop();
                }
                return;
            }
            teardown(departureError(), true);
        }
    }

    @Override
    protected String describe() {
        return "tcp MSG endpoint";
    }

    /** Whether a message is being read into the unexpected buffer right now (tests). */
    boolean isBuffering() {
        synchronized (lock) {
            return readState == R_UNEXPECTED;
        }
    }

    /**
     * Sets the fi_addr of this connection's peer as the sender of what it receives (RDM
     * connections; an MSG endpoint keeps {@code FI_ADDR_NOTAVAIL}). Messages buffered before
     * keep the address they arrived with.
     */
    void sourceAddress(long fiAddr) {
        synchronized (lock) {
            rxSource = fiAddr;
        }
    }

    /** Whether reading stopped because a request's response finds no transmit room (tests). */
    boolean isBlocked() {
        synchronized (lock) {
            return readState == R_BLOCKED;
        }
    }

    /** Descriptors created so far (tests prove the pools stop growing in steady state). */
    int descriptorsCreated() {
        synchronized (lock) {
            return txCreated + matcher.created();
        }
    }
}
