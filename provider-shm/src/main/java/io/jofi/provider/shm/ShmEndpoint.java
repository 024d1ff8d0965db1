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
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The shm provider's RDM endpoint as the application sees it: the public {@link Endpoint}
 * calls ({@code fi_endpoint(3)}, {@code fi_msg(3)}, {@code fi_tagged(3)}, {@code fi_rma(3)},
 * {@code fi_atomic(3)}), bind, enable, close, the options, and the domain's progress hooks,
 * each handed to the part of the endpoint that does it.
 *
 * <p><b>Parts.</b> {@link ShmTransmitter} (posting messages, the operation table, the peers'
 * queues into their rings, transmit completions); {@link ShmRingReader} (the own ring: each
 * record decoded once into a {@link ShmRecord} and dispatched); {@link ShmReceiver} (posted
 * receives, the unexpected queue and budget, matching, fragment placement, PEEK/CLAIM, cancel)
 * with {@link ShmReceiveCompletions} (R10/R12 receive completions) and
 * {@link ShmCmaReceiver} (messages read from the sender's memory); {@link ShmRma} and
 * {@link ShmAtomicOps} (initiator and target); {@link ShmPeers} (the peer table, liveness,
 * failing a peer); {@link ShmFaults} (memory faults, a corrupt own ring). The parts share this
 * object's state (bindings, identity, own ring) as libfabric's {@code prov/shm} files share
 * {@code struct smr_ep}.
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
 * found by the progress step ({@link PeerLiveness}: checked every {@value PeerLiveness#WATCHED_MILLIS} ms
 * while operations towards it are pending, every {@code peerCheckMillis} otherwise): they
 * complete with {@code ECONNRESET} errors, so do later operations towards it, its mappings are
 * dropped and the files of dead processes removed; other peers are unaffected. A live peer
 * that makes no progress for {@code progressTimeoutMillis} fails with {@code ETIMEDOUT}.
 *
 * <p><b>Threads.</b> One lock (this endpoint's monitor) guards the state of every part; the
 * parts never lock: this facade takes it per application call, the progress step per pass. Nothing is
 * allocated per operation in steady state (descriptors are pooled); the first contact with a
 * peer, unexpected messages and growth of the pools allocate.
 */
final class ShmEndpoint extends AbstractFid implements Endpoint {
    /** Bytes an inject copies (fi_inject). */
    static final int INJECT_SIZE = 4096;

    // ---- configuration (from the info and the provider's settings)
    final ShmDomain domain;
    private final Info info;
    final long caps;
    final int queueSize;
    /** The largest payload of one ring record (the inline threshold, fitted to the ring at enable). */
    int fragment;
    final Path dir;
    private final long txOpFlags;
    private final long rxOpFlags;

    // ---- bindings (control path, under this): fi_ep_bind's rules, retains and progress attach
    // (util); the fields below are the data path's copies, read by the parts
    private final EndpointBindings bindings;
    UtilCompletionQueue txCq;
    UtilCompletionQueue rxCq;
    UtilCounter sendCntr;
    UtilCounter recvCntr;
    UtilCounter readCntr;
    UtilCounter writeCntr;
    UtilCounter remoteReadCntr;
    UtilCounter remoteWriteCntr;
    UtilEventQueue eq;
    UtilAddressVector av;
    private boolean selectiveTx;
    private boolean selectiveRx;
    volatile boolean enabled;

    // ---- identity and the own ring
    private String name;
    /** The name the application chose (FI_SOURCE srcAddr), a link to {@link #name}; null without. */
    private String alias;
    /** This endpoint's sender id in records (with {@link #pid}). */
    long seq;
    final long pid = ProcessHandle.current().pid();
    /** This endpoint's region (its ring), from enable until close. */
    RingLink own;
    /** The own ring is corrupt or faulted: never read again ({@link ShmFaults#failOwnRing}). */
    boolean ringFailed;

    // ---- the parts
    final ShmPeers peers;
    final ShmTransmitter transmitter;
    final ShmReceiveCompletions rxCompletions;
    final ShmReceiver receiver;
    final ShmCmaReceiver cmaReceiver;
    final ShmRma rma;
    final ShmAtomicOps atomics;
    final ShmRingReader reader;
    final ShmFaults faults;

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
        this.dir = p.directory();
        this.txOpFlags = info.txAttr().opFlags();
        this.rxOpFlags = info.rxAttr().opFlags();
        int cmaThreshold = p.cmaThreshold();
        CrossMemoryAttach cma = cmaThreshold > 0 && CrossMemoryAttach.available() ? new CrossMemoryAttach() : null;
        this.bindings = new EndpointBindings(domain.engine(), EndpointBindings.ALL_COUNTER_ROLES);
        this.peers = new ShmPeers(this, dir, new PeerLiveness(p.peerCheckMillis(), p.progressTimeoutMillis()));
        this.transmitter = new ShmTransmitter(this, cma, cmaThreshold, p.cmaProbeFault());
        this.rxCompletions = new ShmReceiveCompletions(this, (caps & Fi.FI_SOURCE) != 0, (caps & Fi.FI_SOURCE_ERR) != 0);
        this.receiver = new ShmReceiver(this, rxCompletions, queueSize, p.unexpectedBytes(),
                (caps & Fi.FI_DIRECTED_RECV) != 0);
        this.cmaReceiver = new ShmCmaReceiver(this, rxCompletions, cma);
        this.rma = new ShmRma(this);
        this.atomics = new ShmAtomicOps(this);
        this.reader = new ShmRingReader(this);
        this.faults = new ShmFaults(this);
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
            own = RingLink.create(dir, n, p.ringSize(), p.bounceSlotSize(), p.bounceSlotCount(), peers,
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
        if (transmitter.cma != null) {
            own.advertiseCma(); // peers may probe us and send CMA messages
        }
        // every peer's ring has the same size as ours (one provider setting); a smaller one
        // would only make claims fail with -EMSGSIZE, which ShmTransmitter.push treats as a broken peer
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
            return receiver.minMultiRecv;
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
            receiver.minMultiRecv = value;
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
        return receiver.cancel(context) ? 0 : -Errno.ENOENT;
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

    /** {@link ShmTransmitter#postMsg} under the lock; a memory fault on a peer's mapping fails that peer, never throws (MappingFaults). */
    private int postMsg(ByteBuffer buf, Msg msg, long destAddr, boolean tagged, long tag, boolean withData,
                        long data, long flags, Object context) {
        long started = transmitter.opsStarted;
        try {
            synchronized (this) {
                return transmitter.postMsg(buf, msg, destAddr, tagged, tag, withData, data, flags, context);
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
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
            synchronized (this) {
                return receiver.peekOrClaim(msg, flags | completion(selectiveRx));
            }
        }
        return postRecv(null, msg, msg.addr(), true, msg.tag(), msg.ignore(), flags | completion(selectiveRx),
                msg.context());
    }

    private synchronized int postRecv(ByteBuffer buf, Msg msg, long srcAddr, boolean tagged, long tag, long ignore,
                                      long flags, Object context) {
        return receiver.post(buf, msg, srcAddr, tagged, tag, ignore, flags, context);
    }

    // =================================================================== data path: RMA and atomics

    @Override
    public int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return postRma(ShmRecordDescriptor.READ_REQ, buf, null, srcAddr, addr, key, false, 0,
                txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return postRma(ShmRecordDescriptor.WRITE, buf, null, destAddr, addr, key, false, 0,
                txOpFlags | completion(selectiveTx), context);
    }

    @Override
    public int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        return postRma(ShmRecordDescriptor.WRITE, buf, null, destAddr, addr, key, true, data,
                txOpFlags | completion(selectiveTx), context);
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
        return postRma(ShmRecordDescriptor.READ_REQ, null, msg, msg.addr(), 0, 0, false, 0,
                flags | completion(selectiveTx), msg.context());
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
        return postRma(ShmRecordDescriptor.WRITE, null, msg, msg.addr(), 0, 0, (flags & Fi.FI_REMOTE_CQ_DATA) != 0,
                msg.data(), flags | completion(selectiveTx), msg.context());
    }

    /** {@link ShmRma#post} under the lock; a memory fault on a peer's mapping fails that peer, never throws (MappingFaults). */
    private int postRma(int kind, ByteBuffer buf, RmaMsg msg, long peerAddr, long addr, long key,
                        boolean withData, long data, long flags, Object context) {
        long started = transmitter.opsStarted;
        try {
            synchronized (this) {
                return rma.post(kind, buf, msg, peerAddr, addr, key, withData, data, flags, context);
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
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

    /** {@link ShmAtomicOps#post} under the lock; a memory fault on a peer's mapping fails that peer, never throws (MappingFaults). */
    private int postAtomic(int aop, long operand, long compare, ByteBuffer result, long peerAddr, long addr,
                           long key, long flags, Object context) {
        long started = transmitter.opsStarted;
        try {
            synchronized (this) {
                return atomics.post(aop, operand, compare, result, peerAddr, addr, key, flags, context);
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
    }

    // =================================================================== what the parts share

    /**
     * What every post checks first: the endpoint's data-path state ({@link #dataPathState}),
     * then {@code -ENOSYS} unless its caps hold every bit of {@code needed}, then
     * {@code -EOPBADSTATE} before {@code enable}; 0 when the post may go on.
     */
    int postCheck(long needed) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if ((caps & needed) != needed) {
            return -Errno.ENOSYS;
        }
        return enabled ? 0 : -Errno.EOPBADSTATE;
    }

    /** 0 while the endpoint is open, else the errno of a data-path call on it ({@code AbstractFid}). */
    int dataPathState() {
        return dataPathCheck();
    }

    /** Counts a success on {@code c} when one is bound. */
    static void count(UtilCounter c) {
        if (c != null) {
            c.increment();
        }
    }

    // =================================================================== the domain's progress

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
        int work = ringFailed ? 0 : reader.drainBatch();
        return work + peers.progress();
    }

    /**
     * The domain's progress is about to sleep (it found no work): every mapped peer is looked
     * at when due, so that an idle peer's death is found while nobody progresses actively.
     */
    synchronized void beforeSleep() {
        if (!enabled || own == null || !isOpen()) {
            return;
        }
        peers.beforeSleep();
    }

    /**
     * The domain's progress is about to sleep: false when a record is waiting (then it must
     * not). A record held back for the budget does not count: a posted receive wakes the
     * progress ({@link ShmReceiver#post}).
     */
    boolean prepareToSleep() {
        RingLink r = own;
        return r == null || !enabled || ringFailed || receiver.held || r.prepareToSleep(); // a failed ring is not touched again
    }

    /** Whether a record waits in this endpoint's ring: progress has something to do (fi_trywait). */
    boolean hasRecord() {
        RingLink r = own;
        return r != null && enabled && !ringFailed && !receiver.held && r.hasRecord();
    }

    /** The domain's progress runs again. */
    void awake() {
        RingLink r = own;
        if (r != null && !ringFailed) {
            r.awake();
        }
    }

    /**
     * A memory fault surfaced in this domain's progress or in a post ({@link ShmFaults#onMappingFault}).
     *
     * @return whether some mapping of this endpoint was found truncated
     */
    synchronized boolean onMappingFault() {
        return faults.onMappingFault();
    }

    /** {@link ShmFaults#failOwnRing} from outside the endpoint's monitor (the domain's fault handling). */
    synchronized void failOwnRingNow() {
        faults.failOwnRing();
    }

    // =================================================================== life cycle

    /** Closing discards pending operations without completions (fi_endpoint(3)) and returns their CQ room. */
    @Override
    protected synchronized void onClose() {
        domain.removeEndpoint(this);
        enabled = false;
        transmitter.discardAll();
        receiver.discardAll();
        releaseSharedMemory();
        bindings.releaseAll(this);
    }

    /** Lets go of the peers' mappings, this endpoint's own region and its alias (close and departure). */
    private void releaseSharedMemory() {
        peers.releaseAll();
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
        transmitter.depart(err);
        receiver.depart(err);
        releaseSharedMemory();
        enabled = false;
    }

    @Override
    protected String describe() {
        return "shm RDM endpoint" + (name == null ? "" : " " + ShmNames.SCHEME + name)
                + (alias == null ? "" : " (" + ShmNames.SCHEME + alias + ")");
    }

    // =================================================================== tests

    /** Descriptors created so far (tests prove the pools stop growing in steady state). */
    synchronized int descriptorsCreated() {
        return transmitter.created();
    }

    /** Messages buffered as unexpected (tests). */
    synchronized int unexpectedCount() {
        return receiver.unexpectedCount();
    }

    /** The endpoint's region name, or null before enable (tests). */
    synchronized String regionName() {
        return name;
    }

    /** CMA messages this endpoint sent (tests). */
    synchronized long cmaSent() {
        return transmitter.cmaSent;
    }

    /** CMA messages this endpoint read into its receives (tests). */
    synchronized long cmaRead() {
        return cmaReceiver.cmaRead;
    }

    /** Whether CMA is on towards the peer at {@code fiAddr} (tests). */
    synchronized boolean cmaOnTowards(long fiAddr) {
        return peers.cmaOnTowards(fiAddr);
    }

    /** Why CMA is off towards the peer at {@code fiAddr}, or null (tests, logs). */
    synchronized String cmaReasonTowards(long fiAddr) {
        return peers.cmaReasonTowards(fiAddr);
    }
}
