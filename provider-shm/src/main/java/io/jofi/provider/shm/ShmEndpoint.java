package io.jofi.provider.shm;

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
import io.jofi.provider.shm.cma.CrossMemoryAttach;
import io.jofi.provider.shm.ring.RingDescriptor;
import io.jofi.provider.shm.ring.SenderLiveness;
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.Atomics;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;
import io.jofi.spi.util.UtilMemoryRegion;
import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * An RDM endpoint of the shm provider ({@code fi_endpoint(3)}, {@code fi_msg(3)},
 * {@code fi_tagged(3)}, {@code fi_rma(3)}, {@code fi_atomic(3)}).
 *
 * <p><b>Addressing.</b> {@link #enable()} creates the endpoint's region file (its ring);
 * {@link #getName()} is {@code fi_shm://<name>}. A peer taken from the AV is mapped on the
 * first operation towards it (the region refuses a foreign, corrupt or dead owner's file: the
 * post then returns {@code -EHOSTUNREACH}). An info with a {@code srcAddr} ({@code getInfo}
 * with {@code FI_SOURCE} and a name or service) makes the endpoint take that name too
 * ({@link ShmAlias}: {@code EADDRINUSE} when a live endpoint holds it); a peer addressed by
 * such a name is resolved to its canonical name once, so its records and the AV entry meet in
 * one peer.
 *
 * <p><b>Messages.</b> Up to the fragment size a message is one ring record (header +
 * payload inline); longer ones travel as consecutive fragments of one sender, reassembled per
 * sender, with the ring's capacity as the flow control (a full ring leaves the rest queued
 * towards that peer until the receiver drains). Receives are matched in posting order; an
 * unmatched message is buffered (unexpected) up to the configured bytes, beyond which the
 * endpoint stops draining its ring until receives are posted. Tagged receives match
 * {@code (tag ^ sent) & ~ignore == 0}; {@code FI_PEEK}/{@code FI_CLAIM}/{@code FI_DISCARD}
 * work on the unexpected list. Truncation completes with {@code ETRUNC} (R12); cancel with
 * {@code ECANCELED} (R13); {@code readFrom} reports the sender's {@code fi_addr}
 * ({@code FI_SOURCE}), and with {@code FI_SOURCE_ERR} an unknown sender is an
 * {@code EADDRNOTAVAIL} error carrying its {@code fi_shm://} address (R10).
 *
 * <p><b>Completion levels (R11).</b> A plain send is {@code FI_INJECT_COMPLETE}: it completes
 * when its last fragment is in the peer's ring; {@code FI_TRANSMIT_COMPLETE} waits in addition
 * for a life check of the peer made after the publish (or for the peer to have consumed its
 * record: a peer that took it and then went away got it); with {@code FI_DELIVERY_COMPLETE} or {@code FI_COMMIT_COMPLETE} when the receiver
 * acknowledged that it placed or buffered it; with {@code FI_MATCH_COMPLETE} when the
 * receiver matched it with a receive. RMA writes complete when the target (or, one-sided,
 * this side) placed the data; with {@code FI_COMMIT_COMPLETE} into a file-backed region the
 * mapping is forced to storage first.
 *
 * <p><b>RMA and atomics.</b> A target region registered from shareable memory
 * ({@code Domain.allocateBuffer}/{@code mapFile}) is published in its domain's
 * {@link RegistrationTable}; the initiator maps it and reads, writes and atomically updates
 * it directly ({@code VarHandle} on the mapping), without the target's progress. Other
 * regions are served by the target's progress (WRITE / READ_REQ / ATOMIC_REQ records,
 * answered by ACK / READ_RESP / ATOMIC_RESP).
 *
 * <p><b>Peer failure.</b> A peer whose process died (pid and start time no longer alive) is
 * found by the progress step ({@link PeerLiveness}: checked every {@value #LIVENESS_MILLIS} ms
 * while operations towards it are pending, every {@code peerCheckMillis} otherwise): they
 * complete with {@code ECONNRESET} errors, so do later operations towards it, its mappings are
 * dropped and the files of dead processes removed; other peers are unaffected. A live peer
 * that makes no progress for {@code progressTimeoutMillis} fails with {@code ETIMEDOUT}.
 *
 * <p><b>Threads.</b> One lock (this endpoint's monitor) guards the queues and the peers; the
 * progress step takes it per pass, the application's calls per operation. Nothing is
 * allocated per operation in steady state (descriptors are pooled); the first contact with a
 * peer, unexpected messages and growth of the pools allocate.
 */
final class ShmEndpoint extends AbstractFid implements Endpoint, RingLink.Handler, SenderLiveness {
    /** Bytes an inject copies (fi_inject). */
    static final int INJECT_SIZE = 4096;
    /** How often peers with pending operations are checked for life. */
    static final long LIVENESS_MILLIS = PeerLiveness.WATCHED_MILLIS;
    /** {@link #admitTx}: the peer failed earlier; a completion room is reserved for the error entry. */
    private static final int PEER_FAILED = 1;
    /** Records drained per progress pass (bounded, so that sends get their turn). */
    private static final int DRAIN_BATCH = 256;
    /** Replies owed to one peer beyond which it is declared failed (a peer that never drains). */
    private static final int MAX_QUEUED_PER_PEER = 1 << 16;
    /** Peers an endpoint keeps; records of further unknown senders are dropped (a hostile ring writer cannot grow it). */
    private static final int MAX_PEERS = 4096;
    private static final long ACK_LEVELS = Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMMIT_COMPLETE;

    private final ShmDomain domain;
    private final Info info;
    private final long caps;
    private final int queueSize;
    private int fragment;
    private final long unexpectedLimit;
    private final Path dir;
    private final long txOpFlags;
    private final long rxOpFlags;
    private final boolean source;
    private final boolean sourceErr;
    private final boolean directed;

    // ---- cross-memory attach (null when off: cmaThreshold 0 or CrossMemoryAttach unavailable)
    private final CrossMemoryAttach cma;
    private final int cmaThreshold;
    private final boolean cmaProbeFault;
    /** The iovecs of the CMA record being handled (validated copies of shared memory). */
    private final long[] cmaAddrs = new long[TxOp.MAX_PARTS];
    private final long[] cmaLens = new long[TxOp.MAX_PARTS];
    /** CMA messages sent (records published) and read (placed into a receive): tests and logs. */
    private long cmaSent;
    private long cmaRead;

    // ---- bindings (control path, under this)
    /** fi_ep_bind's rules, retains and progress attach (util); the fields below are the data path's copies. */
    private final EndpointBindings bindings;
    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private UtilCounter sendCntr;
    private UtilCounter recvCntr;
    private UtilCounter readCntr;
    private UtilCounter writeCntr;
    private UtilCounter remoteReadCntr;
    private UtilCounter remoteWriteCntr;
    private UtilEventQueue eq;
    private UtilAddressVector av;
    private boolean selectiveTx;
    private boolean selectiveRx;
    private volatile boolean enabled;
    private long minMultiRecv = 1;

    // ---- identity
    private String name;
    /** The name the application chose (FI_SOURCE srcAddr), a link to {@link #name}; null without. */
    private String alias;
    private long seq;
    private final long pid = ProcessHandle.current().pid();
    private RingLink own;
    private boolean ringFailed;

    // ---- peers
    private Peer[] peers = new Peer[0];
    private Peer lastPeer;
    private final long[] destKeys = new long[64];
    private final byte[][] destAddrs = new byte[64][];
    private final Peer[] destPeers = new Peer[64];

    // ---- operations
    private TxOp[] ops = new TxOp[0];
    private int[] freeOps = new int[0];
    private int freeOpCount;
    /** Application operations in flight (queued or awaiting an answer). */
    private int pendingTx;
    /** Ops started ({@code startOp}): tells a post's fault handling whether its op is recorded. */
    private long opsStarted;
    private final RxOp[] rxFree;
    private int rxFreeCount;
    private final ArrayList<RxOp> msgRecvs;
    private final ArrayList<RxOp> tagRecvs;
    private final UnexpectedList msgUnexpected = new UnexpectedList(false);
    private final UnexpectedList tagUnexpected = new UnexpectedList(true);
    private long unexpectedBytes;
    /**
     * A message record was left in the ring because the unexpected budget is spent (volatile:
     * the MANUAL wait bridge reads it): the ring is not slept on (the record would wake the
     * step at once) and posting a receive wakes the progress to try it again.
     */
    private volatile boolean held;
    /** Set by the handler of the record at hand: leave it in the ring. */
    private boolean holdRecord;
    /** When peers are looked at for life and progress (issue 12 items 9, 10). */
    private final PeerLiveness liveness;
    /** FI_TRANSMIT_COMPLETE operations waiting for a life check of their peer ({@link Peer#unconfirmed}, summed). */
    private int unconfirmed;

    ShmEndpoint(ShmDomain domain, Info info, Object context) {
        super(FidClass.ENDPOINT, context);
        this.domain = domain;
        this.info = info.copy();
        this.caps = info.caps() == 0 ? ShmProvider.CAPS : info.caps();
        long tx = info.txAttr().size();
        long rx = info.rxAttr().size();
        this.queueSize = (int) Math.max(16, Math.min(65536, Math.max(tx, rx) == 0 ? ShmProvider.QUEUE_SIZE : Math.max(tx, rx)));
        ShmProvider p = domain.provider();
        this.fragment = p.inlineThreshold();
        this.unexpectedLimit = p.unexpectedBytes();
        this.liveness = new PeerLiveness(p.peerCheckMillis(), p.progressTimeoutMillis());
        this.dir = p.directory();
        this.txOpFlags = info.txAttr().opFlags();
        this.rxOpFlags = info.rxAttr().opFlags();
        this.source = (caps & Fi.FI_SOURCE) != 0;
        this.sourceErr = (caps & Fi.FI_SOURCE_ERR) != 0;
        this.directed = (caps & Fi.FI_DIRECTED_RECV) != 0;
        this.cmaThreshold = p.cmaThreshold();
        this.cmaProbeFault = p.cmaProbeFault();
        this.cma = cmaThreshold > 0 && CrossMemoryAttach.available() ? new CrossMemoryAttach() : null;
        this.bindings = new EndpointBindings(domain.engine(), EndpointBindings.ALL_COUNTER_ROLES);
        this.rxFree = new RxOp[queueSize];
        this.msgRecvs = new ArrayList<>(queueSize);
        this.tagRecvs = new ArrayList<>(queueSize);
        Arrays.fill(destKeys, Fi.FI_ADDR_NOTAVAIL);
    }

    // =================================================================== control path

    /**
     * {@code fi_ep_bind}: a CQ ({@code FI_TRANSMIT}, {@code FI_RECV},
     * {@code FI_SELECTIVE_COMPLETION}), an AV, an EQ (accepted, unused), or a counter
     * ({@code FI_SEND}, {@code FI_RECV}, {@code FI_READ}, {@code FI_WRITE},
     * {@code FI_REMOTE_READ}, {@code FI_REMOTE_WRITE}), with the rules of
     * {@link EndpointBindings}. Each bound object is retained until this endpoint closes (R9).
     *
     * @throws FabricException {@code EINVAL} for a foreign object, wrong flags or a second bind
     *         of the same role; {@code EOPBADSTATE} after {@code enable}
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
        remoteReadCntr = bindings.counter(Fi.FI_REMOTE_READ);
        remoteWriteCntr = bindings.counter(Fi.FI_REMOTE_WRITE);
    }

    /**
     * {@code fi_enable}: creates the endpoint's region (its ring and doorbell) and starts
     * serving it in the domain's progress.
     *
     * <p>With a {@code srcAddr} in its info ({@code getInfo} with {@code FI_SOURCE} and a
     * name or service) the endpoint also takes that name ({@link ShmAlias}): peers may address
     * it as {@code fi_shm://<name>}, and {@link #getName()} returns that address.
     *
     * @throws FabricException {@code ENOCQ} without a CQ; {@code ENOAV} without an AV;
     *         {@code EINVAL} for a {@code srcAddr} that is not an shm address or has the form
     *         of the provider's own names; {@code EADDRINUSE} when a live endpoint holds that
     *         name; {@code EIO} when the region cannot be created (the message says why)
     */
    @Override
    public synchronized void enable() throws FabricException {
        ensureOpen("enable");
        if (enabled) {
            return;
        }
        if (txCq == null && rxCq == null) {
            throw new FabricException(Errno.ENOCQ, "enable: bind a completion queue first");
        }
        if (av == null) {
            throw new FabricException(Errno.ENOAV, "enable: an RDM endpoint needs a bound address vector");
        }
        String chosen = null;
        if (info.srcAddr() != null) {
            chosen = ShmNames.nameOf(info.srcAddr());
            if (chosen == null || ShmNames.isEndpointName(chosen)) {
                throw new FabricException(Errno.EINVAL, "enable: the source address "
                        + ShmAddressResolver.text(info.srcAddr()) + " is not a name this endpoint can take ("
                        + ShmNames.SCHEME + "<name>, " + ShmNames.NAME_RULE + ", not of the form <pid>-<d>-<e>)");
            }
        }
        String n = ShmNames.newEndpointName(domain.prefix());
        ShmProvider p = domain.provider();
        try {
            own = RingLink.create(dir, n, p.ringSize(), p.bounceSlotSize(), p.bounceSlotCount(), this,
                    domain.doorbellPath());
        } catch (IOException e) {
            throw new FabricException(Errno.EIO, "enable: cannot create the region " + n + " in " + dir + ": "
                    + e.getMessage(), e);
        }
        if (chosen != null) {
            try {
                ShmAlias.claim(dir, chosen, n);
            } catch (FabricException e) {
                own.close();
                own = null;
                throw e;
            }
        }
        name = n;
        alias = chosen;
        seq = ShmRecordDescriptor.seqOf(n);
        if (cma != null) {
            own.advertiseCma(); // peers may probe us and send CMA messages
        }
        // every peer's ring has the same size as ours (one provider setting); a smaller one
        // would only make claims fail with -EMSGSIZE, which push() treats as a broken peer
        fragment = Math.max(64, Math.min(fragment, own.maxPayload() - ShmRecordDescriptor.HEADER));
        if (remoteReadCntr != null || remoteWriteCntr != null) {
            domain.eventsWanted();
        }
        enabled = true;
        bindings.seal();
        domain.addEndpoint(this);
    }

    /** {@code fi_getname}: {@code fi_shm://<name>} once enabled (the chosen name if there is one). */
    @Override
    public synchronized byte[] getName() throws FabricException {
        ensureOpen("getName");
        if (name == null) {
            throw new FabricException(Errno.EOPBADSTATE, "getName: enable the endpoint first (its region is created then)");
        }
        return ShmNames.address(alias != null ? alias : name);
    }

    /** RDM endpoints have no peer: {@code ENOTCONN}. */
    @Override
    public byte[] getPeer() throws FabricException {
        ensureOpen("getPeer");
        throw new FabricException(Errno.ENOTCONN, "getPeer: an RDM endpoint is not connected");
    }

    /** RDM: {@code ENOSYS}. */
    @Override
    public void connect(byte[] addr, byte[] param) throws FabricException {
        ensureOpen("connect");
        throw new FabricException(Errno.ENOSYS, "connect: shm endpoints are RDM (use the AV)");
    }

    /** RDM: {@code ENOSYS}. */
    @Override
    public void accept(byte[] param) throws FabricException {
        ensureOpen("accept");
        throw new FabricException(Errno.ENOSYS, "accept: shm endpoints are RDM");
    }

    /** RDM: {@code ENOSYS}. */
    @Override
    public void shutdown(long flags) throws FabricException {
        ensureOpen("shutdown");
        throw new FabricException(Errno.ENOSYS, "shutdown: shm endpoints are RDM (close the endpoint)");
    }

    /**
     * {@code fi_getopt}: {@code FI_OPT_MIN_MULTI_RECV}.
     *
     * @throws FabricException {@code ENOPROTOOPT} for other options
     */
    @Override
    public synchronized long getOpt(int level, int optName) throws FabricException {
        ensureOpen("getOpt");
        if (level == Fi.FI_OPT_ENDPOINT && optName == Fi.FI_OPT_MIN_MULTI_RECV) {
            return minMultiRecv;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + optName + " at level " + level
                + " is not supported (FI_OPT_MIN_MULTI_RECV is)");
    }

    /**
     * {@code fi_setopt}: {@code FI_OPT_MIN_MULTI_RECV} (bytes, at least 1): a multi-receive
     * buffer is released once less than this is left.
     *
     * @throws FabricException {@code EINVAL} for a value below 1; {@code ENOPROTOOPT} otherwise
     */
    @Override
    public synchronized void setOpt(int level, int optName, long value) throws FabricException {
        ensureOpen("setOpt");
        if (level == Fi.FI_OPT_ENDPOINT && optName == Fi.FI_OPT_MIN_MULTI_RECV) {
            if (value < 1) {
                throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_MIN_MULTI_RECV " + value + " must be at least 1");
            }
            minMultiRecv = value;
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "setOpt: option " + optName + " at level " + level + " is not supported");
    }

    /**
     * {@code fi_cancel}: a pending receive with this context completes with {@code ECANCELED}
     * (R13); a message claimed by {@code FI_PEEK | FI_CLAIM} for it is released.
     *
     * @return 0, or {@code -ENOENT} when no such receive is pending
     */
    @Override
    public synchronized int cancel(Object context) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (cancelIn(msgRecvs, context) || cancelIn(tagRecvs, context)
                || cancelWaiting(msgUnexpected, context) || cancelWaiting(tagUnexpected, context)) {
            return 0;
        }
        return -Errno.ENOENT;
    }

    private boolean cancelIn(ArrayList<RxOp> list, Object context) {
        for (int i = 0, n = list.size(); i < n; i++) {
            RxOp op = list.get(i);
            if (op.context == context && !isFilling(op)) {
                list.remove(i);
                failRecv(op, Errno.ECANCELED, op.tagged);
                return true;
            }
        }
        return false;
    }

    /**
     * A receive that took an unexpected message whose last fragments are still to come: it is
     * cancelled, and the message goes back to the unexpected list for a later receive.
     */
    private boolean cancelWaiting(UnexpectedList list, Object context) {
        for (Peer p : peers) {
            Unexpected u = p.rxUnexpected;
            if (u != null && u.waiting != null && u.waiting.context == context && (u.tagged == (list == tagUnexpected))) {
                RxOp op = u.waiting;
                u.waiting = null;
                list.add(u);
                failRecv(op, Errno.ECANCELED, u.tagged);
                return true;
            }
        }
        return false;
    }

    private boolean isFilling(RxOp op) {
        for (Peer p : peers) {
            if (p.rxOp == op) {
                return true;
            }
        }
        return false;
    }

    // =================================================================== data path: messages

    @Override
    public int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        return postMsg(buf, null, destAddr, false, 0, false, 0, txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return postMsg(buf, null, destAddr, false, 0, true, data, txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int inject(ByteBuffer buf, long destAddr) {
        return postMsg(buf, null, destAddr, false, 0, false, 0, Fi.FI_INJECT, null);
    }

    @Override
    public int injectData(ByteBuffer buf, long data, long destAddr) {
        return postMsg(buf, null, destAddr, false, 0, true, data, Fi.FI_INJECT, null);
    }

    /**
     * {@code fi_sendmsg}: flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT},
     * {@code FI_COMPLETION}, the completion levels of R11, {@code FI_FENCE}/{@code FI_MORE}
     * (ordered anyway).
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
        return postMsg(null, msg, msg.addr(), false, 0, (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(),
                flags | completion(selectiveTx), msg.context());
    }

    @Override
    public int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        return postMsg(buf, null, destAddr, true, tag, false, 0, txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        return postMsg(buf, null, destAddr, true, tag, true, data, txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int tinject(ByteBuffer buf, long destAddr, long tag) {
        return postMsg(buf, null, destAddr, true, tag, false, 0, Fi.FI_INJECT, null);
    }

    @Override
    public int tsendMsg(TaggedMsg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return postMsg(null, msg, msg.addr(), true, msg.tag(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(),
                flags | completion(selectiveTx), msg.context());
    }

    private static long completion(boolean selective) {
        return selective ? 0 : Fi.FI_COMPLETION;
    }

    /** {@link #postMsgUnguarded}; a memory fault on a peer's mapping fails that peer, never throws (MappingFaults). */
    private int postMsg(ByteBuffer buf, Msg msg, long destAddr, boolean tagged, long tag, boolean withData,
                        long data, long flags, Object context) {
        long started = opsStarted;
        try {
            return postMsgUnguarded(buf, msg, destAddr, tagged, tag, withData, data, flags, context);
        } catch (InternalError e) {
            return onPostFault(e, started);
        }
    }

    private synchronized int postMsgUnguarded(ByteBuffer buf, Msg msg, long destAddr, boolean tagged, long tag,
                                              boolean withData, long data, long flags, Object context) {
        if (buf == null && msg == null) {
            return -Errno.EINVAL; // a one-buffer call without its buffer: refused before anything else
        }
        int rc = postCheck(tagged ? Fi.FI_TAGGED : Fi.FI_MSG);
        if (rc != 0) {
            return rc;
        }
        int iovs = msg == null ? 1 : msg.iovCount();
        long length = payloadLength(buf, msg, iovs);
        if (length < 0) {
            return (int) length;
        }
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        rc = PostChecks.transmit(length, inject, INJECT_SIZE, ShmProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        Peer peer = peerFor(destAddr);
        boolean reports = !(inject && msg == null);
        rc = admitTx(peer, reports);
        if (rc == PEER_FAILED) {
            return failLocally(true, context, Fi.FI_SEND | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG), peer.failed, sendCntr);
        }
        if (rc != 0) {
            return rc;
        }
        TxOp op = startOp(ShmRecordDescriptor.MSG, peer, context, reports, flags, Fi.FI_SEND | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG),
                Fi.FI_SEND);
        int wf = (tagged ? ShmRecordDescriptor.TAGGED : 0) | (withData ? ShmRecordDescriptor.HAS_DATA : 0);
        if ((flags & ACK_LEVELS) != 0) {
            wf |= ShmRecordDescriptor.ACK_ARRIVAL;
        } else if ((flags & Fi.FI_MATCH_COMPLETE) != 0) {
            wf |= ShmRecordDescriptor.ACK_MATCH;
        }
        op.wireFlags = wf;
        op.awaitsAnswer = (wf & (ShmRecordDescriptor.ACK_ARRIVAL | ShmRecordDescriptor.ACK_MATCH)) != 0;
        op.a = tag;
        op.b = data;
        attachPayload(op, buf, msg, iovs, inject);
        if (cma != null && !inject && length >= cmaThreshold && allDirect(op)) {
            if (peer.cma == Peer.CMA_ON) {
                // one record with our iovecs; the receiver reads them, then ACKs: complete then
                op.wireFlags |= ShmRecordDescriptor.CMA;
                op.awaitsAnswer = true;
            } else if (peer.cma == Peer.CMA_UNKNOWN) {
                startProbe(peer); // ahead of this message, which takes the bounce path
            }
        }
        // FI_TRANSMIT_COMPLETE: "delivered to the peer" must mean the peer lived to take it: the
        // completion waits for a life check made after the publish (an ACK level proves it anyway)
        op.awaitsAlive = reports && !op.awaitsAnswer && (flags & Fi.FI_TRANSMIT_COMPLETE) != 0;
        pendingTx++;
        enqueue(peer, op);
        return 0;
    }

    /**
     * What every post checks first: the endpoint's data-path state ({@code dataPathCheck}),
     * then {@code -ENOSYS} unless its caps hold every bit of {@code needed}, then
     * {@code -EOPBADSTATE} before {@code enable}; 0 when the post may go on.
     */
    private int postCheck(long needed) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if ((caps & needed) != needed) {
            return -Errno.ENOSYS;
        }
        return enabled ? 0 : -Errno.EOPBADSTATE;
    }

    /**
     * The bytes of a transmit's payload ({@code buf}, or {@code msg}'s first {@code iovs}
     * iovs); {@code -EINVAL} for an iov count out of range or a missing buffer.
     */
    private static long payloadLength(ByteBuffer buf, Msg msg, int iovs) {
        if (iovs < 0 || iovs > TxOp.MAX_PARTS) {
            return -Errno.EINVAL;
        }
        long length = 0;
        for (int i = 0; i < iovs; i++) {
            ByteBuffer b = msg == null ? buf : msg.iov(i);
            if (b == null) {
                return -Errno.EINVAL;
            }
            length += b.remaining();
        }
        return length;
    }

    /**
     * Admits a transmit towards {@code peer}: {@code -EINVAL} for no peer, {@code -ENOCQ} when
     * a reporting operation has no transmit CQ, {@code -EHOSTUNREACH} when the peer was never
     * reachable, {@link #PEER_FAILED} (with a CQ slot reserved) when it failed earlier (died,
     * stalled, misbehaved: the operation completes with that error as an entry, as those pending
     * then did; an inject, which has no completion, gets {@code -errno}), {@code -EAGAIN} when
     * the queue is full; then a CQ slot reserved for a reporting one.
     */
    private int admitTx(Peer peer, boolean reports) {
        if (peer == null) {
            return -Errno.EINVAL;
        }
        if (reports && txCq == null) {
            return -Errno.ENOCQ;
        }
        if (!linked(peer)) {
            if (peer.failed == Errno.EHOSTUNREACH || !reports) {
                return -peer.failed; // unreachable (no such endpoint, refused region), or an inject
            }
            int rc = txCq.reserve();
            return rc != 0 ? rc : PEER_FAILED;
        }
        if (pendingTx >= queueSize) {
            return -Errno.EAGAIN;
        }
        return reports ? txCq.reserve() : 0;
    }

    /** A pooled descriptor set up for a transmit of {@code kind}; the completion flag comes from {@code flags}. */
    private TxOp startOp(int kind, Peer peer, Object context, boolean reports, long flags, long cqFlags, long counter) {
        TxOp op = takeOp();
        opsStarted++;
        op.kind = kind;
        op.peer = peer;
        op.context = context;
        op.reports = reports;
        op.complete = (flags & Fi.FI_COMPLETION) != 0;
        op.cqFlags = cqFlags;
        op.counter = counter;
        return op;
    }

    /**
     * Puts the payload ({@code buf} or {@code msg}'s iovs) into the op's parts: in place, or
     * with {@code inject} copied now (the caller may reuse the buffer at once). The op's
     * {@code c} is the payload's length.
     */
    private static void attachPayload(TxOp op, ByteBuffer buf, Msg msg, int iovs, boolean inject) {
        if (inject) {
            if (op.injectCopy == null) {
                op.injectCopy = ByteBuffer.allocateDirect(INJECT_SIZE);
            }
            int at = 0;
            for (int i = 0; i < iovs; i++) {
                ByteBuffer b = msg == null ? buf : msg.iov(i);
                int n = b.remaining();
                op.injectCopy.put(at, b, b.position(), n);
                at += n;
            }
            op.part(op.injectCopy, 0, at);
        } else {
            for (int i = 0; i < iovs; i++) {
                ByteBuffer b = msg == null ? buf : msg.iov(i);
                op.part(b, b.position(), b.remaining());
            }
        }
        op.c = op.length;
    }

    /**
     * A one-sided access done in the target's published memory: its completion (or the
     * reserved slot given back when none is wanted) and its counter, at once; 0.
     */
    private int completedDirect(boolean reports, long flags, Object context, long cqFlags, UtilCounter counter) {
        if (reports) {
            if ((flags & Fi.FI_COMPLETION) != 0) {
                txCq.complete(context, cqFlags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            } else {
                txCq.unreserve();
            }
        }
        count(counter);
        return 0;
    }

    /** Whether every payload part is a direct buffer with a native address (CMA reads it where it is). */
    private boolean allDirect(TxOp op) {
        for (int i = 0; i < op.partCount; i++) {
            if (cma.address(op.parts[i]) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Queues the CMA probe towards {@code peer}: the address of our probe word and its value;
     * the peer reads it with {@code process_vm_readv} and ACKs 0 (CMA on) or the errno (off).
     * A peer whose region does not offer CMA is off at once.
     */
    private void startProbe(Peer peer) {
        if (!peer.link.peerDoesCma()) {
            peer.cma = Peer.CMA_OFF;
            peer.cmaReason = "the peer's region does not offer CMA (cmaThreshold 0 or CMA unavailable there)";
            return;
        }
        TxOp op = takeOp();
        op.kind = ShmRecordDescriptor.PROBE;
        op.peer = peer;
        op.a = cma.probeAddress();
        op.b = cmaProbeFault ? ~cma.probeValue() : cma.probeValue();
        op.awaitsAnswer = true;
        peer.cma = Peer.CMA_PROBING;
        enqueue(peer, op);
    }

    /** CMA messages this endpoint sent (tests). */
    synchronized long cmaSent() {
        return cmaSent;
    }

    /** CMA messages this endpoint read into its receives (tests). */
    synchronized long cmaRead() {
        return cmaRead;
    }

    /** Whether CMA is on towards the peer at {@code fiAddr} (tests). */
    synchronized boolean cmaOnTowards(long fiAddr) {
        Peer p = peerFor(fiAddr);
        return p != null && p.cma == Peer.CMA_ON;
    }

    /** Why CMA is off towards the peer at {@code fiAddr}, or null (tests, logs). */
    synchronized String cmaReasonTowards(long fiAddr) {
        Peer p = peerFor(fiAddr);
        return p == null ? null : p.cmaReason;
    }

    @Override
    public int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        if (buf == null) {
            return -Errno.EINVAL;
        }
        return postRecv(buf, null, srcAddr, false, 0, 0, rxOpFlags | completion(selectiveRx), context);
    }

    /** {@code fi_recvmsg}: flags {@code FI_COMPLETION}, {@code FI_MULTI_RECV}. */
    @Override
    public int recvMsg(Msg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.RECV_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return postRecv(null, msg, msg.addr(), false, 0, 0, flags | completion(selectiveRx), msg.context());
    }

    @Override
    public int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        if (buf == null) {
            return -Errno.EINVAL;
        }
        return postRecv(buf, null, srcAddr, true, tag, ignore, rxOpFlags | completion(selectiveRx), context);
    }

    /** {@code fi_trecvmsg}: flags {@code FI_COMPLETION}, {@code FI_PEEK}, {@code FI_CLAIM}, {@code FI_DISCARD}. */
    @Override
    public int trecvMsg(TaggedMsg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.TRECV_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        if ((flags & (Fi.FI_PEEK | Fi.FI_CLAIM)) != 0) {
            rc = PostChecks.landing(null, msg, msg.iovCount(), 0, ShmProvider.MAX_MSG_SIZE); // a claim lands there
            if (rc != 0) {
                return rc;
            }
            domain.engine().drive();
            return peekOrClaim(msg, flags | completion(selectiveRx));
        }
        return postRecv(null, msg, msg.addr(), true, msg.tag(), msg.ignore(), flags | completion(selectiveRx),
                msg.context());
    }

    private synchronized int postRecv(ByteBuffer buf, Msg msg, long srcAddr, boolean tagged, long tag, long ignore,
                                      long flags, Object context) {
        int rc = postCheck(tagged ? Fi.FI_TAGGED : Fi.FI_MSG);
        if (rc != 0) {
            return rc;
        }
        if (ringFailed) {
            return -Errno.EIO; // nothing can arrive any more (failOwnRing)
        }
        boolean multi = (flags & Fi.FI_MULTI_RECV) != 0;
        if (multi && (tagged || (caps & Fi.FI_MULTI_RECV) == 0)) {
            return -Errno.ENOSYS;
        }
        int iovs = msg == null ? 1 : msg.iovCount();
        if (iovs < 0 || iovs > TxOp.MAX_PARTS || (multi && iovs != 1)) {
            return -Errno.EINVAL;
        }
        rc = PostChecks.landing(buf, msg, iovs, flags, ShmProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        if (rxCq == null) {
            return -Errno.ENOCQ;
        }
        if (rxFreeCount == 0 && msgRecvs.size() + tagRecvs.size() >= queueSize) {
            return -Errno.EAGAIN;
        }
        rc = rxCq.reserve();
        if (rc != 0) {
            return rc;
        }
        budgetFreed(); // it may take a buffered message, or the one held in the ring
        RxOp op = takeRx();
        op.context = context;
        op.tagged = tagged;
        op.tag = tag;
        op.ignore = ignore;
        op.src = directed ? srcAddr : Fi.FI_ADDR_UNSPEC;
        op.complete = (flags & Fi.FI_COMPLETION) != 0;
        op.multi = multi;
        for (int i = 0; i < iovs; i++) {
            ByteBuffer b = msg == null ? buf : msg.iov(i);
            op.part(b, b.position(), b.remaining());
        }
        op.buf = iovs > 0 ? (msg == null ? buf : msg.iov(0)) : null;
        op.bufOffset = op.buf == null ? 0 : op.buf.position();
        UnexpectedList unexpected = tagged ? tagUnexpected : msgUnexpected;
        // an exact tag walks only that tag's chain (O(1) for the oldest such message)
        boolean exact = tagged && ignore == 0;
        Unexpected u = exact ? unexpected.firstWithTag(tag) : unexpected.head();
        while (u != null) {
            Unexpected following = exact ? unexpected.nextWithTag(u) : u.next;
            if (u.claimedBy != null || u.waiting != null || !op.matches(u.tagged, u.tag) || !srcMatches(op, u.sender)) {
                u = following;
                continue;
            }
            if (!u.isWhole()) {
                if (multi) {
                    u = following;
                    continue; // a multi-receive takes whole messages only
                }
                unexpected.remove(u);
                u.waiting = op; // completes when its last fragment arrives
                return 0;
            }
            unexpected.remove(u);
            if (deliverUnexpected(op, u)) {
                return 0;
            }
            // a multi-receive with room left takes the next one too (from the start if the
            // delivery changed the list: a peer failed by it takes its entries along)
            u = following == null || unexpected.contains(following) ? following
                    : exact ? unexpected.firstWithTag(tag) : unexpected.head();
        }
        (tagged ? tagRecvs : msgRecvs).add(op);
        return 0;
    }

    private boolean srcMatches(RxOp op, Peer sender) {
        return op.src == Fi.FI_ADDR_UNSPEC || sender.fiAddrIn(av) == op.src;
    }

    /** FI_PEEK (with FI_CLAIM / FI_DISCARD) and FI_CLAIM on the unexpected tagged messages. */
    private synchronized int peekOrClaim(TaggedMsg msg, long flags) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        if (rxCq == null) {
            return -Errno.ENOCQ;
        }
        Object ctx = msg.context();
        boolean peek = (flags & Fi.FI_PEEK) != 0;
        if (!peek) {
            // FI_CLAIM: the message set aside for this context
            for (Unexpected u = tagUnexpected.head(); u != null; u = u.next) {
                if (u.claimedBy == ctx) {
                    rc = rxCq.reserve();
                    if (rc != 0) {
                        return rc;
                    }
                    tagUnexpected.remove(u);
                    budgetFreed();
                    if ((flags & Fi.FI_DISCARD) != 0) {
                        dropUnexpected(u);
                        rxCq.complete(ctx, Fi.FI_RECV | Fi.FI_TAGGED, 0, null, 0, u.data, u.tag, Fi.FI_ADDR_NOTAVAIL);
                        return 0;
                    }
                    RxOp op = takeRx();
                    op.context = ctx;
                    op.tagged = true;
                    op.tag = u.tag;
                    op.src = Fi.FI_ADDR_UNSPEC;
                    op.complete = true;
                    for (int k = 0; k < msg.iovCount(); k++) {
                        ByteBuffer b = msg.iov(k);
                        op.part(b, b.position(), b.remaining());
                    }
                    op.buf = msg.iovCount() > 0 ? msg.iov(0) : null;
                    op.bufOffset = op.buf == null ? 0 : op.buf.position();
                    if (u.isWhole()) {
                        deliverUnexpected(op, u);
                    } else {
                        u.waiting = op;
                    }
                    return 0;
                }
            }
            return -Errno.ENOMSG;
        }
        rc = rxCq.reserve();
        if (rc != 0) {
            return rc;
        }
        long src = directed ? msg.addr() : Fi.FI_ADDR_UNSPEC;
        for (Unexpected u = tagUnexpected.head(); u != null; u = u.next) {
            if (u.claimedBy != null || u.waiting != null || ((u.tag ^ msg.tag()) & ~msg.ignore()) != 0
                    || !(src == Fi.FI_ADDR_UNSPEC || u.sender.fiAddrIn(av) == src)) {
                continue;
            }
            long f = Fi.FI_RECV | Fi.FI_TAGGED | (u.hasData ? Fi.FI_REMOTE_CQ_DATA : 0);
            if ((flags & Fi.FI_DISCARD) != 0) {
                tagUnexpected.remove(u);
                dropUnexpected(u);
            } else if ((flags & Fi.FI_CLAIM) != 0) {
                u.claimedBy = ctx;
            }
            rxCq.complete(ctx, f, u.length(), null, 0, u.data, u.tag, sourceOf(u.sender));
            return 0;
        }
        rxCq.completeError(ctx, Fi.FI_RECV | Fi.FI_TAGGED, 0, null, 0, 0, msg.tag(), 0, Errno.ENOMSG, 0, null, 0,
                Fi.FI_ADDR_NOTAVAIL);
        return 0;
    }

    private void dropUnexpected(Unexpected u) {
        unexpectedBytes -= u.footprint();
        budgetFreed();
        // a discarded CMA message is acknowledged too: its sender completes (nothing was read)
        if (u.cma || (u.wireFlags & ShmRecordDescriptor.ACK_MATCH) != 0) {
            sendAnswer(u.sender, ShmRecordDescriptor.ACK, u.token, 0, 0, 0);
        }
    }

    // =================================================================== data path: RMA and atomics

    @Override
    public int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return postRma(ShmRecordDescriptor.READ_REQ, buf, null, srcAddr, addr, key, false, 0, txOpFlags | completion(selectiveTx),
                context);
    }

    @Override
    public int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return postRma(ShmRecordDescriptor.WRITE, buf, null, destAddr, addr, key, false, 0, txOpFlags | completion(selectiveTx),
                context);
    }

    @Override
    public int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        return postRma(ShmRecordDescriptor.WRITE, buf, null, destAddr, addr, key, true, data, txOpFlags | completion(selectiveTx),
                context);
    }

    @Override
    public int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        return postRma(ShmRecordDescriptor.WRITE, buf, null, destAddr, addr, key, false, 0, Fi.FI_INJECT, null);
    }

    /** {@code fi_readmsg}: one RMA iov; flags {@code FI_COMPLETION}, {@code FI_FENCE} (ordered anyway). */
    @Override
    public int readMsg(RmaMsg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.READ_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return postRma(ShmRecordDescriptor.READ_REQ, null, msg, msg.addr(), 0, 0, false, 0, flags | completion(selectiveTx),
                msg.context());
    }

    /** {@code fi_writemsg}: one RMA iov; flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT}, levels (R11). */
    @Override
    public int writeMsg(RmaMsg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.WRITE_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return postRma(ShmRecordDescriptor.WRITE, null, msg, msg.addr(), 0, 0, (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(),
                flags | completion(selectiveTx), msg.context());
    }

    /** {@link #postRmaUnguarded}; a memory fault on a peer's mapping fails that peer, never throws (MappingFaults). */
    private int postRma(int kind, ByteBuffer buf, RmaMsg msg, long peerAddr, long addr, long key,
                        boolean withData, long data, long flags, Object context) {
        long started = opsStarted;
        try {
            return postRmaUnguarded(kind, buf, msg, peerAddr, addr, key, withData, data, flags, context);
        } catch (InternalError e) {
            return onPostFault(e, started);
        }
    }

    private synchronized int postRmaUnguarded(int kind, ByteBuffer buf, RmaMsg msg, long peerAddr, long addr, long key,
                                              boolean withData, long data, long flags, Object context) {
        if (buf == null && msg == null) {
            return -Errno.EINVAL; // a one-buffer call without its buffer: refused before anything else
        }
        boolean write = kind == ShmRecordDescriptor.WRITE;
        int rc = postCheck(Fi.FI_RMA | (write ? Fi.FI_WRITE : Fi.FI_READ));
        if (rc != 0) {
            return rc;
        }
        if (msg != null) {
            if (msg.rmaIovCount() != 1) {
                return -Errno.EINVAL;
            }
            addr = msg.rmaAddr(0);
            key = msg.rmaKey(0);
        }
        int iovs = msg == null ? 1 : msg.iovCount();
        long length = payloadLength(buf, msg, iovs);
        if (length < 0) {
            return (int) length;
        }
        if (!write) {
            rc = PostChecks.landing(buf, msg, iovs, 0, ShmProvider.MAX_MSG_SIZE); // the read lands there
            if (rc != 0) {
                return rc;
            }
        }
        if (msg != null && msg.rmaLen(0) != length) {
            return -Errno.EINVAL;
        }
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        rc = PostChecks.transmit(length, inject, INJECT_SIZE, ShmProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        Peer peer = peerFor(peerAddr);
        boolean reports = !(inject && msg == null);
        rc = admitTx(peer, reports);
        long cqFlags = Fi.FI_RMA | (write ? Fi.FI_WRITE : Fi.FI_READ);
        if (rc == PEER_FAILED) {
            return failLocally(true, context, cqFlags, peer.failed, write ? writeCntr : readCntr);
        }
        if (rc != 0) {
            return rc;
        }
        boolean commit = (flags & Fi.FI_COMMIT_COMPLETE) != 0;
        // One-sided: the target publishes the region; only when nothing is queued towards the
        // peer ahead of it (so that FI_FENCE and the order of operations hold).
        if (peer.queue.isEmpty() && peer.outstanding == 0) {
            Peer.Direct d = peer.direct(dir, key, addr, length, write ? Fi.FI_REMOTE_WRITE : Fi.FI_REMOTE_READ);
            if (d != null) {
                int at = (int) (addr - d.base);
                try {
                    MappingFaults.check(d.map); // truncated already: fail the peer, touch nothing
                    for (int i = 0; i < iovs; i++) {
                        ByteBuffer b = msg == null ? buf : msg.iov(i);
                        int n = b.remaining();
                        if (write) {
                            d.map.put(at, b, b.position(), n);
                        } else {
                            b.put(b.position(), d.map, at, n);
                        }
                        at += n;
                    }
                    if (write && commit) {
                        d.map.force((int) (addr - d.base), (int) length);
                    }
                    MappingFaults.check(d.map); // a fault of the copy comes out here, not in the caller's code
                } catch (InternalError | java.io.UncheckedIOException e) {
                    // the peer truncated the file under its mapping (SIGBUS) or the force failed
                    peer.forget(d);
                    if (e instanceof InternalError && MappingFaults.isFault(e)) {
                        failPeer(peer, Errno.EIO); // a fault on a peer's mapping fails that peer
                    }
                    return failLocally(reports, context, cqFlags, Errno.EIO, write ? writeCntr : readCntr);
                }
                VarHandle.fullFence();
                if (withData || peer.wantsEvents(dir)) {
                    notifyDirect(peer, write, withData, data);
                }
                return completedDirect(reports, flags, context, cqFlags, write ? writeCntr : readCntr);
            }
            if (peer.directError != 0) {
                return failLocally(reports, context, cqFlags, peer.directError, write ? writeCntr : readCntr);
            }
        }
        TxOp op = startOp(kind, peer, context, reports, flags, cqFlags, write ? Fi.FI_WRITE : Fi.FI_READ);
        op.awaitsAnswer = true;
        op.wireFlags = (withData ? ShmRecordDescriptor.HAS_DATA : 0) | (commit ? ShmRecordDescriptor.COMMIT : 0);
        op.a = key;
        op.b = addr;
        op.e = data;
        if (write) {
            attachPayload(op, buf, msg, iovs, inject);
        } else {
            for (int i = 0; i < iovs; i++) {
                ByteBuffer b = msg == null ? buf : msg.iov(i);
                op.dest(b, b.position(), b.remaining());
            }
            op.c = length;
        }
        pendingTx++;
        enqueue(peer, op);
        return 0;
    }

    /**
     * A one-sided access the published registration refuses (range, rights): an error
     * completion now, as the target's own check would answer; the target is untouched.
     */
    private int failLocally(boolean reports, Object context, long cqFlags, int err, UtilCounter counter) {
        if (reports) {
            txCq.completeError(context, cqFlags, 0, null, 0, 0, 0, 0, err, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
        }
        if (counter != null) {
            counter.incrementError();
        }
        return 0;
    }

    /** Tells the target of a one-sided access: remote counters and remote CQ data (fire and forget). */
    private void notifyDirect(Peer peer, boolean write, boolean withData, long data) {
        TxOp op = takeOp();
        op.kind = ShmRecordDescriptor.NOTIFY;
        op.peer = peer;
        op.wireFlags = (write ? ShmRecordDescriptor.REMOTE_WRITE : ShmRecordDescriptor.REMOTE_READ) | (withData ? ShmRecordDescriptor.HAS_DATA : 0);
        op.e = data;
        enqueue(peer, op);
    }

    @Override
    public int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        return postAtomic(op, operand, 0, null, destAddr, addr, key, txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                           int op, Object context) {
        if (result == null) {
            return -Errno.EINVAL;
        }
        return postAtomic(op, operand, 0, result, destAddr, addr, key, txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                             long addr, long key, Object context) {
        if (result == null) {
            return -Errno.EINVAL;
        }
        return postAtomic(Fi.FI_CSWAP, swap, compare, result, destAddr, addr, key, txOpFlags | completion(selectiveTx),
                context);
    }

    /** {@link #postAtomicUnguarded}; a memory fault on a peer's mapping fails that peer, never throws (MappingFaults). */
    private int postAtomic(int aop, long operand, long compare, ByteBuffer result, long peerAddr, long addr,
                           long key, long flags, Object context) {
        long started = opsStarted;
        try {
            return postAtomicUnguarded(aop, operand, compare, result, peerAddr, addr, key, flags, context);
        } catch (InternalError e) {
            return onPostFault(e, started);
        }
    }

    private synchronized int postAtomicUnguarded(int aop, long operand, long compare, ByteBuffer result, long peerAddr,
                                                 long addr, long key, long flags, Object context) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if ((caps & Fi.FI_ATOMIC) == 0) {
            return -Errno.ENOSYS;
        }
        if (!Atomics.supported(aop)) {
            return -Errno.EOPNOTSUPP; // an operation not offered (docs/ERRORS.md)
        }
        boolean fetch = result != null;
        if ((fetch && (PostChecks.writable(result) != 0 || result.remaining() < 8)) || (!fetch && (aop == Fi.FI_CSWAP
                || aop == Fi.FI_ATOMIC_READ))) {
            return -Errno.EINVAL;
        }
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        Peer peer = peerFor(peerAddr);
        rc = admitTx(peer, true);
        long cqFlags = Fi.FI_ATOMIC | (fetch ? Fi.FI_READ : Fi.FI_WRITE);
        if (rc == PEER_FAILED) {
            return failLocally(true, context, cqFlags, peer.failed, fetch ? readCntr : writeCntr);
        }
        if (rc != 0) {
            return rc;
        }
        long need = Atomics.access(aop, fetch);
        if (peer.queue.isEmpty() && peer.outstanding == 0) {
            Peer.Direct d = peer.direct(dir, key, addr, 8, need);
            if (d != null) {
                int at = (int) (addr - d.base);
                if (d.map.alignmentOffset(at, 8) == 0) {
                    long old;
                    try {
                        MappingFaults.check(d.map); // never an atomic on a truncated file (MappingFaults)
                        old = Atomics.apply(d.map, at, aop, operand, compare);
                        MappingFaults.check(d.map);
                    } catch (InternalError e) {
                        peer.forget(d); // the peer truncated the file under its mapping (SIGBUS)
                        if (MappingFaults.isFault(e)) {
                            failPeer(peer, Errno.EIO);
                        }
                        return failLocally(true, context, cqFlags, Errno.EIO, fetch ? readCntr : writeCntr);
                    }
                    if (fetch) {
                        // the result in host order (fi_atomic), without touching the caller's buffer order
                        result.putLong(result.position(),
                                result.order() == ByteOrder.nativeOrder() ? old : Long.reverseBytes(old));
                    }
                    if (peer.wantsEvents(dir)) {
                        notifyDirect(peer, aop != Fi.FI_ATOMIC_READ, false, 0);
                    }
                    return completedDirect(true, flags, context, cqFlags, fetch ? readCntr : writeCntr);
                }
            } else if (peer.directError != 0) {
                return failLocally(true, context, cqFlags, peer.directError, fetch ? readCntr : writeCntr);
            }
        }
        TxOp op = startOp(ShmRecordDescriptor.ATOMIC_REQ, peer, context, true, flags, cqFlags, fetch ? Fi.FI_READ : Fi.FI_WRITE);
        op.awaitsAnswer = true;
        op.wireFlags = fetch ? ShmRecordDescriptor.FETCH : 0;
        op.a = key;
        op.b = addr;
        op.c = operand;
        op.d = compare;
        op.e = aop;
        if (fetch) {
            op.dest(result, result.position(), 8);
        }
        pendingTx++;
        enqueue(peer, op);
        return 0;
    }

    // =================================================================== peers

    /**
     * The peer behind {@code fiAddr} in the bound AV, or null when it names nothing there.
     * Cached per fi_addr and validated by the identity of the AV's stored address, so a hit
     * allocates nothing.
     */
    private Peer peerFor(long fiAddr) {
        UtilAddressVector a = av;
        if (a == null) {
            return null;
        }
        byte[] addr = a.addressOf(fiAddr);
        if (addr == null) {
            return null;
        }
        int slot = (int) (fiAddr ^ (fiAddr >>> 32)) & 63;
        if (destKeys[slot] == fiAddr && destAddrs[slot] == addr) {
            return destPeers[slot];
        }
        String n = ShmNames.nameOf(addr);
        if (n == null) {
            return null;
        }
        Peer p = peerNamed(n);
        destKeys[slot] = fiAddr;
        destAddrs[slot] = addr;
        destPeers[slot] = p;
        return p;
    }

    private Peer peerNamed(String n) {
        for (Peer p : peers) {
            if (p.name.equals(n) || n.equals(p.alias())) {
                return p;
            }
        }
        if (!ShmNames.isEndpointName(n)) {
            // a chosen name: the same peer as the one its records come from (pid and seq)
            String canonical = ShmAlias.resolve(dir, n);
            if (canonical != null) {
                Peer p = peerNamed(canonical);
                p.alias(n);
                return p;
            }
        }
        // a name of another form is a valid address that reaches nobody (mapping fails)
        boolean ours = ShmNames.isEndpointName(n);
        Peer p = new Peer(n, ours ? ShmNames.pidOf(n) : -1, ours ? ShmRecordDescriptor.seqOf(n) : 0);
        addPeer(p);
        return p;
    }

    private Peer peerOf(long ppid, long pseq) {
        Peer last = lastPeer;
        if (last != null && last.pid == ppid && last.seq == pseq) {
            return last;
        }
        for (Peer p : peers) {
            if (p.pid == ppid && p.seq == pseq) {
                lastPeer = p;
                return p;
            }
        }
        if (ppid <= 0 || ppid > Integer.MAX_VALUE || (pseq >>> 32) == 0 || (pseq & 0xFFFFFFFFL) == 0
                || peers.length >= MAX_PEERS) {
            return null; // not a sender name, or more senders than any real use: dropped
        }
        Peer p = new Peer(ShmRecordDescriptor.name(ppid, pseq), ppid, pseq);
        addPeer(p);
        lastPeer = p;
        return p;
    }

    private void addPeer(Peer p) {
        Peer[] n = Arrays.copyOf(peers, peers.length + 1);
        n[peers.length] = p;
        peers = n;
    }

    /** Maps the peer's region on first use; false (and the peer failed) when it cannot be. */
    private boolean linked(Peer p) {
        if (p.link != null) {
            return true;
        }
        if (p.failed != 0) {
            return false;
        }
        try {
            p.link = RingLink.map(dir, p.name);
            return true;
        } catch (IOException | RuntimeException e) {
            p.failed = Errno.EHOSTUNREACH;
            return false;
        }
    }

    // =================================================================== transmit

    private void enqueue(Peer peer, TxOp op) {
        boolean idle = peer.queue.isEmpty();
        peer.queue.addLast(op);
        if (peer.queue.size() > MAX_QUEUED_PER_PEER) {
            failPeer(peer, Errno.ECONNRESET);
            return;
        }
        if (idle) {
            flush(peer);
        }
    }

    /** Publishes what fits of the peer's queue into its ring, in order. */
    private int flush(Peer peer) {
        int work = 0;
        if (peer.queue.isEmpty() && peer.outstanding == 0) {
            return 0;
        }
        if (!linked(peer)) {
            failPeer(peer, Errno.EHOSTUNREACH);
            return 1;
        }
        TxOp op;
        while ((op = peer.queue.peekFirst()) != null) {
            if (!push(peer, op)) {
                break;
            }
            peer.queue.pollFirst();
            work++;
            afterSent(op);
        }
        return work;
    }

    /**
     * Writes the op's remaining fragments into the peer's ring; true when all are in. A
     * fragment longer than the inline threshold goes into a bounce slot of the peer's region
     * while one is free (the record then carries only the header), inline otherwise.
     */
    private boolean push(Peer peer, TxOp op) {
        RingLink link = peer.link;
        if ((op.wireFlags & ShmRecordDescriptor.CMA) != 0) {
            return pushCma(peer, op);
        }
        do {
            long remaining = op.length - op.sent;
            int slot = remaining > fragment ? link.acquireSlot() : -1;
            int n;
            int at;
            if (slot >= 0) {
                n = (int) Math.min(link.slotSize(), remaining);
                at = link.claim(ShmRecordDescriptor.HEADER, slot + 1);
                if (at < 0) {
                    link.releaseSlot(slot); // ours: nobody else may have it meanwhile
                }
            } else {
                n = (int) Math.min(fragment, remaining);
                at = link.claim(ShmRecordDescriptor.HEADER + n);
            }
            if (at == RingLink.FULL) {
                return false;
            }
            if (at < 0) {
                failPeer(peer, Errno.EIO);
                return false;
            }
            ByteBuffer b = link.buffer();
            boolean first = op.sent == 0;
            boolean last = op.sent + n == op.length;
            b.putInt(at + ShmRecordDescriptor.KIND_FLAGS, op.kind | op.wireFlags | (first ? ShmRecordDescriptor.FIRST : 0) | (last ? ShmRecordDescriptor.LAST : 0)
                    | (slot >= 0 ? ShmRecordDescriptor.BOUNCE : 0));
            b.putInt(at + ShmRecordDescriptor.STATUS, slot >= 0 ? n : op.status);
            b.putLong(at + ShmRecordDescriptor.SENDER_PID, pid);
            b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, seq);
            b.putLong(at + ShmRecordDescriptor.TOKEN, op.token);
            b.putLong(at + ShmRecordDescriptor.A, op.a);
            b.putLong(at + ShmRecordDescriptor.B, op.b);
            b.putLong(at + ShmRecordDescriptor.C, op.c);
            b.putLong(at + ShmRecordDescriptor.D, op.kind == ShmRecordDescriptor.ATOMIC_REQ ? op.d : op.sent);
            b.putLong(at + ShmRecordDescriptor.E, op.e);
            if (slot >= 0) {
                op.copyPayload(op.sent, link.slotBuffer(), link.slotOffset(slot), n);
            } else if (n > 0) {
                op.copyPayload(op.sent, b, at + ShmRecordDescriptor.HEADER, n);
            }
            link.publish(at); // release: the slot's bytes are visible with the record
            op.sent += n;
        } while (op.sent < op.length);
        return true;
    }

    /**
     * A CMA message: one record whose payload is the (address, length) of each of our
     * buffers; the bytes stay where they are until the receiver has read them (ACK).
     */
    private boolean pushCma(Peer peer, TxOp op) {
        RingLink link = peer.link;
        int at = link.claim(ShmRecordDescriptor.HEADER + ShmRecordDescriptor.CMA_IOV * op.partCount);
        if (at == RingLink.FULL) {
            return false;
        }
        if (at < 0) {
            failPeer(peer, Errno.EIO);
            return false;
        }
        ByteBuffer b = link.buffer();
        b.putInt(at + ShmRecordDescriptor.KIND_FLAGS, op.kind | op.wireFlags | ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST);
        b.putInt(at + ShmRecordDescriptor.STATUS, op.partCount);
        b.putLong(at + ShmRecordDescriptor.SENDER_PID, pid);
        b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, seq);
        b.putLong(at + ShmRecordDescriptor.TOKEN, op.token);
        b.putLong(at + ShmRecordDescriptor.A, op.a);
        b.putLong(at + ShmRecordDescriptor.B, op.b);
        b.putLong(at + ShmRecordDescriptor.C, op.length);
        b.putLong(at + ShmRecordDescriptor.D, 0);
        b.putLong(at + ShmRecordDescriptor.E, 0);
        int iov = at + ShmRecordDescriptor.HEADER;
        for (int i = 0; i < op.partCount; i++) {
            b.putLong(iov, cma.address(op.parts[i]) + op.starts[i]);
            b.putLong(iov + 8, op.lengths[i]);
            iov += ShmRecordDescriptor.CMA_IOV;
        }
        link.publish(at);
        op.sent = op.length;
        cmaSent++;
        return true;
    }

    /** The op's last fragment is in the peer's ring. */
    private void afterSent(TxOp op) {
        if (op.awaitsAlive) {
            // awaitsAnswer: fails with its peer (failPeer) and at departure like any op awaiting it
            op.awaitsAnswer = true;
            op.recordEnd = op.peer.link.lastClaimEnd();
            op.peer.unconfirmed++;
            if (unconfirmed++ == 0 && !domain.engine().isManual()) {
                domain.engine().wakeup(); // the progress thread makes the check (MANUAL: the next read)
            }
            return;
        }
        if (op.awaitsAnswer) {
            op.counted = true;
            op.peer.outstanding++;
            return; // stays in the table until its answer
        }
        if (op.context != null || op.reports || op.counter != 0) {
            completeTx(op);
        } else {
            giveOp(op);
        }
    }

    private void completeTx(TxOp op) {
        if (op.reports) {
            if (op.complete) {
                txCq.complete(op.context, op.cqFlags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            } else {
                txCq.unreserve();
            }
        }
        count(counterOf(op));
        if (op.counter != 0) {
            pendingTx--;
        }
        giveOp(op);
    }

    private void failTx(TxOp op, int err) {
        if (op.reports) {
            txCq.completeError(op.context, op.cqFlags, 0, null, 0, 0, 0, 0, err, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
        }
        UtilCounter c = counterOf(op);
        if (c != null) {
            c.incrementError();
        }
        if (op.counter != 0) {
            pendingTx--;
        }
        giveOp(op);
    }

    private UtilCounter counterOf(TxOp op) {
        if (op.counter == Fi.FI_SEND) {
            return sendCntr;
        }
        if (op.counter == Fi.FI_READ) {
            return readCntr;
        }
        if (op.counter == Fi.FI_WRITE) {
            return writeCntr;
        }
        return null;
    }

    private static void count(UtilCounter c) {
        if (c != null) {
            c.increment();
        }
    }

    /** Queues an answer this side owes {@code peer} (ACK, READ_RESP without data, ATOMIC_RESP). */
    private void sendAnswer(Peer peer, int kind, long token, int status, long b, int flags) {
        if (peer == null || peer.failed != 0) {
            return;
        }
        TxOp op = takeOp();
        op.kind = kind;
        op.peer = peer;
        op.token = token;
        op.status = status;
        op.b = b;
        op.wireFlags = flags;
        enqueue(peer, op);
    }

    // =================================================================== progress

    /**
     * One pass of the domain's progress over this endpoint: drain the ring (bounded), push
     * what is queued towards peers, and check peers with pending operations for life.
     *
     * @return the work done
     */
    synchronized int progress() {
        if (!enabled || own == null || !isOpen()) {
            return 0;
        }
        int work = 0;
        if (!ringFailed) {
            held = false;
            while (work < DRAIN_BATCH) {
                int n = own.drain(this, 32);
                if (n < 0) {
                    failOwnRing();
                    break;
                }
                work += n;
                if (n == 0 || held) {
                    break; // empty, or a message waits at the head for the budget (push-back)
                }
            }
        }
        boolean watched = false;
        for (Peer p : peers) {
            if (!p.queue.isEmpty()) {
                work += flush(p);
            }
            watched |= watched(p);
        }
        if (unconfirmed > 0) {
            work += confirmPeers();
        }
        // The clock only when some peer has something the liveness check would fail, or on
        // every 64th pass (idle peers are looked at too, PeerLiveness): reading it costs
        // 40-100 ns here (as much as a whole 64 B message).
        if (liveness.clockWanted(watched)) {
            long now = System.nanoTime();
            boolean all = liveness.allDue(now);
            if (all || (watched && liveness.watchedDue(now))) {
                checkLiveness(now, all);
            }
        }
        return work;
    }

    /**
     * The domain's progress is about to sleep (it found no work): every mapped peer is looked
     * at when due, so that an idle peer's death is found while nobody progresses actively.
     */
    synchronized void beforeSleep() {
        if (!enabled || own == null || !isOpen()) {
            return;
        }
        long now = System.nanoTime();
        if (liveness.allDue(now)) {
            checkLiveness(now, true);
        }
    }

    /**
     * FI_TRANSMIT_COMPLETE operations whose records are in their peers' rings: one life check
     * per peer (made now, after every such publish) completes all of them, or fails the peer
     * (then those whose records it consumed before it went still succeed, {@link #failPeer}).
     */
    private int confirmPeers() {
        int work = 0;
        for (Peer p : peers) {
            if (p.unconfirmed == 0 || p.failed != 0 || p.link == null) {
                continue;
            }
            if (p.mappingTruncated()) {
                // touching it faults (issue 12 item 16): raise what an earlier access left
                // pending here, inside the step's guard, and fail the peer before more
                MappingFaults.deliverPending();
                failPeer(p, Errno.EIO);
                continue;
            }
            if (p.link.peerGone(p.pid == pid)) {
                peerDied(p);
                work++;
                continue;
            }
            for (TxOp t : ops) {
                if (t.kind != 0 && t.peer == p && t.awaitsAlive && t.awaitsAnswer) {
                    completeTx(t);
                    work++;
                }
            }
        }
        return work;
    }

    /**
     * The ring asks whether the producer of a stalled claim (its pid) still runs: a known peer
     * answers by its region's owner check (pid and start time), an unknown pid by whether a
     * process of that pid exists; an unknown sender is dead only when some peer is.
     */
    @Override
    public boolean isAlive(int sender) {
        if (sender == RingDescriptor.SENDER_UNKNOWN) {
            for (Peer p : peers) {
                if (p.failed == Errno.ECONNRESET) {
                    return false;
                }
            }
            return true;
        }
        if (sender == (int) pid) {
            return true;
        }
        for (Peer p : peers) {
            if (p.pid == sender && p.link != null) {
                return p.link.ownerAlive();
            }
        }
        return sender > 0 && ProcessHandle.of(sender).isPresent();
    }

    /**
     * The domain's progress is about to sleep: false when a record is waiting (then it must
     * not). A record held back for the budget does not count: a posted receive wakes the
     * progress ({@link #budgetFreed}).
     */
    boolean prepareToSleep() {
        RingLink r = own;
        return r == null || !enabled || ringFailed || held || r.prepareToSleep(); // a failed ring is not touched again
    }

    /** Whether a record waits in this endpoint's ring: progress has something to do (fi_trywait). */
    boolean hasRecord() {
        RingLink r = own;
        return r != null && enabled && !ringFailed && !held && r.hasRecord();
    }

    /** A receive may have freed unexpected budget: a progress holding a record back tries it again. */
    private void budgetFreed() {
        if (held) {
            held = false;
            domain.engine().wakeup();
        }
    }

    /**
     * Whether a new unexpected message of {@code cost} bytes ({@link Unexpected#footprint()})
     * fits the budget; the first one always does (so FI_PEEK sees something). When it does not,
     * the record at hand stays in the ring ({@link #holdRecord}): the ring fills and its
     * senders are pushed back (their queues fill, posts answer -EAGAIN); nothing is lost.
     */
    private boolean admitUnexpected(long cost) {
        if (unexpectedBytes + cost <= unexpectedLimit || (msgUnexpected.isEmpty() && tagUnexpected.isEmpty())) {
            return true;
        }
        holdRecord = true;
        held = true;
        return false;
    }

    /** The domain's progress runs again. */
    void awake() {
        RingLink r = own;
        if (r != null && !ringFailed) {
            r.awake();
        }
    }

    /** Whether {@link #checkLiveness} would look at {@code p}: it has operations or a message in progress. */
    private static boolean watched(Peer p) {
        return p.failed == 0 && p.link != null && (hasPending(p) || p.rxOp != null || p.rxUnexpected != null);
    }

    /**
     * Looks at the watched peers (or, with {@code all}, every peer whose region is mapped): a
     * peer whose endpoint closed or whose process died fails with {@code ECONNRESET}; a
     * watched one that made no progress for the progress timeout with {@code ETIMEDOUT}.
     */
    private void checkLiveness(long now, boolean all) {
        for (Peer p : peers) {
            if (p.failed != 0 || p.link == null) {
                continue;
            }
            boolean w = watched(p);
            if (!w) {
                PeerLiveness.unwatched(p);
                if (!all) {
                    continue;
                }
            }
            // on the sweep only (peerCheckMillis): the stat allocates, and accesses probe anyway
            if (all && p.mappingTruncated()) {
                // touching it faults (issue 12 item 16): raise what an earlier access left
                // pending here, inside the step's guard, and fail the peer before more
                MappingFaults.deliverPending();
                failPeer(p, Errno.EIO);
                continue;
            }
            if (p.link.peerGone(p.pid == pid)) {
                peerDied(p);
            } else if (w && liveness.stalled(p, now)) {
                failPeer(p, Errno.ETIMEDOUT);
            }
        }
    }

    /**
     * The peer's endpoint closed or its process died: what it published into our ring before
     * it went is taken first (records of a failed peer are dropped), then its files go and it
     * fails with ECONNRESET.
     */
    private void peerDied(Peer p) {
        drainPublishedBefore();
        if (p.pid != pid && !p.link.ownerAlive()) {
            own.releaseSlotsOf((int) p.pid); // bounce slots the dead process held in our region
        }
        // files first: whoever reads the error completions finds them gone already
        ShmJanitor.clean(dir);
        failPeer(p, Errno.ECONNRESET);
    }

    /**
     * Takes the records in our ring up to its tail as of now (called after a peer was seen gone:
     * everything it published before it went is below that tail), so that a peer that sent a
     * message and then closed — e.g. past the bound of one progress pass, or between the pass's
     * drain and its liveness check — has that message delivered, not dropped with the peer.
     * Bounded by the ring's size; stops at a record held back for the unexpected budget.
     */
    private void drainPublishedBefore() {
        if (ringFailed || own == null || held) {
            return;
        }
        long until = own.claimedTail();
        long head;
        while ((head = own.consumedHead()) - until < 0) {
            if (own.drain(this, 32) < 0) {
                failOwnRing();
                return;
            }
            if (held || own.consumedHead() == head) {
                return; // the budget, or a claim not yet published (its producer's stall timeout decides)
            }
        }
    }

    private static boolean hasPending(Peer p) {
        return !p.queue.isEmpty() || p.outstanding > 0 || p.unconfirmed > 0;
    }

    /**
     * The peer is gone (or unreachable): its queued operations and those awaiting its answer
     * complete with {@code err} — except FI_TRANSMIT_COMPLETE sends whose records its ring's
     * consumed head passed (delivered: they complete with success) —, a receive it was filling fails too, its partial unexpected
     * message is dropped, and its mappings are released. Other peers are not affected.
     */
    private void failPeer(Peer p, int err) {
        if (p.failed == 0) {
            p.failed = err;
            if (p.mappingTruncated()) {
                // what looked corrupt was a truncated file: the fault of the access that read
                // it is pending in this thread; raise and take it here, inside this call
                // (MappingFaults: Java raises it late, e.g. in the application's code)
                MappingFaults.deliverPending();
            }
        }
        TxOp op;
        while ((op = p.queue.pollFirst()) != null) {
            finishFailed(op, err);
        }
        // FI_TRANSMIT_COMPLETE sends the peer took before it went are delivered: they succeed
        // (fabtests' finalize: the peer receives and closes before our life check runs)
        boolean headReadable = p.unconfirmed > 0 && p.link != null && !p.link.truncated();
        long head = headReadable ? p.link.consumedHead() : 0;
        for (TxOp t : ops) {
            if (t.peer == p && t.awaitsAnswer && t.kind != 0) {
                if (t.awaitsAlive && headReadable && head - t.recordEnd >= 0) {
                    completeTx(t);
                    continue;
                }
                finishFailed(t, err);
            }
        }
        if (p.rxOp != null) {
            RxOp r = p.rxOp;
            p.rxOp = null;
            if (r.multi) {
                continue0(r);
            } else {
                failRecv(r, err, r.tagged);
            }
        }
        if (p.rxUnexpected != null) {
            Unexpected u = p.rxUnexpected;
            p.rxUnexpected = null;
            (u.tagged ? tagUnexpected : msgUnexpected).remove(u);
            unexpectedBytes -= u.footprint();
            if (u.waiting != null) {
                failRecv(u.waiting, err, u.tagged);
            }
        }
        // its CMA messages not yet matched can never be read now
        dropCmaOf(p, msgUnexpected);
        dropCmaOf(p, tagUnexpected);
        p.release();
    }

    private void dropCmaOf(Peer p, UnexpectedList list) {
        for (Unexpected u = list.head(), next; u != null; u = next) {
            next = u.next;
            if (u.cma && u.sender == p) {
                list.remove(u);
                unexpectedBytes -= u.footprint();
            }
        }
    }

    /**
     * Our own ring is corrupt (someone scribbled over our region; who cannot be told) or its
     * mapping faulted: nothing can reach this endpoint any more, so it is failed (issue 12
     * item 5): every operation waiting for an answer and every posted receive completes with
     * {@code EIO}, later receives are refused with {@code -EIO} ({@link #postRecv}), and a
     * bound EQ gets one error event ({@code EIO}, fid = this endpoint). Sends into peers' rings
     * still work. Progress never reads the ring again (no spin: the ring lets its consumer
     * sleep once it reported the failure). Idempotent.
     */
    void failOwnRing() {
        if (ringFailed) {
            return;
        }
        ringFailed = true;
        if (own != null && own.truncated()) {
            MappingFaults.deliverPending(); // as in failPeer: take the pending fault here
        }
        for (TxOp t : ops) {
            if (t.kind != 0 && t.awaitsAnswer && !t.awaitsAlive) {
                finishFailed(t, Errno.EIO);
            }
        }
        for (Peer p : peers) {
            p.rxOp = null; // the receive it was filling is failed with the lists below
            Unexpected u = p.rxUnexpected;
            if (u != null && u.waiting != null) {
                RxOp r = u.waiting;
                u.waiting = null;
                failRecv(r, Errno.EIO, r.tagged);
            }
        }
        failAll(msgRecvs);
        failAll(tagRecvs);
        if (eq != null) {
            eq.postError(this, context(), 0, Errno.EIO, 0, null, 0);
        }
    }

    /**
     * A memory fault surfaced in this domain's progress (issue 12 item 16; see
     * {@link MappingFaults} for why where it surfaced says nothing): every peer whose mapped
     * file was truncated is failed with {@code EIO} (its mappings are dropped: never touched
     * again), and this endpoint is failed ({@link #failOwnRing}) when its own region was.
     *
     * @return whether some mapping of this endpoint was found truncated
     */
    synchronized boolean onMappingFault() {
        boolean found = false;
        if (own != null && !ringFailed && own.truncated()) {
            failOwnRing();
            found = true;
        }
        for (Peer p : peers) {
            if (p.failed == 0 && p.mappingTruncated()) {
                failPeer(p, Errno.EIO);
                found = true;
            }
        }
        return found;
    }

    /**
     * A memory fault came out of a post (raised inside it by a {@link MappingFaults#check}, or
     * delivered there late): the truncated peers are failed ({@link #onMappingFault}), which
     * completes the op with {@code EIO} when it was started ({@code opsStarted} moved past
     * {@code started}); one not started yet is refused with {@code -EIO}.
     */
    private int onPostFault(InternalError e, long started) {
        if (!MappingFaults.isFault(e)) {
            throw e;
        }
        onMappingFault();
        return opsStarted != started ? 0 : -Errno.EIO;
    }

    /** {@link #failOwnRing} from outside the endpoint's monitor (the domain's fault handling). */
    synchronized void failOwnRingNow() {
        failOwnRing();
    }

    private void failAll(ArrayList<RxOp> list) {
        for (int i = list.size() - 1; i >= 0; i--) {
            RxOp op = list.remove(i);
            failRecv(op, Errno.EIO, op.tagged);
        }
    }

    /** A multi-receive that lost its filling peer stays posted for others. */
    private static void continue0(RxOp r) {
        r.placed = 0;
    }

    private void finishFailed(TxOp op, int err) {
        if (op.counter != 0 || op.reports) {
            failTx(op, err);
        } else {
            giveOp(op);
        }
    }

    // =================================================================== receive side

    /**
     * One record from our ring (RingLink.Handler): every field is validated before use; a
     * record that does not make sense fails its sender, never this endpoint.
     */
    /** Where the payload of the record being handled is: inline in the ring or in a bounce slot. */
    private ByteBuffer payloadBuf;
    private int payloadAt;

    @Override
    public boolean onRecord(ByteBuffer b, int at, int length, int aux) {
        if (length < ShmRecordDescriptor.HEADER) {
            return true;
        }
        holdRecord = false;
        int kf = b.getInt(at + ShmRecordDescriptor.KIND_FLAGS);
        long senderPid = b.getLong(at + ShmRecordDescriptor.SENDER_PID);
        Peer p = peerOf(senderPid, b.getLong(at + ShmRecordDescriptor.SENDER_SEQ));
        if (p != null) {
            p.activity++; // a sign of its progress (PeerLiveness.stalled)
        }
        int slot = -1;
        int n = length - ShmRecordDescriptor.HEADER;
        payloadBuf = b;
        payloadAt = at + ShmRecordDescriptor.HEADER;
        if ((kf & ShmRecordDescriptor.BOUNCE) != 0) {
            // every word from shared memory checked: the slot, its holder, the length
            int s = aux - 1;
            int len = b.getInt(at + ShmRecordDescriptor.STATUS);
            if (!own.slotHeldBy(s, (int) senderPid) || n != 0 || len < 0 || len > own.slotSize()) {
                if (p != null) {
                    failPeer(p, Errno.EPROTO);
                }
                return true;
            }
            slot = s;
            n = len;
            payloadBuf = own.slotBuffer();
            payloadAt = own.slotOffset(s);
        }
        try {
            if (p == null || p.failed != 0) {
                return true;
            }
            switch (ShmRecordDescriptor.kind(kf)) {
                case ShmRecordDescriptor.MSG -> onMessage(p, kf, b, at, n);
                case ShmRecordDescriptor.ACK -> onAck(p, b.getLong(at + ShmRecordDescriptor.TOKEN), b.getInt(at + ShmRecordDescriptor.STATUS));
                case ShmRecordDescriptor.WRITE -> onWrite(p, kf, b, at, n);
                case ShmRecordDescriptor.READ_REQ -> onReadRequest(p, b, at);
                case ShmRecordDescriptor.READ_RESP -> onReadResponse(p, kf, b, at, n);
                case ShmRecordDescriptor.ATOMIC_REQ -> onAtomicRequest(p, kf, b, at);
                case ShmRecordDescriptor.ATOMIC_RESP -> onAtomicResponse(p, b, at);
                case ShmRecordDescriptor.NOTIFY -> onNotify(p, kf, b.getLong(at + ShmRecordDescriptor.RMA_DATA));
                case ShmRecordDescriptor.PROBE -> onProbe(p, b, at);
                default -> failPeer(p, Errno.EPROTO);
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            // Whatever a peer's record makes go wrong is that peer's failure, never this
            // endpoint's or the progress thread's (bad input from shared memory, issue 4).
            failPeer(p, Errno.EPROTO);
        } finally {
            if (slot >= 0 && !holdRecord) {
                own.releaseSlot(slot); // a held record keeps its slot until it is taken
            }
        }
        return !holdRecord;
    }

    private void onMessage(Peer p, int kf, ByteBuffer b, int at, int n) {
        if ((kf & ShmRecordDescriptor.CMA) != 0) {
            onCmaMessage(p, kf, b, at, n);
            return;
        }
        long offset = b.getLong(at + ShmRecordDescriptor.FRAGMENT_OFFSET);
        if ((kf & ShmRecordDescriptor.FIRST) != 0) {
            if (p.rxOp != null || p.rxUnexpected != null) {
                failPeer(p, Errno.EPROTO); // a new message before the last one ended
                return;
            }
            long total = b.getLong(at + ShmRecordDescriptor.TOTAL_LENGTH);
            if (total < 0 || total > ShmProvider.MAX_MSG_SIZE || offset != 0) {
                failPeer(p, Errno.EPROTO);
                return;
            }
            boolean tagged = (kf & ShmRecordDescriptor.TAGGED) != 0;
            p.rxTotal = total;
            p.rxFlags = kf;
            p.rxToken = b.getLong(at + ShmRecordDescriptor.TOKEN);
            p.rxTag = b.getLong(at + ShmRecordDescriptor.MSG_TAG);
            p.rxData = b.getLong(at + ShmRecordDescriptor.MSG_DATA);
            p.rxDropped = 0;
            RxOp op = match(tagged, p.rxTag, p);
            if (op != null) {
                p.rxOp = op;
                op.placed = 0;
                if ((kf & ShmRecordDescriptor.ACK_MATCH) != 0) {
                    sendAnswer(p, ShmRecordDescriptor.ACK, p.rxToken, 0, 0, 0);
                }
            } else {
                if (!admitUnexpected(Unexpected.footprintOf(total))) {
                    return; // stays in the ring until receives take what is buffered
                }
                Unexpected u = new Unexpected(p, tagged, p.rxTag, (kf & ShmRecordDescriptor.HAS_DATA) != 0, p.rxData, (int) total,
                        p.rxToken, kf);
                unexpectedBytes += u.footprint();
                (tagged ? tagUnexpected : msgUnexpected).add(u);
                p.rxUnexpected = u;
            }
        } else if (p.rxOp == null && p.rxUnexpected == null) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        if (offset < 0 || n > p.rxTotal - offset) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        if (p.rxOp != null) {
            int placed = p.rxOp.place(offset, payloadBuf, payloadAt, n);
            p.rxOp.placed += placed;
            p.rxDropped += n - placed;
        } else {
            p.rxUnexpected.bytes.put((int) offset, payloadBuf, payloadAt, n);
            p.rxUnexpected.arrived += n;
        }
        if ((kf & ShmRecordDescriptor.LAST) == 0) {
            return;
        }
        if (p.rxOp == null && p.rxUnexpected.arrived != p.rxTotal) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        if ((p.rxFlags & ShmRecordDescriptor.ACK_ARRIVAL) != 0) {
            sendAnswer(p, ShmRecordDescriptor.ACK, p.rxToken, 0, 0, 0);
        }
        if (p.rxOp != null) {
            RxOp op = p.rxOp;
            p.rxOp = null;
            boolean tagged = (p.rxFlags & ShmRecordDescriptor.TAGGED) != 0;
            finishRecv(op, p, tagged, p.rxTag, (p.rxFlags & ShmRecordDescriptor.HAS_DATA) != 0, p.rxData, op.placed, p.rxDropped);
        } else {
            Unexpected u = p.rxUnexpected;
            p.rxUnexpected = null;
            if (u.waiting != null) {
                RxOp w = u.waiting;
                u.waiting = null;
                deliverUnexpected(w, u);
            }
        }
    }

    /** A peer's CMA probe: read its word from its process and answer 0 or the errno (ACK). */
    private void onProbe(Peer p, ByteBuffer b, int at) {
        long token = b.getLong(at + ShmRecordDescriptor.TOKEN);
        int status = cma == null ? Errno.ENOSYS
                : cma.probe((int) p.pid, b.getLong(at + ShmRecordDescriptor.PROBE_ADDRESS), b.getLong(at + ShmRecordDescriptor.PROBE_VALUE));
        sendAnswer(p, ShmRecordDescriptor.ACK, token, status, 0, 0);
    }

    /**
     * A CMA message: every word from shared memory is checked (one whole record, 1..4 iovecs
     * whose lengths add up to the total); then it is read into the matching receive at once,
     * or kept as a descriptor until a receive takes it. A malformed record fails its sender;
     * a read that fails (bad address, process gone) is that message's error.
     */
    private void onCmaMessage(Peer p, int kf, ByteBuffer b, int at, int n) {
        long token = b.getLong(at + ShmRecordDescriptor.TOKEN);
        int count = b.getInt(at + ShmRecordDescriptor.STATUS);
        long total = b.getLong(at + ShmRecordDescriptor.TOTAL_LENGTH);
        int whole = ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST;
        if ((kf & whole) != whole || p.rxOp != null || p.rxUnexpected != null || count < 1 || count > TxOp.MAX_PARTS
                || n != count * ShmRecordDescriptor.CMA_IOV || total < 0 || total > ShmProvider.MAX_MSG_SIZE) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        long sum = 0;
        for (int i = 0; i < count; i++) {
            long a = payloadBuf.getLong(payloadAt + i * ShmRecordDescriptor.CMA_IOV);
            long l = payloadBuf.getLong(payloadAt + i * ShmRecordDescriptor.CMA_IOV + 8);
            if (l < 0 || l > ShmProvider.MAX_MSG_SIZE) {
                failPeer(p, Errno.EPROTO);
                return;
            }
            cmaAddrs[i] = a;
            cmaLens[i] = l;
            sum += l;
        }
        if (sum != total) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        if (cma == null) {
            // we never offered CMA (no probe succeeded): refuse the message, the sender completes with the error
            sendAnswer(p, ShmRecordDescriptor.ACK, token, Errno.ENOSYS, 0, 0);
            return;
        }
        boolean tagged = (kf & ShmRecordDescriptor.TAGGED) != 0;
        boolean hasData = (kf & ShmRecordDescriptor.HAS_DATA) != 0;
        long tag = b.getLong(at + ShmRecordDescriptor.MSG_TAG);
        long data = b.getLong(at + ShmRecordDescriptor.MSG_DATA);
        RxOp op = match(tagged, tag, p);
        if (op != null) {
            placeCma(op, p, (int) p.pid, cmaAddrs, cmaLens, count, total, token, tagged, tag, hasData, data);
        } else {
            if (!admitUnexpected(Unexpected.CMA_FOOTPRINT)) {
                return; // stays in the ring until receives take what is buffered
            }
            Unexpected u = new Unexpected(p, tagged, tag, hasData, data, total, token, kf, (int) p.pid, cmaAddrs, cmaLens,
                    count);
            unexpectedBytes += u.footprint();
            (tagged ? tagUnexpected : msgUnexpected).add(u);
        }
    }

    /**
     * Reads a CMA message into {@code op} (from its multi-receive offset; what does not fit is
     * truncated, R12), ACKs the sender with the read's status, and completes the receive.
     *
     * @return true when the receive is done (as {@link #finishRecv})
     */
    private boolean placeCma(RxOp op, Peer sender, int rpid, long[] addrs, long[] lens, int count, long total, long token,
                             boolean tagged, long tag, boolean hasData, long data) {
        long want = Math.min(total, Math.max(0, op.room()));
        long skip = op.multiOffset;
        long from = 0;
        int status = 0;
        for (int i = 0; i < op.partCount && from < want; i++) {
            int len = op.lengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int take = (int) Math.min(len - skip, want - from);
            status = cma.read(rpid, addrs, lens, count, from, op.parts[i], op.starts[i] + (int) skip, take);
            if (status != 0) {
                break;
            }
            from += take;
            skip = 0;
        }
        sendAnswer(sender, ShmRecordDescriptor.ACK, token, status, 0, 0);
        if (status != 0) {
            return failCmaRecv(op, sender, tagged, tag, hasData, data, status);
        }
        cmaRead++;
        return finishRecv(op, sender, tagged, tag, hasData, data, want, total - want);
    }

    /** A CMA message whose read failed: the receive completes with that errno (a multi-receive stays posted). */
    private boolean failCmaRecv(RxOp op, Peer sender, boolean tagged, long tag, boolean hasData, long data, int err) {
        long flags = Fi.FI_RECV | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG) | (hasData ? Fi.FI_REMOTE_CQ_DATA : 0);
        long src = sourceOf(sender);
        if (recvCntr != null) {
            recvCntr.incrementError();
        }
        if (op.multi) {
            if (rxCq.reserve() == 0) {
                rxCq.completeError(op.context, flags, 0, op.buf, op.bufOffset + op.multiOffset, data, tag, 0, err, 0,
                        null, 0, src);
                return false; // the buffer stays posted
            }
            // no room for an entry of its own (R6): the error releases the buffer
            msgRecvs.remove(op);
            flags |= Fi.FI_MULTI_RECV;
        }
        rxCq.completeError(op.context, flags, 0, op.buf, op.bufOffset + op.multiOffset, data, tag, 0, err, 0, null, 0, src);
        giveRx(op);
        return true;
    }

    /** The first posted receive that takes a message (ordered; a multi-receive being filled is skipped). */
    private RxOp match(boolean tagged, long tag, Peer sender) {
        ArrayList<RxOp> list = tagged ? tagRecvs : msgRecvs;
        for (int i = 0, n = list.size(); i < n; i++) {
            RxOp op = list.get(i);
            if (op.matches(tagged, tag) && srcMatches(op, sender)) {
                if (op.multi) {
                    if (isFilling(op)) {
                        continue;
                    }
                    return op; // stays posted until released
                }
                list.remove(i);
                return op;
            }
        }
        return null;
    }

    /**
     * A receive takes a whole buffered message.
     *
     * @return true when the receive is done (a multi-receive: released)
     */
    private boolean deliverUnexpected(RxOp op, Unexpected u) {
        if (u.cma) {
            unexpectedBytes -= u.footprint();
            Peer s = u.sender;
            if (s.failed != 0 || (s.link != null && s.link.peerGone(s.pid == pid))) {
                // the sender is gone: its memory with it (and its pid may be another process's now)
                return failCmaRecv(op, s, u.tagged, u.tag, u.hasData, u.data, Errno.ECONNRESET);
            }
            return placeCma(op, s, u.cmaPid, u.cmaAddrs, u.cmaLens, u.cmaCount, u.length(), u.token, u.tagged, u.tag,
                    u.hasData, u.data);
        }
        int total = u.bytes.capacity();
        unexpectedBytes -= u.footprint();
        int placed = op.place(0, u.bytes, 0, total);
        if ((u.wireFlags & ShmRecordDescriptor.ACK_MATCH) != 0) {
            sendAnswer(u.sender, ShmRecordDescriptor.ACK, u.token, 0, 0, 0);
        }
        return finishRecv(op, u.sender, u.tagged, u.tag, u.hasData, u.data, placed, total - placed);
    }

    private long sourceOf(Peer sender) {
        return source ? sender.fiAddrIn(av) : Fi.FI_ADDR_NOTAVAIL;
    }

    /** Completes a receive (or one message of a multi-receive); true when the receive is given back. */
    private boolean finishRecv(RxOp op, Peer sender, boolean tagged, long tag, boolean hasData, long data, long len,
                               long dropped) {
        long flags = Fi.FI_RECV | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG) | (hasData ? Fi.FI_REMOTE_CQ_DATA : 0);
        long src = sourceOf(sender);
        ByteBuffer buf = op.buf;
        int bufOffset = op.bufOffset + op.multiOffset;
        UtilCompletionQueue cq = rxCq;
        boolean release = false;
        boolean reservedUsed = true;
        if (op.multi) {
            op.multiOffset += (int) len;
            boolean entry = op.complete || dropped > 0 || (sourceErr && source && src == Fi.FI_ADDR_NOTAVAIL);
            // R6: a message landing in the buffer writes its entry into room of its own; when
            // the CQ has none, this message releases the buffer early (its entry takes the room
            // the buffer reserved at posting) and further messages wait for the next receive
            release = op.room() < minMultiRecv || (entry && cq.reserve() != 0);
            if (release) {
                flags |= Fi.FI_MULTI_RECV;
                msgRecvs.remove(op);
            }
            reservedUsed = release || entry;
        }
        if (dropped > 0) {
            writeRx(cq, reservedUsed, true, op.context, flags, len, buf, bufOffset, data, tag, dropped, Errno.ETRUNC, null,
                    src);
            if (recvCntr != null) {
                recvCntr.incrementError();
            }
        } else if (sourceErr && source && src == Fi.FI_ADDR_NOTAVAIL) {
            byte[] raw = sender.address.clone();
            writeRx(cq, reservedUsed, true, op.context, flags, len, buf, bufOffset, data, tag, 0, Errno.EADDRNOTAVAIL, raw,
                    src);
            count(recvCntr);
        } else {
            if (op.complete || (op.multi && release)) {
                writeRx(cq, reservedUsed, false, op.context, flags, len, buf, bufOffset, data, tag, 0, 0, null, src);
            } else if (reservedUsed) {
                cq.unreserve();
            }
            count(recvCntr);
        }
        if (!op.multi || release) {
            giveRx(op);
            return true;
        }
        return false;
    }

    private static void writeRx(UtilCompletionQueue cq, boolean reserved, boolean error, Object ctx, long flags, long len,
                                ByteBuffer buf, int bufOffset, long data, long tag, long olen, int err, byte[] errData,
                                long src) {
        if (reserved) {
            if (error) {
                cq.completeError(ctx, flags, len, buf, bufOffset, data, tag, olen, err, 0, errData,
                        errData == null ? 0 : errData.length, src);
            } else {
                cq.complete(ctx, flags, len, buf, bufOffset, data, tag, src);
            }
        } else if (error) {
            cq.completeUnsolicitedError(ctx, flags, len, buf, bufOffset, data, tag, olen, err, 0, errData,
                    errData == null ? 0 : errData.length, src);
        } else {
            cq.completeUnsolicited(ctx, flags, len, buf, bufOffset, data, tag, src);
        }
    }

    private void failRecv(RxOp op, int err, boolean tagged) {
        rxCq.completeError(op.context, Fi.FI_RECV | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG)
                        | (op.multi ? Fi.FI_MULTI_RECV : 0), 0, op.buf, op.bufOffset, 0, 0, 0, err, 0, null, 0,
                Fi.FI_ADDR_NOTAVAIL);
        if (recvCntr != null) {
            recvCntr.incrementError();
        }
        giveRx(op);
    }

    private TxOp answered(Peer p, long token) {
        int index = (int) (token & 0xFFFFFFFFL);
        if (index < 0 || index >= ops.length) {
            failPeer(p, Errno.EPROTO);
            return null;
        }
        TxOp op = ops[index];
        if (op.token != token || !op.awaitsAnswer || op.peer != p) {
            return null; // a late answer to an operation failed meanwhile
        }
        op.awaitsAnswer = false;
        return op;
    }

    private void onAck(Peer p, long token, int status) {
        TxOp op = answered(p, token);
        if (op == null) {
            return;
        }
        if (op.kind == ShmRecordDescriptor.PROBE) {
            p.cma = status == 0 ? Peer.CMA_ON : Peer.CMA_OFF;
            p.cmaReason = status == 0 ? null : "the peer could not read our probe word: " + Errno.strerror(status)
                    + " (errno " + status + ")";
            giveOp(op);
            return;
        }
        if (status != 0) {
            failTx(op, status > 0 ? status : Errno.EIO);
        } else {
            completeTx(op);
        }
    }

    private void onWrite(Peer p, int kf, ByteBuffer b, int at, int n) {
        long total = b.getLong(at + ShmRecordDescriptor.TOTAL_LENGTH);
        long offset = b.getLong(at + ShmRecordDescriptor.FRAGMENT_OFFSET);
        if ((kf & ShmRecordDescriptor.FIRST) != 0) {
            long key = b.getLong(at + ShmRecordDescriptor.RMA_KEY);
            long addr = b.getLong(at + ShmRecordDescriptor.RMA_ADDR);
            p.wRegion = null;
            p.wStatus = 0;
            if (total < 0 || total > ShmProvider.MAX_MSG_SIZE || offset != 0) {
                failPeer(p, Errno.EPROTO);
                return;
            }
            if ((caps & Fi.FI_REMOTE_WRITE) == 0 && (caps & (Fi.FI_RMA | Fi.FI_ATOMIC)) == 0) {
                p.wStatus = Errno.EACCES;
            } else {
                long idx = domain.memoryRegistry().targetIndex(key, addr, total, Fi.FI_REMOTE_WRITE);
                if (idx < 0) {
                    p.wStatus = (int) -idx;
                } else {
                    p.wRegion = domain.memoryRegistry().lookup(key);
                    p.wIndex = (int) idx;
                    if (p.wRegion == null) {
                        p.wStatus = Errno.ENOKEY;
                    }
                }
            }
            p.rxTotal = total;
        }
        if (offset < 0 || n > p.rxTotal - offset) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        if (p.wStatus == 0 && p.wRegion != null && n > 0) {
            p.wRegion.buffer().put(p.wIndex + (int) offset, payloadBuf, payloadAt, n);
        }
        if ((kf & ShmRecordDescriptor.LAST) == 0) {
            return;
        }
        int status = p.wStatus;
        UtilMemoryRegion r = p.wRegion;
        p.wRegion = null;
        if (status == 0 && r != null) {
            if ((kf & ShmRecordDescriptor.COMMIT) != 0 && r.buffer() instanceof MappedByteBuffer m && p.rxTotal > 0) {
                m.force(p.wIndex, (int) p.rxTotal);
            }
            count(remoteWriteCntr);
            if ((kf & ShmRecordDescriptor.HAS_DATA) != 0 && rxCq != null) {
                rxCq.completeUnsolicited(null, Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA, 0, null, 0,
                        b.getLong(at + ShmRecordDescriptor.RMA_DATA), 0, sourceOf(p));
            }
        }
        sendAnswer(p, ShmRecordDescriptor.ACK, b.getLong(at + ShmRecordDescriptor.TOKEN), status, 0, 0);
    }

    private void onReadRequest(Peer p, ByteBuffer b, int at) {
        long key = b.getLong(at + ShmRecordDescriptor.RMA_KEY);
        long addr = b.getLong(at + ShmRecordDescriptor.RMA_ADDR);
        long len = b.getLong(at + ShmRecordDescriptor.TOTAL_LENGTH);
        long token = b.getLong(at + ShmRecordDescriptor.TOKEN);
        long idx = len < 0 || len > ShmProvider.MAX_MSG_SIZE ? -Errno.EINVAL
                : domain.memoryRegistry().targetIndex(key, addr, len, Fi.FI_REMOTE_READ);
        UtilMemoryRegion r = idx < 0 ? null : domain.memoryRegistry().lookup(key);
        TxOp op = takeOp();
        op.kind = ShmRecordDescriptor.READ_RESP;
        op.peer = p;
        op.token = token;
        if (r == null) {
            op.status = idx < 0 ? (int) -idx : Errno.ENOKEY;
            op.a = 0;
        } else {
            op.part(r.buffer(), (int) idx, (int) len);
            op.a = len;
            count(remoteReadCntr);
        }
        enqueue(p, op);
    }

    private void onReadResponse(Peer p, int kf, ByteBuffer b, int at, int n) {
        long token = b.getLong(at + ShmRecordDescriptor.TOKEN);
        int index = (int) (token & 0xFFFFFFFFL);
        if (index < 0 || index >= ops.length) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        TxOp op = ops[index];
        if (op.token != token || !op.awaitsAnswer || op.peer != p || op.kind != ShmRecordDescriptor.READ_REQ) {
            return;
        }
        int status = (kf & ShmRecordDescriptor.BOUNCE) != 0 ? 0 : b.getInt(at + ShmRecordDescriptor.STATUS);
        if (status != 0) {
            op.awaitsAnswer = false;
            failTx(op, status > 0 ? status : Errno.EIO);
            return;
        }
        long offset = b.getLong(at + ShmRecordDescriptor.FRAGMENT_OFFSET);
        if (offset < 0 || n > op.destLength() - offset) {
            failPeer(p, Errno.EPROTO);
            return;
        }
        op.placeAnswer(offset, payloadBuf, payloadAt, n);
        op.received += n;
        if ((kf & ShmRecordDescriptor.LAST) != 0) {
            op.awaitsAnswer = false;
            completeTx(op);
        }
    }

    private void onAtomicRequest(Peer p, int kf, ByteBuffer b, int at) {
        long key = b.getLong(at + ShmRecordDescriptor.RMA_KEY);
        long addr = b.getLong(at + ShmRecordDescriptor.RMA_ADDR);
        int aop = (int) b.getLong(at + ShmRecordDescriptor.ATOMIC_OP);
        boolean fetch = (kf & ShmRecordDescriptor.FETCH) != 0;
        long token = b.getLong(at + ShmRecordDescriptor.TOKEN);
        if (!Atomics.supported(aop)) {
            sendAnswer(p, ShmRecordDescriptor.ATOMIC_RESP, token, Errno.EOPNOTSUPP, 0, 0);
            return;
        }
        long need = Atomics.access(aop, fetch);
        long idx = domain.memoryRegistry().targetIndex(key, addr, 8, need);
        UtilMemoryRegion r = idx < 0 ? null : domain.memoryRegistry().lookup(key);
        if (r == null) {
            sendAnswer(p, ShmRecordDescriptor.ATOMIC_RESP, token, idx < 0 ? (int) -idx : Errno.ENOKEY, 0, 0);
            return;
        }
        long old = Atomics.apply(r.buffer(), (int) idx, aop, b.getLong(at + ShmRecordDescriptor.ATOMIC_OPERAND), b.getLong(at + ShmRecordDescriptor.ATOMIC_COMPARE));
        if ((need & Fi.FI_REMOTE_WRITE) != 0) {
            count(remoteWriteCntr);
        } else {
            count(remoteReadCntr);
        }
        sendAnswer(p, ShmRecordDescriptor.ATOMIC_RESP, token, 0, old, 0);
    }

    private void onAtomicResponse(Peer p, ByteBuffer b, int at) {
        TxOp op = answered(p, b.getLong(at + ShmRecordDescriptor.TOKEN));
        if (op == null) {
            return;
        }
        int status = b.getInt(at + ShmRecordDescriptor.STATUS);
        if (status != 0) {
            failTx(op, status > 0 ? status : Errno.EIO);
            return;
        }
        if (op.dstCount > 0) {
            ByteBuffer r = op.dst[0];
            int i = op.dstStarts[0];
            long v = b.getLong(at + ShmRecordDescriptor.ATOMIC_OLD);
            if (r.order() == ByteOrder.nativeOrder()) {
                r.putLong(i, v);
            } else {
                r.putLong(i, Long.reverseBytes(v));
            }
        }
        completeTx(op);
    }

    private void onNotify(Peer p, int kf, long data) {
        if ((kf & ShmRecordDescriptor.REMOTE_WRITE) != 0) {
            count(remoteWriteCntr);
        }
        if ((kf & ShmRecordDescriptor.REMOTE_READ) != 0) {
            count(remoteReadCntr);
        }
        if ((kf & ShmRecordDescriptor.HAS_DATA) != 0 && rxCq != null) {
            rxCq.completeUnsolicited(null, Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA, 0, null, 0, data, 0,
                    sourceOf(p));
        }
    }

    // =================================================================== pools

    private TxOp takeOp() {
        if (freeOpCount == 0) {
            int n = ops.length;
            int grown = Math.max(64, n * 2);
            ops = Arrays.copyOf(ops, grown);
            freeOps = Arrays.copyOf(freeOps, grown);
            for (int i = grown - 1; i >= n; i--) {
                ops[i] = new TxOp(i);
                freeOps[freeOpCount++] = i;
            }
        }
        TxOp op = ops[freeOps[--freeOpCount]];
        op.token = ((long) (op.generation & 0x7FFFFFFF) << 32) | op.index;
        return op;
    }

    private void giveOp(TxOp op) {
        if (op.counted) {
            op.peer.outstanding--;
        }
        if (op.awaitsAlive && op.awaitsAnswer) {
            op.peer.unconfirmed--;
            unconfirmed--;
        }
        op.reset();
        freeOps[freeOpCount++] = op.index;
    }

    private RxOp takeRx() {
        if (rxFreeCount > 0) {
            RxOp op = rxFree[--rxFreeCount];
            rxFree[rxFreeCount] = null;
            return op;
        }
        RxOp op = new RxOp();
        op.reset();
        return op;
    }

    private void giveRx(RxOp op) {
        op.reset();
        if (rxFreeCount < rxFree.length) {
            rxFree[rxFreeCount++] = op;
        }
    }

    // =================================================================== life cycle

    /** Closing discards pending operations without completions (fi_endpoint(3)) and returns their CQ room. */
    @Override
    protected synchronized void onClose() {
        domain.removeEndpoint(this);
        enabled = false;
        for (TxOp op : ops) {
            if (op.kind != 0 && op.reports && txCq != null) {
                txCq.unreserve();
            }
        }
        for (RxOp op : msgRecvs) {
            rxCq.unreserve();
        }
        for (RxOp op : tagRecvs) {
            rxCq.unreserve();
        }
        msgRecvs.clear();
        tagRecvs.clear();
        releaseSharedMemory();
        bindings.releaseAll(this);
    }

    /** Lets go of the peers' mappings, this endpoint's own region and its alias (close and departure). */
    private void releaseSharedMemory() {
        for (Peer p : peers) {
            p.release();
        }
        if (own != null) {
            own.close();
            own = null;
        }
        if (alias != null) {
            ShmAlias.release(dir, alias, name);
        }
    }

    /**
     * R15: pending operations complete with ECANCELED; the region goes away. The same with EIO
     * when the domain's progress failed ({@link #departureError()}).
     */
    @Override
    protected synchronized void onDeparture() {
        int err = departureError();
        domain.removeEndpoint(this);
        for (Peer p : peers) {
            TxOp op;
            while ((op = p.queue.pollFirst()) != null) {
                finishFailed(op, err);
            }
        }
        for (TxOp t : ops) {
            if (t.kind != 0 && t.awaitsAnswer) {
                finishFailed(t, err);
            }
        }
        RxOp r;
        while (!msgRecvs.isEmpty()) {
            r = msgRecvs.remove(msgRecvs.size() - 1);
            failRecv(r, err, false);
        }
        while (!tagRecvs.isEmpty()) {
            r = tagRecvs.remove(tagRecvs.size() - 1);
            failRecv(r, err, true);
        }
        releaseSharedMemory();
        enabled = false;
    }

    @Override
    protected String describe() {
        return "shm RDM endpoint" + (name == null ? "" : " " + ShmNames.SCHEME + name)
                + (alias == null ? "" : " (" + ShmNames.SCHEME + alias + ")");
    }

    /** Descriptors created so far (tests prove the pools stop growing in steady state). */
    synchronized int descriptorsCreated() {
        return ops.length;
    }

    /** Messages buffered as unexpected (tests). */
    synchronized int unexpectedCount() {
        return msgUnexpected.size() + tagUnexpected.size();
    }

    /** The endpoint's region name, or null before enable (tests). */
    synchronized String regionName() {
        return name;
    }
}
