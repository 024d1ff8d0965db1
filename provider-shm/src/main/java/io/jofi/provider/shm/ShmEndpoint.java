package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.provider.shm.cma.CrossMemoryAttach;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.UtilEventQueue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The shm provider's RDM endpoint as the application sees it: enable, close, the options,
 * cancel, the five data-path funnels of {@link UtilEndpoint} ({@code fi_msg(3)},
 * {@code fi_tagged(3)}, {@code fi_rma(3)}, {@code fi_atomic(3)}) and the domain's progress
 * hooks, each handed to the part of the endpoint that does it. {@link UtilEndpoint} owns the
 * bindings and answers every convenience call with the shared post checks before a funnel.
 *
 * <p><b>Parts.</b> {@link ShmTransmitter} (posting messages, the operation table, the peers'
 * queues into their rings, transmit completions); {@link ShmRingReader} (the own ring: each
 * record decoded once into a {@link ShmRecord} and dispatched); {@link ShmReceiver} (posted
 * receives, the unexpected queue and budget, matching, fragment placement, PEEK/CLAIM, cancel)
 * with the util layer's {@link io.jofi.spi.util.ReceiveCompletion} (R10/R12 receive completions) and
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
 * parts never lock: this facade takes it per application call, the progress step per pass.
 * Nothing is allocated per operation in steady state (descriptors are pooled); the first
 * contact with a peer, unexpected messages and growth of the pools allocate.
 */
final class ShmEndpoint extends UtilEndpoint {
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

    // ---- the bindings (UtilEndpoint owns them): the data path's copies, read by the parts
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
    final ShmReceiver receiver;
    final ShmCmaReceiver cmaReceiver;
    final ShmRma rma;
    final ShmAtomicOps atomics;
    final ShmRingReader reader;
    final ShmFaults faults;
    /** Peers linked, lost and failed, ring-full waits, doorbells rung (under this endpoint's lock). */
    final ShmPeerCounters peerCounters;
    /** Its post counters, counted inside this endpoint's lock (several threads may post at once). */
    private final io.jofi.spi.util.EndpointCounters posts;

    ShmEndpoint(ShmDomain domain, Info info, Object context) {
        super(context, domain.engine(), EndpointBindings.ALL_COUNTER_ROLES, limits(info));
        this.domain = domain;
        this.info = info.copy();
        this.caps = caps();
        long tx = info.txAttr().size();
        long rx = info.rxAttr().size();
        this.queueSize = (int) Math.max(16, Math.min(65536, Math.max(tx, rx) == 0 ? ShmProvider.QUEUE_SIZE : Math.max(tx, rx)));
        ShmProvider p = domain.provider();
        this.fragment = p.inlineThreshold();
        this.dir = p.directory();
        int cmaThreshold = p.cmaThreshold();
        CrossMemoryAttach cma = cmaThreshold > 0 && CrossMemoryAttach.available() ? new CrossMemoryAttach() : null;
        this.peers = new ShmPeers(this, dir, new PeerLiveness(p.peerCheckMillis(), p.progressTimeoutMillis()));
        this.transmitter = new ShmTransmitter(this, cma, cmaThreshold, p.cmaProbeFault());
        this.receiver = new ShmReceiver(this, queueSize, p.unexpectedBytes(), (caps & Fi.FI_SOURCE) != 0,
                (caps & Fi.FI_SOURCE_ERR) != 0, (caps & Fi.FI_DIRECTED_RECV) != 0);
        this.cmaReceiver = new ShmCmaReceiver(this, cma);
        this.rma = new ShmRma(this);
        this.atomics = new ShmAtomicOps(this);
        this.reader = new ShmRingReader(this);
        this.faults = new ShmFaults(this);
        this.peerCounters = new ShmPeerCounters(this, counters());
        this.posts = countPostsUnderLock();
    }

    // =================================================================== control path

    /** What the post checks of {@link UtilEndpoint} measure against: shm's limits. */
    private static Limits limits(Info info) {
        long caps = info.caps() == 0 ? ShmProvider.CAPS : info.caps();
        return new Limits(caps, info.txAttr().opFlags(), info.rxAttr().opFlags(), INJECT_SIZE, ShmProvider.MAX_MSG_SIZE,
                ShmProvider.IOV_LIMIT, 1);
    }

    /** {@code fi_ep_bind} ({@link UtilEndpoint#bind}) made a binding: the parts read the bound objects from here. */
    @Override
    protected void onBind(Fid fid, long flags) {
        txCq = txCq();
        rxCq = rxCq();
        eq = eq();
        av = av();
        sendCntr = counterFor(Fi.FI_SEND);
        recvCntr = counterFor(Fi.FI_RECV);
        readCntr = counterFor(Fi.FI_READ);
        writeCntr = counterFor(Fi.FI_WRITE);
        remoteReadCntr = counterFor(Fi.FI_REMOTE_READ);
        remoteWriteCntr = counterFor(Fi.FI_REMOTE_WRITE);
        receiver.bind(rxCq, selectiveRx(), recvCntr);
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
        sealBindings();
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
        return receiver.cancel(context);
    }

    // =================================================================== the data path (UtilEndpoint's funnels)
    // UtilEndpoint checked the call (open, caps, arguments, flags, lengths, CQ); each funnel
    // takes this endpoint's lock and hands it to its part. A memory fault on a peer's mapping
    // fails that peer and never throws out of a post (MappingFaults).

    @Override
    protected int postSend(ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long destAddr, boolean tagged, long tag, long data,
                           long flags, Object context) {
        long started = transmitter.opsStarted;
        try {
            synchronized (this) {
                return posts.send(transmitter.postMsg(buf, msg, length, destAddr, tagged, tag, data, flags, context), tagged,
                        length);
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
    }

    @Override
    protected synchronized int postRecv(ByteBuffer buf, MemoryRegion desc, Msg msg, long srcAddr, boolean tagged, long tag, long ignore,
                                        long flags, Object context) {
        return posts.receive(receiver.post(buf, msg, srcAddr, tagged, tag, ignore, flags, context), tagged);
    }

    /** {@code FI_PEEK}/{@code FI_CLAIM}: progress first (MANUAL), so that what arrived is seen. */
    @Override
    protected int postPeek(TaggedMsg msg, long flags) {
        domain.engine().drive();
        synchronized (this) {
            return receiver.peekOrClaim(msg, flags);
        }
    }

    @Override
    protected int postRma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length, long peerAddr, long addr, long key,
                          long data, long flags, Object context) {
        long started = transmitter.opsStarted;
        try {
            synchronized (this) {
                return posts.rma(rma.post(read, buf, msg, length, peerAddr, addr, key, data, flags, context), read, length);
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
    }

    @Override
    protected int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                             long flags, Object context) {
        long started = transmitter.opsStarted;
        try {
            synchronized (this) {
                return posts.atomic(atomics.post(op, operand, compare, result, destAddr, addr, key, flags, context));
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
    }

    @Override
    protected int typedAtomicCount(int datatype, int op, long kind) {
        return ShmAtomicOps.count(datatype, op, kind);
    }

    @Override
    protected int postTypedAtomic(long kind, int datatype, int op, int count, ByteBuffer buf, ByteBuffer compare,
                                  ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                                  long flags, Object context) {
        long started = transmitter.opsStarted;
        try {
            synchronized (this) {
                return posts.atomic(atomics.postTyped(kind, datatype, op, count, buf, compare, result, destAddr, addr,
                        key, flags, context));
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
    }

    // =================================================================== what the parts share

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
        releaseBindings(this);
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

    /** The endpoint's region name, or null before enable; under the lock (the counters' events name it). */
    String localName() {
        return name;
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
