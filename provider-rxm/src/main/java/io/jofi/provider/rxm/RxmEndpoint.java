package io.jofi.provider.rxm;

import io.jofi.Domain;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.PeerRemovalSource;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An RDM endpoint over any provider's MSG endpoints that speaks libfabric 1.17's
 * {@code ofi_rxm} wire: a C program using {@code tcp;ofi_rxm} is its peer. The application
 * binds an AV, CQs and counters of the MSG provider's domain as to any endpoint; the endpoint
 * listens on a passive endpoint of that provider (its name is the listening address), opens one
 * MSG connection per peer on the first send (rxm's connection data, crossed requests settled as
 * rxm does, {@link RxmConnectionManager}) and moves messages eagerly up to the eager limit and
 * by rendezvous above it (the receiver reads the sender's registered buffers, or with
 * {@link RxmSettings#rendezvousByWrite()} the sender writes into the receiver's). RMA is
 * passed through to the peer's MSG connection. The receive side
 * is {@link io.jofi.spi.util.ReceiveQueue}, so tagged messages, {@code FI_MULTI_RECV},
 * {@code FI_DIRECTED_RECV}, {@code FI_SOURCE}/{@code FI_SOURCE_ERR} and peek/claim behave as on
 * every JOFI provider.
 *
 * <p><b>Progress.</b> Its own {@link ProgressEngine}, in the MSG domain's progress mode, is
 * attached to what the application binds; its pass reads the MSG event queue and the internal MSG
 * CQ and turns their entries into packets ({@link RxmSendPath}) and completions
 * ({@link RxmPacketHandler}). In manual mode reading the application's CQ runs it. In auto mode
 * it runs on a thread of its own, asleep on the MSG CQ. With {@value #PROGRESS_THREAD_PROPERTY}
 * {@code =false} the engine is hosted instead ({@link ProgressEngine#hosted}): the MSG provider's
 * progress thread runs the pass after each of its own, on the thread that has just published into
 * the MSG CQ ({@link UtilCompletionQueue#hostProgress}); a post that left a completion in the MSG
 * CQ runs it on the application's thread; connection events run it on {@link RxmEventWaiter}'s (one
 * thread less between a message and its reader). Hosting is not the default yet: under a loaded
 * host two RDM-over-tcp tests stalled with it (one lost progress request found since: a completion
 * the pass itself caused waited for the host's next pass; the stalls not reproduced since).
 *
 * <p><b>Threads.</b> One lock serialises posts and progress. The MSG provider never calls back
 * into this endpoint, so holding the lock while posting to it cannot deadlock; a hosted pass runs
 * on the MSG provider's thread only after its step returned, holding none of its locks.
 *
 * <p><b>Losing peers.</b> {@code fi_av_remove} of a peer ({@link PeerRemovalSource}) closes its
 * connection ({@code ECANCELED} here, {@code ECONNRESET} at the peer); the MSG provider's
 * departure (R15) ends every pending operation ({@code ECANCELED}, {@code EIO} when its progress
 * failed). A send to our own name ({@code FI_LOCAL_COMM}) goes to our own listener.
 *
 * <p><b>Flow.</b> Above the eager limit and up to the SAR limit a message goes in segments
 * ({@link RxmSegmentSender}), larger ones by rendezvous. rxm's credits ({@link RxmCredits}) are
 * used where both sides offer them ({@link RxmSettings#creditFlowControl}). Unexpected messages
 * beyond the settings' limits stay in their MSG receive buffers, not posted again (back-pressure).
 * Atomics are rxm's packets, executed by the target in software ({@link RxmAtomics}).
 */
public final class RxmEndpoint extends io.jofi.spi.util.UtilEndpoint {
    /** What this endpoint offers. */
    static final long CAPS = Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ
            | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR
            | Fi.FI_DIRECTED_RECV | Fi.FI_MULTI_RECV | Fi.FI_RMA_EVENT;
    /** Offered unasked: not FI_SOURCE_ERR (changes behaviour), FI_ATOMIC (needs the MSG domain's registry), FI_RMA_EVENT. */
    static final long DEFAULT_CAPS = CAPS & ~(Fi.FI_SOURCE_ERR | Fi.FI_ATOMIC | Fi.FI_RMA_EVENT);
    /** What the MSG endpoints underneath need: messages, and reads of a rendezvous sender's memory. */
    private static final long MSG_CAPS = Fi.FI_MSG | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_RMA | Fi.FI_READ
            | Fi.FI_REMOTE_READ | Fi.FI_WRITE | Fi.FI_REMOTE_WRITE;
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /**
     * The system property that gives AUTO progress a thread of its own ({@code jofi-rxm-progress-N},
     * asleep on the MSG CQ) instead of the MSG provider's progress thread: {@code true}; read when
     * an endpoint opens. For comparisons: it costs a thread hop per message.
     */
    public static final String PROGRESS_THREAD_PROPERTY = "jofi.rxm.progressThread";

    private final Fabric fabric;
    private final Domain domain;
    private final Info msgInfo;
    private final RxmSettings settings;
    /** The MSG provider works on registered native memory ({@link RxmPacketMemory#nativeMemory}). */
    private final boolean nativeMemory;
    /** The MSG domain's registered memory, where the atomics a peer sends are served; null when it keeps its own. */
    private final io.jofi.spi.util.MemoryRegistry targetMemory;
    /** Whether remote CQ data is offered: the MSG info's cq_data_size, which the RDM info repeats. */
    private final boolean remoteCqData;
    private final ProgressEngine engine;
    private final Object lock = new Object();
    private final RxmTransmitPool transmits;
    private final io.jofi.spi.util.ReceiveQueue receives;
    /** The endpoint as its parts see it: one object behind each part's {@code Owner} door. */
    private final Inside inside = new Inside();
    private final RxmSendPath sendPath;
    private final RxmPacketHandler packets;

    /** The MSG event queue, completion queue and listener with their watching thread; made by {@link #enable}. */
    private volatile RxmMsgSide msgSide;
    /** Reads the MSG CQ for the progress passes; made by {@link #enable}. */
    private RxmMsgCqReader reader;
    private RxmConnectionManager connections;
    private volatile boolean enabled;
    /** Posting, peek/claim and FI_OPT_MIN_MULTI_RECV: util's, as every provider's. */
    private final io.jofi.spi.util.ReceivePosting posting;
    private static final AtomicInteger KEY_SPACES = new AtomicInteger();
    /** This endpoint's own range of rendezvous registration keys ("RXM", then its number): endpoints of one domain must not collide. */
    private final long keyBase = 0x52584d0000L + ((long) KEY_SPACES.incrementAndGet() << 40);
    private long nextKey;
    /** The bound AV when it tells of removals, else null. */
    private PeerRemovalSource removals;
    private final PeerRemovalSource.Listener removalListener = this::peersRemoved;

    /**
     * An RDM endpoint over the MSG endpoints of {@code domain}.
     *
     * @param msgInfo  a MSG info of that provider whose {@code srcAddr} is a concrete address
     *                 (port 0: any); the endpoint listens there
     * @param caps     the capabilities asked for (0: {@link #DEFAULT_CAPS})
     * @param settings sizes and the eager limit
     */
    public static RxmEndpoint open(Fabric fabric, Domain domain, Info msgInfo, long caps, RxmSettings settings,
                                   Object context) {
        RxmProgressStep step = new RxmProgressStep();
        Progress mode = msgInfo.domainAttr().dataProgress();
        String name = "jofi-rxm-progress-" + SEQUENCE.incrementAndGet();
        boolean auto = mode != Progress.MANUAL;
        boolean ownThread = Boolean.parseBoolean(System.getProperty(PROGRESS_THREAD_PROPERTY, "true"));
        ProgressEngine engine = auto && !ownThread
                ? ProgressEngine.hosted(name, step, null) : ProgressEngine.start(mode, name, step);
        RxmEndpoint ep = new RxmEndpoint(fabric, domain, msgInfo, caps, settings, context, engine);
        step.attach(ep.inside);
        return ep;
    }

    private RxmEndpoint(Fabric fabric, Domain domain, Info msgInfo, long caps, RxmSettings settings, Object context,
                        ProgressEngine engine) {
        super(context, engine, EndpointBindings.ALL_COUNTER_ROLES, limits(caps, msgInfo, settings),
                msgInfo.fabricAttr().provName());
        this.fabric = fabric;
        this.domain = domain;
        this.msgInfo = msgInfo.copy();
        // the RDM endpoint's op flags, not its MSG endpoints' (their receives and sends are rxm's)
        this.msgInfo.rxAttr().opFlags(0);
        this.msgInfo.txAttr().opFlags(0);
        this.msgInfo.caps(this.msgInfo.caps() | MSG_CAPS | (caps & Fi.FI_RMA_EVENT));
        if ((caps == 0 || (caps & Fi.FI_TAGGED) != 0) && msgTaggedOffered(msgInfo)) {
            // to take the tagged messages libfabric's rxm over tcp sends as tcp tagged messages
            this.msgInfo.caps(this.msgInfo.caps() | Fi.FI_MSG | Fi.FI_TAGGED);
        }
        this.settings = settings;
        this.nativeMemory = RxmPacketMemory.nativeMemory(msgInfo);
        this.targetMemory = domain instanceof io.jofi.spi.util.UtilDomain d ? d.memoryRegistry() : null;
        this.remoteCqData = msgInfo.domainAttr().cqDataSize() > 0;
        this.engine = engine;
        this.transmits = new RxmTransmitPool(settings.transmitOps(), settings.eagerLimit());
        this.receives = new io.jofi.spi.util.ReceiveQueue(settings.receiveQueueSize(), RxmWireDescriptor.IOV_LIMIT,
                settings.maxUnexpectedMessages(), settings.maxUnexpectedBytes(), msgInfo.fabricAttr().provName());
        receives.completion().countIn(counters());
        this.sendPath = new RxmSendPath(inside, domain, transmits, settings);
        this.packets = new RxmPacketHandler(inside, sendPath, receives, transmits, settings, counters());
        this.posts = countPostsUnderLock();
        this.posting = new io.jofi.spi.util.ReceivePosting(receives);
    }

    /** Whether the MSG provider's endpoints take tagged receives (tcp does; verbs MSG does not). */
    private static boolean msgTaggedOffered(Info msgInfo) {
        return RxmInfos.socketCore(msgInfo);
    }

    private static Limits limits(long caps, Info msgInfo, RxmSettings settings) {
        long c = caps == 0 ? DEFAULT_CAPS : caps & CAPS;
        long max = msgInfo.epAttr().maxMsgSize() > 0 ? msgInfo.epAttr().maxMsgSize() : Integer.MAX_VALUE;
        // RMA is passed through: as many remote segments as the MSG endpoints take (verbs: 1)
        int rmaIovs = msgInfo.txAttr().rmaIovLimit() > 0
                ? (int) Math.min(RxmWireDescriptor.IOV_LIMIT, msgInfo.txAttr().rmaIovLimit()) : RxmWireDescriptor.IOV_LIMIT;
        // the application's op flags (FI_MULTI_RECV for recv, a completion level for send) are the RDM endpoint's
        return new Limits(c, msgInfo.txAttr().opFlags(), msgInfo.rxAttr().opFlags(), settings.eagerLimit(), max, RxmWireDescriptor.IOV_LIMIT, rmaIovs);
    }

    /** The settings it was opened with. */
    public RxmSettings settings() {
        return settings;
    }

    // =================================================================== control path

    @Override
    public void enable() throws FabricException {
        synchronized (lock) {
            ensureOpen("enable");
            if (enabled) {
                return;
            }
            if (av() == null) {
                throw new FabricException(Errno.ENOAV, "enable: an RDM endpoint needs an address vector bound first");
            }
            try {
                if (nativeMemory) {
                    transmits.register(domain);
                }
                msgSide = RxmMsgSide.open(fabric, domain, msgInfo, settings);
                connections = new RxmConnectionManager(domain, msgInfo, settings, msgSide.eq(), msgSide.cq(),
                        msgSide.listener(), packets, this::bindTargetCounters, ProcessHandle.current().pid(), counters());
                reader = new RxmMsgCqReader(lock, inside::isEnabled, msgSide.cq(), connections, packets);
            } catch (FabricException | RuntimeException e) {
                // nothing half made stays open (the domain could not be closed)
                RxmMsgSide side = msgSide;
                if (side != null) {
                    side.stopAndClose();
                }
                transmits.unregister();
                reader = null;
                msgSide = null;
                throw e;
            }
            receives.completion().bind(rxCq(), selectiveRx(), counterFor(Fi.FI_RECV));
            receives.completion().reportSource((caps() & Fi.FI_SOURCE) != 0, (caps() & Fi.FI_SOURCE_ERR) != 0);
            receives.directed((caps() & Fi.FI_DIRECTED_RECV) != 0);
            sealBindings();
            enabled = true;
            msgSide.watch(engine, inside, lock);
        }
    }

    /** An AV that tells of removals ({@link PeerRemovalSource}) is followed: {@link #peersRemoved}. */
    @Override
    protected void onBind(io.jofi.Fid fid, long flags) {
        if (fid instanceof PeerRemovalSource r) {
            removals = r;
            r.addRemovalListener(removalListener);
        }
    }

    /**
     * {@code fi_av_remove} took these peers out of the bound AV: their connections close, and
     * the operations waiting on them end with {@code ECANCELED} (the peer sees its connection
     * reset); the next send to such a peer, once inserted again, connects anew.
     */
    private void peersRemoved(byte[][] addrs) {
        synchronized (lock) {
            if (enabled && connections != null) {
                connections.removed(addrs, Errno.ECANCELED);
            }
        }
    }

    /**
     * FI_RMA_EVENT: RMA is passed through, so the MSG provider serves the target side; the
     * application's remote-read/remote-write counters are bound to each MSG endpoint, which
     * counts what its peer did (the same domain's counters, so the MSG endpoint takes them).
     */
    private void bindTargetCounters(io.jofi.Endpoint m) throws FabricException {
        if (!countsTargetEvents()) {
            return;
        }
        UtilCounter r = counterFor(Fi.FI_REMOTE_READ);
        UtilCounter w = counterFor(Fi.FI_REMOTE_WRITE);
        if (r != null && r == w) {
            m.bind(r, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE);
            return;
        }
        if (r != null) {
            m.bind(r, Fi.FI_REMOTE_READ);
        }
        if (w != null) {
            m.bind(w, Fi.FI_REMOTE_WRITE);
        }
    }

    /** Whether the MSG endpoints count the target-side RMA events ({@link #bindTargetCounters}). */
    private boolean countsTargetEvents() {
        return (caps() & Fi.FI_RMA_EVENT) != 0;
    }

    /** The live counters of its receive side: unexpected messages and bytes with their high-water marks. */
    public io.jofi.spi.util.stats.CounterGroup receiveCounters() {
        return receives.counters();
    }

    @Override
    public byte[] getName() throws FabricException {
        ensureOpen("getName");
        RxmConnectionManager cm = connections;
        if (cm == null) {
            throw new FabricException(Errno.EOPBADSTATE, "getName: an rxm endpoint has its address once enabled");
        }
        return cm.localName();
    }

    @Override
    public byte[] getPeer() throws FabricException {
        throw new FabricException(Errno.ENOSYS, "getPeer: an RDM endpoint has no single peer");
    }

    @Override
    public void connect(byte[] addr, byte[] param) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "connect: RDM endpoints connect by themselves");
    }

    @Override
    public void accept(byte[] param) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "accept: RDM endpoints accept by themselves");
    }

    @Override
    public void shutdown(long flags) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "shutdown: not for RDM endpoints");
    }

    @Override
    public int cancel(Object context) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        synchronized (lock) {
            return receives.cancel(context);
        }
    }

    @Override
    public long getOpt(int level, int name) throws FabricException {
        if (io.jofi.spi.util.ReceivePosting.isMinMultiRecv(level, name)) {
            return posting.minMultiRecv();
        }
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + name + " not offered by rxm");
    }

    @Override
    public void setOpt(int level, int name, long value) throws FabricException {
        if (io.jofi.spi.util.ReceivePosting.isMinMultiRecv(level, name)) {
            posting.minMultiRecv(value);
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "setOpt: option " + name + " not offered by rxm");
    }

    @Override
    protected void onClose() throws FabricException {
        synchronized (lock) {
            enabled = false;
            if (connections != null) {
                connections.closeAll();
            }
            receives.discardPosted();
            sendPath.closeRegistrations();
            packets.closeOffers();
        }
        stopAndRelease();
        releaseBindings(this);
    }

    /**
     * R15 (and a failed MSG domain, with {@code EIO}): every pending operation ends with the
     * departure error — transmits, posted receives — and the listener and the connections close.
     */
    @Override
    protected void onDeparture() {
        int err = departureError();
        synchronized (lock) {
            boolean wasEnabled = enabled;
            enabled = false;
            if (connections != null) {
                connections.endAll(err, "the provider departed");
            }
            if (wasEnabled) {
                sendPath.failInFlight(err);
                receives.failPosted(err, 0, null);
            }
            sendPath.closeRegistrations();
            packets.closeOffers();
        }
        stopAndRelease();
    }

    /**
     * Stops this endpoint's progress engine (its thread joined) ahead of its departure, so that
     * what its MSG connections report meanwhile (peers over the same core departing first) is not
     * taken for a peer's error: the layer stops every endpoint over a departing core, then departs
     * them (R15: pending operations {@code ECANCELED}), as a core provider stops its engines before
     * it departs. Idempotent.
     */
    void stopProgress() {
        engine.close();
    }

    /** Stops the threads, closes what {@link #enable} opened and stops following the AV. */
    private void stopAndRelease() {
        PeerRemovalSource r = removals;
        if (r != null) {
            r.removeRemovalListener(removalListener);
        }
        engine.close();
        RxmMsgSide side = msgSide;
        if (side != null) {
            side.stopAndClose();
        }
        synchronized (lock) {
            transmits.unregister(); // the connections are closed: nothing is posted from the packets
        }
    }

    // =================================================================== progress

    /** One pass ({@link RxmMsgCqReader#pass}). */
    private int progress(long timeoutNanos) {
        RxmMsgCqReader r = reader;
        return r == null ? 0 : r.pass(timeoutNanos);
    }

    /**
     * Hosted progress, after a post has left the lock: a completion the MSG provider wrote into
     * the MSG CQ on this thread (a send that left at once) has no host thread to run the pass for
     * it, so this thread runs it (as libfabric's rxm progresses inside the application's calls).
     * Costs a look at the MSG CQ's head when it is empty.
     */
    private int afterPost(int rc) {
        RxmMsgSide side = msgSide;
        if (side != null && side.holdsCompletions()) {
            engine.follow();
        }
        return rc;
    }

    // =================================================================== the funnels

    @Override
    protected int postSend(ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long destAddr, boolean tagged, long tag, long data,
                           long flags, Object context) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        if ((flags & Fi.FI_REMOTE_CQ_DATA) != 0 && !remoteCqData) {
            return -Errno.ENOSYS; // the info says cq_data_size 0 (the MSG provider's: verbs on iWARP)
        }
        int rc;
        synchronized (lock) {
            rc = posts.send(sendPath.send(buf, msg, length, destAddr, tagged, tag, data, flags, context), tagged,
                    length);
        }
        return afterPost(rc);
    }

    @Override
    protected int postRecv(ByteBuffer buf, MemoryRegion desc, Msg msg, long srcAddr, boolean tagged, long tag, long ignore, long flags,
                           Object context) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        int rc;
        synchronized (lock) {
            long src = (caps() & Fi.FI_DIRECTED_RECV) != 0 ? srcAddr : Fi.FI_ADDR_UNSPEC;
            rc = posting.post(rxCq(), buf, msg, src, tagged, tag, ignore, flags, context);
            if (rc != 0) {
                return posts.receive(rc, tagged);
            }
            packets.matchedRendezvous();
            rc = posts.receive(0, tagged);
        }
        return afterPost(rc);
    }

    @Override
    protected int postPeek(TaggedMsg msg, long flags) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        synchronized (lock) {
            long src = (caps() & Fi.FI_DIRECTED_RECV) != 0 ? msg.addr() : Fi.FI_ADDR_UNSPEC;
            int rc = posting.peekOrClaim(rxCq(), msg, src, flags);
            if (rc == 0) {
                packets.matchedRendezvous(); // a claim took a rendezvous, or FI_DISCARD dropped one
            }
            return rc;
        }
    }

    /** RMA is passed through to the MSG connection of the peer, as libfabric's rxm does ({@link RxmSendPath#rma}). */
    @Override
    protected int postRma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length, long peerAddr, long addr, long key,
                          long data, long flags, Object context) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        int rc;
        synchronized (lock) {
            rc = posts.rma(sendPath.rma(read, buf, desc, msg, length, peerAddr, addr, key, data, flags, context), read,
                    length);
        }
        return afterPost(rc);
    }

    /** An atomic goes as rxm's atomic request packet, executed by the target ({@link RxmSendPath#atomic}). */
    @Override
    protected int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                             long flags, Object context) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        if (!io.jofi.spi.util.Atomics.supported(op)) {
            return -Errno.EOPNOTSUPP; // what a JOFI target executes (a C rxm target would take more)
        }
        int rc;
        synchronized (lock) {
            rc = posts.atomic(sendPath.atomic(op, operand, compare, result, destAddr, addr, key, flags, context));
        }
        return afterPost(rc);
    }

    /**
     * {@code fi_query_atomic} for rxm endpoints with {@code settings}: every pair the util
     * layer's {@code AtomicTable} serves, as many elements as one request packet carries (what
     * the MSG domain's {@code queryAtomic} answers for RDM).
     */
    static int typedAtomicCount(int datatype, int op, long flags, RxmSettings settings) {
        return RxmAtomics.typedCount(datatype, op, flags, settings.eagerLimit());
    }

    @Override
    protected int typedAtomicCount(int datatype, int op, long kind) {
        return typedAtomicCount(datatype, op, kind, settings());
    }

    /** A typed atomic goes as rxm's atomic request packet with its datatype and count ({@link RxmSendPath#typedAtomic}). */
    @Override
    protected int postTypedAtomic(long kind, int datatype, int op, int count, ByteBuffer buf, ByteBuffer compare,
                                  ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                                  long flags, Object context) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        int rc;
        synchronized (lock) {
            rc = posts.atomic(sendPath.typedAtomic(kind, datatype, op, count, buf, compare, result, destAddr, addr,
                    key, flags, context));
        }
        return afterPost(rc);
    }

    /** Its post counters, counted inside {@link #lock} (several threads may post at once). */
    private final io.jofi.spi.util.EndpointCounters posts;

    /**
     * The endpoint as its parts see it, each through its own door: the send path
     * ({@link RxmSendPath.Owner}), the packet handler with its rendezvous receiver and atomics
     * ({@link RxmPacketHandler.Owner}) and the connection watcher ({@link RxmConnectionWatcher.Owner}).
     * Connections and bindings are read as they are at the call: the connections exist once the
     * endpoint is enabled, and no part is called before.
     */
    private final class Inside implements RxmSendPath.Owner, RxmPacketHandler.Owner, RxmConnectionWatcher.Owner,
            RxmProgressStep.Pass {
        @Override
        public int pass(long timeoutNanos) {
            return progress(timeoutNanos);
        }

        @Override
        public void wakePass() {
            RxmMsgSide side = msgSide;
            if (side != null) {
                side.signal();
            }
        }

        @Override
        public RxmConnection connectionTo(long fiAddr) {
            return connections.forFiAddr(av(), fiAddr);
        }

        @Override
        public int connect(RxmConnection c) {
            return connections.connect(c);
        }

        @Override
        public java.util.List<RxmConnection> connections() {
            return connections.connections();
        }

        @Override
        public void packetArrived(RxmConnection c, io.jofi.Endpoint on) {
            connections.packetArrived(c, on);
        }

        @Override
        public int endHeldNow(RxmConnection c, int err) {
            return connections.endHeldNow(c, err);
        }

        @Override
        public void abort(RxmConnection c, int err, String why) {
            connections.abort(c, err, why);
        }

        @Override
        public int retryAfterAlready(RxmConnection c, long nowNanos) {
            return connections.retryAfterAlready(c, nowNanos);
        }

        @Override
        public boolean connectionEvents() {
            // a connection made here sends what waited for it at once: in MANUAL progress the
            // application may be reading only its peer's queues (which move the sockets)
            if (connections.progressDeferringEnds() > 0) {
                packets.retryDeferred();
            }
            return connections.hasDeferredEnds();
        }

        @Override
        public boolean isEnabled() {
            return enabled;
        }

        @Override
        public void drainClosed() {
            RxmMsgCqReader r = reader;
            if (r != null) {
                r.drainClosed();
            }
        }

        @Override
        public long sourceOf(RxmConnection c) {
            return c.fiAddr(av());
        }

        @Override
        public UtilCompletionQueue transmitCq() {
            return txCq();
        }

        @Override
        public UtilCompletionQueue receiveCq() {
            return rxCq();
        }

        @Override
        public UtilCounter counter(long completionFlags) {
            return counterFor(completionFlags);
        }

        @Override
        public boolean countsTargetEvents() {
            return RxmEndpoint.this.countsTargetEvents();
        }

        @Override
        public long nextKey() {
            return keyBase + nextKey++;
        }

        @Override
        public MemoryRegion registerForWrite(ByteBuffer target) throws FabricException {
            return domain.register(target, Fi.FI_REMOTE_WRITE, 0, nextKey(), 0, null);
        }

        @Override
        public boolean nativeMemory() {
            return nativeMemory;
        }

        @Override
        public io.jofi.spi.util.MemoryRegistry targetMemory() {
            return targetMemory;
        }

        @Override
        public void writeAtomicRequest(RxmTransmit t) {
            packets.writeAtomicRequest(t);
        }
    }

    /** The peers this endpoint holds a MSG connection to now, made or being made (tools, tests). */
    public int connectionCount() {
        synchronized (lock) {
            if (connections == null) {
                return 0;
            }
            int n = 0;
            for (RxmConnection c : connections.connections()) {
                if (c.state != RxmConnection.State.IDLE) {
                    n++;
                }
            }
            return n;
        }
    }

    @Override
    protected String describe() {
        return "rxm endpoint over " + msgInfo.fabricAttr().provName();
    }
}
