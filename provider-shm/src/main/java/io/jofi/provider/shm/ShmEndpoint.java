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
import io.jofi.spi.util.ReceivePosting;
import io.jofi.spi.util.UtilEndpoint;
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
 * queues, transmit completions) with {@link ShmRingWriter} (the records into the peers' rings);
 * {@link ShmRingReader} (the own ring: each record decoded once into a {@link ShmRecord} and
 * dispatched); {@link ShmReceiver} (posted receives, the unexpected queue and budget, matching,
 * fragment placement, PEEK/CLAIM, cancel) with the util layer's
 * {@link io.jofi.spi.util.ReceiveCompletion} (R10/R12 receive completions) and
 * {@link ShmCmaReceiver} (messages read from the sender's memory); {@link ShmRma} and
 * {@link ShmAtomicOps} (initiator and target); {@link ShmPeers} (the peer table, liveness,
 * failing a peer); {@link ShmFaults} (memory faults, a corrupt own ring). Each part gets in its
 * constructor the parts it calls and the two pieces of shared state it reads: the bindings
 * ({@link ShmBindings}) and the own ring and identity ({@link ShmOwnRing}). The one call back
 * against the order of construction, from the peers to the transmitter, receiver and ring
 * reader, goes through {@link ShmPeers.Owner}, which this class implements; the receiving parts
 * see the transmitter only as {@link ShmAnswers}.
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
final class ShmEndpoint extends UtilEndpoint implements ShmPeers.Owner {
    /** Bytes an inject copies (fi_inject). */
    static final int INJECT_SIZE = 4096;

    // ---- configuration (from the info and the provider's settings)
    private final ShmDomain domain;
    private final Info info;
    private final Path dir;
    /** The sending and receiving side of cross-memory attach (null when off: cmaThreshold 0 or unavailable). */
    private final CrossMemoryAttach cma;

    // ---- what the parts share: the bindings (UtilEndpoint owns them; copied at every bind) and the own ring
    private final ShmBindings bound = new ShmBindings();
    private final ShmOwnRing own;
    /** The name the application chose (FI_SOURCE srcAddr), a link to the region's name; null without. */
    private String alias;

    // ---- the parts, each given in its constructor the collaborators it uses
    private final ShmPeers peers;
    private final ShmPeerCounters peerCounters;
    private final ShmTransmitter transmitter;
    private final ShmReceiver receiver;
    private final ShmRma rma;
    private final ShmAtomicOps atomics;
    private final ShmFaults faults;
    private final ShmRingReader reader;
    /** Its post counters, counted inside this endpoint's lock (several threads may post at once). */
    private final io.jofi.spi.util.EndpointCounters posts;

    ShmEndpoint(ShmDomain domain, Info info, Object context) {
        super(context, domain.engine(), EndpointBindings.ALL_COUNTER_ROLES, limits(info));
        this.domain = domain;
        this.info = info.copy();
        long caps = caps();
        long tx = info.txAttr().size();
        long rx = info.rxAttr().size();
        int queueSize = (int) Math.max(16, Math.min(65536, Math.max(tx, rx) == 0 ? ShmProvider.QUEUE_SIZE : Math.max(tx, rx)));
        ShmProvider p = domain.provider();
        this.dir = p.directory();
        int cmaThreshold = p.cmaThreshold();
        this.cma = cmaThreshold > 0 && CrossMemoryAttach.available() ? new CrossMemoryAttach() : null;
        this.own = new ShmOwnRing(p.inlineThreshold());
        // Peers linked, lost and failed, ring-full waits, doorbells rung, CMA messages (under this endpoint's lock)
        this.peerCounters = new ShmPeerCounters(own, counters());
        this.peers = new ShmPeers(this, own, bound, peerCounters, dir,
                new PeerLiveness(p.peerCheckMillis(), p.progressTimeoutMillis()));
        this.transmitter = new ShmTransmitter(own, peers, new ShmTxCompletions(bound, queueSize, domain.engine()),
                new ShmRingWriter(own, peers, peerCounters, cma, cmaThreshold, p.cmaProbeFault()));
        this.receiver = new ShmReceiver(own, peers, transmitter, bound, domain.engine(), counters(), caps, queueSize,
                p.unexpectedBytes());
        ShmCmaReceiver cmaReceiver = new ShmCmaReceiver(peers, transmitter, receiver, peerCounters, cma);
        this.rma = new ShmRma(peers, transmitter, receiver, bound, domain.memoryRegistry(), dir, caps);
        this.atomics = new ShmAtomicOps(own, peers, transmitter, rma, bound, domain.memoryRegistry(), dir);
        this.faults = new ShmFaults(this, own, peers, transmitter, receiver, bound);
        this.reader = new ShmRingReader(own, peers, faults,
                new ShmRecordDispatch(receiver, cmaReceiver, transmitter, new ShmOneSidedDispatch(rma, atomics)));
        this.posts = countPostsUnderLock();
    }

    // =================================================================== control path

    /** What the post checks of {@link UtilEndpoint} measure against: shm's limits. */
    private static Limits limits(Info info) {
        long caps = info.caps() == 0 ? ShmProvider.CAPS : info.caps();
        return new Limits(caps, info.txAttr().opFlags(), info.rxAttr().opFlags(), INJECT_SIZE, ShmProvider.MAX_MSG_SIZE,
                ShmProvider.IOV_LIMIT, 1);
    }

    /** {@code fi_ep_bind} ({@link UtilEndpoint#bind}) made a binding: the parts read the bound objects from {@link ShmBindings}. */
    @Override
    protected void onBind(Fid fid, long flags) {
        bound.txCq = txCq();
        bound.rxCq = rxCq();
        bound.eq = eq();
        bound.av = av();
        bound.sendCntr = counterFor(Fi.FI_SEND);
        bound.recvCntr = counterFor(Fi.FI_RECV);
        bound.readCntr = counterFor(Fi.FI_READ);
        bound.writeCntr = counterFor(Fi.FI_WRITE);
        bound.remoteReadCntr = counterFor(Fi.FI_REMOTE_READ);
        bound.remoteWriteCntr = counterFor(Fi.FI_REMOTE_WRITE);
        receiver.bind(bound.rxCq, selectiveRx(), bound.recvCntr);
    }

    /**
     * {@code fi_enable}: creates the endpoint's region (its ring and doorbell) and starts
     * serving it in the domain's progress.
     *
     * <p>With a {@code srcAddr} in its info ({@code getInfo} with {@code FI_SOURCE} and a
     * name or service) the endpoint also takes that name ({@link ShmAlias}): peers may address
     * it as {@code fi_shm://<name>}, and {@link #getName()} returns that address.
     *
     * <p>A name of the provider's own form ({@code <pid>-<domain>-<endpoint>}) is taken too
     * when this process made it for an earlier endpoint that has closed (fabtests'
     * {@code fi_rdm_multi_client -R}): the region keeps its fresh canonical name and the old
     * name becomes a link to it, so peers holding the old name reach this endpoint.
     *
     * @throws FabricException {@code ENOCQ} without a CQ; {@code ENOAV} without an AV;
     *         {@code EINVAL} for a {@code srcAddr} that is not an shm address, or has the form
     *         of the provider's own names but was not made by this process; {@code EADDRINUSE}
     *         when a live endpoint holds that name; {@code EIO} when the region cannot be
     *         created (the message says why)
     */
    @Override
    public synchronized void enable() throws FabricException {
        ensureOpen("enable");
        if (own.enabled()) {
            return;
        }
        if (bound.txCq == null && bound.rxCq == null) {
            throw new FabricException(Errno.ENOCQ, "enable: bind a completion queue first");
        }
        if (bound.av == null) {
            throw new FabricException(Errno.ENOAV, "enable: an RDM endpoint needs a bound address vector");
        }
        String chosen = null;
        if (info.srcAddr() != null) {
            chosen = ShmNames.nameOf(info.srcAddr());
            if (chosen == null) {
                throw new FabricException(Errno.EINVAL, "enable: the source address "
                        + ShmAddressResolver.text(info.srcAddr()) + " is not a name this endpoint can take ("
                        + ShmNames.SCHEME + "<name>, " + ShmNames.NAME_RULE + ")");
            }
            String why = ShmNames.isEndpointName(chosen) ? ShmNames.whyNotOwnName(chosen) : null;
            if (why != null) {
                throw new FabricException(Errno.EINVAL, "enable: the source address "
                        + ShmAddressResolver.text(info.srcAddr()) + " is not a name this endpoint can take: " + why);
            }
        }
        String n = ShmNames.newEndpointName(domain.prefix());
        ShmProvider p = domain.provider();
        RingLink link;
        try {
            link = RingLink.create(dir, n, p.ringSize(), p.bounceSlotSize(), p.bounceSlotCount(), peers,
                    domain.doorbellPath());
        } catch (IOException e) {
            throw new FabricException(Errno.EIO, "enable: cannot create the region " + n + " in " + dir + ": "
                    + e.getMessage(), e);
        }
        if (chosen != null) {
            try {
                ShmAlias.claim(dir, chosen, n);
            } catch (FabricException e) {
                link.close();
                throw e;
            }
        }
        // every peer's ring has the same size as ours (one provider setting): the fragment is
        // fitted to ours; a smaller one would only make claims fail with -EMSGSIZE, which
        // ShmRingWriter treats as a broken peer
        own.open(link, n);
        alias = chosen;
        peerCounters.named(ShmNames.SCHEME + n + (chosen == null ? "" : " (" + chosen + ")"));
        if (cma != null) {
            link.advertiseCma(); // peers may probe us and send CMA messages
        }
        if (bound.remoteReadCntr != null || bound.remoteWriteCntr != null) {
            domain.eventsWanted();
        }
        own.enabled(true);
        sealBindings();
        domain.addEndpoint(this);
    }

    /** {@code fi_getname}: {@code fi_shm://<name>} once enabled (the chosen name if there is one). */
    @Override
    public synchronized byte[] getName() throws FabricException {
        ensureOpen("getName");
        if (own.name() == null) {
            throw new FabricException(Errno.EOPBADSTATE, "getName: enable the endpoint first (its region is created then)");
        }
        return ShmNames.address(alias != null ? alias : own.name());
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
        if (ReceivePosting.isMinMultiRecv(level, optName)) {
            return receiver.posting().minMultiRecv();
        }
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + optName + " at level " + level
                + " is not supported (FI_OPT_MIN_MULTI_RECV is)");
    }

    /**
     * {@code fi_setopt}: {@code FI_OPT_MIN_MULTI_RECV} ({@link ReceivePosting}'s answers).
     *
     * @throws FabricException {@code EINVAL} for a negative value; {@code ENOPROTOOPT} otherwise
     */
    @Override
    public synchronized void setOpt(int level, int optName, long value) throws FabricException {
        ensureOpen("setOpt");
        if (ReceivePosting.isMinMultiRecv(level, optName)) {
            receiver.posting().minMultiRecv(value);
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
        long started = transmitter.opsStarted();
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
        long started = transmitter.opsStarted();
        try {
            synchronized (this) {
                int rc = own.enabled() ? rma.post(read, buf, msg, length, peerAddr, addr, key, data, flags, context)
                        : -Errno.EOPBADSTATE;
                return posts.rma(rc, read, length);
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
        }
    }

    @Override
    protected int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                             long flags, Object context) {
        long started = transmitter.opsStarted();
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
        long started = transmitter.opsStarted();
        try {
            synchronized (this) {
                return posts.atomic(atomics.postTyped(kind, datatype, op, count, buf, compare, result, destAddr, addr,
                        key, flags, context));
            }
        } catch (InternalError e) {
            return faults.onPostFault(e, started);
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
        if (!own.enabled() || own.link() == null || !isOpen()) {
            return 0;
        }
        int work = own.failed() ? 0 : reader.drainBatch();
        return work + peers.progress();
    }

    /**
     * The domain's progress is about to sleep (it found no work): every mapped peer is looked
     * at when due, so that an idle peer's death is found while nobody progresses actively.
     */
    synchronized void beforeSleep() {
        if (!own.enabled() || own.link() == null || !isOpen()) {
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
        RingLink r = own.link();
        return r == null || !own.enabled() || own.failed() || receiver.held() || r.prepareToSleep(); // a failed ring is not touched again
    }

    /** Whether a record waits in this endpoint's ring: progress has something to do (fi_trywait). */
    boolean hasRecord() {
        RingLink r = own.link();
        return r != null && own.enabled() && !own.failed() && !receiver.held() && r.hasRecord();
    }

    /** The domain's progress runs again. */
    void awake() {
        RingLink r = own.link();
        if (r != null && !own.failed()) {
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
        own.enabled(false);
        transmitter.discardAll();
        receiver.discardAll();
        releaseSharedMemory();
        releaseBindings(this);
    }

    /** Lets go of the peers' mappings, this endpoint's own region and its alias (close and departure). */
    private void releaseSharedMemory() {
        peers.releaseAll();
        own.close();
        if (alias != null) {
            ShmAlias.release(dir, alias, own.name());
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
        own.enabled(false);
    }

    @Override
    protected String describe() {
        return "shm RDM endpoint" + (own.name() == null ? "" : " " + ShmNames.SCHEME + own.name())
                + (alias == null ? "" : " (" + ShmNames.SCHEME + alias + ")");
    }

    // =================================================================== what the peers ask of the other parts (ShmPeers.Owner)

    @Override
    public int flush(Peer p) {
        return transmitter.flush(p);
    }

    @Override
    public boolean awaitsLifeChecks() {
        return transmitter.awaitsLifeChecks();
    }

    @Override
    public int completeConfirmed(Peer p) {
        return transmitter.completeConfirmed(p);
    }

    @Override
    public void failPending(Peer p, int err) {
        transmitter.failPeerOps(p, err);
        receiver.failPeerReceives(p, err);
    }

    @Override
    public void drainPublishedBefore() {
        reader.drainPublishedBefore();
    }
}
