package io.jofi.spi.util;

import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.stats.CounterGroup;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The part of an active endpoint every provider shares: it owns the endpoint's
 * {@link EndpointBindings}, answers every convenience call of {@link Endpoint} with the same
 * post checks and the same errno on every provider (docs/ERRORS.md), and hands what passes to
 * five funnels the provider writes.
 *
 * <p><b>What a call goes through</b>, in this order; the first that fails is the answer and
 * no funnel runs (nothing reserved, queued or sent):
 * <ol>
 * <li>the endpoint is open: {@code -EBADF} closed, {@code -ENODEV} departed, {@code -EIO}
 *     failed ({@link #dataPathCheck()});</li>
 * <li>the caps gate: the operation's primary capability ({@code FI_MSG}, {@code FI_TAGGED},
 *     {@code FI_RMA}, {@code FI_ATOMIC}) and its direction modifier ({@code FI_SEND} /
 *     {@code FI_RECV} for messages, {@code FI_READ} / {@code FI_WRITE} for RMA and atomics;
 *     caps that name neither modifier of a pair imply both, fi_getinfo(3) "primary
 *     modifiers"): else {@code -ENOSYS};</li>
 * <li>the arguments: a null {@code Msg}, a null buffer of a one-buffer call, a null iov, an
 *     iov count outside {@code [0, iovLimit]}, an RMA iov count outside
 *     {@code [1, rmaIovLimit]}, remote RMA lengths that do not add up to the local one, a
 *     fetching atomic's result that is missing, read-only or shorter than 8 bytes:
 *     {@code -EINVAL};</li>
 * <li>the flags of a {@code *Msg} call ({@link PostChecks#flags}): {@code -EBADFLAGS};
 *     {@code FI_MULTI_RECV} (in {@code recvMsg}'s flags or, for {@code recv}, in the op
 *     flags) without that capability: {@code -ENOSYS}, with more than one iov:
 *     {@code -EINVAL}; in the op flags it does not apply to {@code trecv}
 *     ({@link ReceivePosting});</li>
 * <li>the lengths: a receive (or RMA read) buffer that is read-only {@code -EINVAL}, above
 *     {@code maxMsgSize} {@code -EMSGSIZE} ({@link PostChecks#landing}); a transmit above
 *     {@code maxMsgSize}, or an inject above {@code injectSize}: {@code -EMSGSIZE}
 *     ({@link PostChecks#transmit});</li>
 * <li>a CQ for the completion: an operation that reports one (every call but the
 *     {@code fi_inject*} calls, {@link PostChecks#reportsToCq}) without a bound CQ of its
 *     direction: {@code -ENOCQ}.</li>
 * </ol>
 * What stays the provider's (in its funnel): the enable and connection state
 * ({@code -EOPBADSTATE}, {@code -ENOTCONN}), the peer an address names, the atomic operations
 * it offers ({@code -EOPNOTSUPP}), queue and CQ room ({@code -EAGAIN}).
 *
 * <p><b>The funnels</b> get the checked call in one form for all its overloads. A one-buffer
 * call passes its buffer and a null message (no {@code Msg} is made: zero allocation); a
 * {@code *Msg} call a null buffer and the message, whose scalars (address, context, data,
 * tag) are already taken out into the arguments. {@code flags} is the operation's: the
 * endpoint's op flags for the plain calls, the caller's for the {@code *Msg} calls,
 * {@code FI_INJECT} with {@link PostChecks#INJECT_CALL} for an {@code fi_inject*} call (which
 * reports nothing, where {@code FI_INJECT} in the op flags or a {@code *Msg} call's flags reports as
 * any transmit; {@link PostChecks#reportsToCq} says which); {@code FI_COMPLETION} is added unless the CQ of that
 * direction was bound with {@code FI_SELECTIVE_COMPLETION}, and {@code FI_REMOTE_CQ_DATA}
 * when the call carries remote CQ data.
 *
 * <p><b>Adopting it.</b> A provider endpoint {@code extends UtilEndpoint} instead of
 * {@code AbstractFid implements Endpoint}, passes its {@link Limits} and progress engine to
 * the constructor, deletes its {@code bind} and every convenience overload, and renames its
 * post paths to the funnels ({@link #postSend}, {@link #postRecv}, {@link #postPeek},
 * {@link #postRma}, {@link #postAtomic}), dropping the checks above from them. It reads the
 * bound objects from {@link #txCq()}, {@link #rxCq()}, {@link #eq()}, {@link #av()} and
 * {@link #counterFor}, or copies them into its own data-path fields in {@link #onBind};
 * calls {@link #sealBindings()} when enabled and {@link #releaseBindings} when closed or
 * departed. The funnels still take the provider's own lock: this class adds none on the
 * data path, and costs one virtual call.
 *
 * <p><b>Counters.</b> Each accepted post counts on its kind's counter, each {@code -EAGAIN}
 * on the back-pressure counter ({@link #counters()}, in this JVM's counters file): one plain
 * load and one release store after the funnel returned — or, in a provider that called
 * {@link #countPostsUnderLock()}, inside its funnel's lock, so that concurrent posters
 * ({@code FI_THREAD_SAFE}) lose no count.
 */
public abstract class UtilEndpoint extends AbstractFid implements Endpoint {
    /** What the post checks measure against: one object, fixed at open. */
    public record Limits(long caps, long txOpFlags, long rxOpFlags, long injectSize, long maxMsgSize, int iovLimit,
                         int rmaIovLimit) {
        /**
         * @param caps        the endpoint's capabilities, resolved (no "0 means all")
         * @param txOpFlags   the transmit op flags ({@code TxAttr.opFlags})
         * @param rxOpFlags   the receive op flags ({@code RxAttr.opFlags})
         * @param injectSize  the inject size the provider advertises
         * @param maxMsgSize  the largest message, receive buffer or RMA transfer
         * @param iovLimit    the most iovs a {@code *Msg} call may carry
         * @param rmaIovLimit the most remote segments an {@link RmaMsg} may carry
         */
        public Limits {
            if (iovLimit < 1 || rmaIovLimit < 1 || injectSize < 0 || maxMsgSize < 0) {
                throw new IllegalArgumentException("limits must be positive: " + iovLimit + ", " + rmaIovLimit + ", "
                        + injectSize + ", " + maxMsgSize);
            }
        }
    }

    private final EndpointBindings bindings;
    /** The caps gate and the argument checks ({@link PostAdmission}): what the limits decide. */
    private final PostAdmission admission;
    private final long caps;
    /** Op flags of the plain sends and writes, without FI_REMOTE_CQ_DATA (only the *Data calls carry data). */
    /** The flags of an {@code fi_inject*} call: FI_INJECT and the mark that it reports nothing. */
    private static final long INJECT_CALL_FLAGS = Fi.FI_INJECT | PostChecks.INJECT_CALL;
    private final long txOpFlags;
    private final long rxOpFlags;
    /** Op flags of the tagged receives: without FI_MULTI_RECV, which applies to untagged ones ({@link ReceivePosting}). */
    private final long rxTaggedOpFlags;

    // Data-path copies of the bindings, written under this object's monitor by bind and read
    // by the overloads without a lock: volatile, as a posting thread need not have bound.
    private volatile UtilCompletionQueue txCq;
    private volatile UtilCompletionQueue rxCq;
    private volatile boolean selectiveTx;
    private volatile boolean selectiveRx;
    private UtilEventQueue eq;
    private UtilAddressVector av;
    /** The bound counters by operation, taken anew at each bind. */
    private BoundCounters boundCounters = BoundCounters.NONE;
    /** Its live counters (posts by kind, back-pressure), freed when it is closed. */
    private final EndpointCounters stats;
    /** The provider counts the posts itself, under its lock ({@link #countPostsUnderLock()}). */
    private boolean postsCountedByProvider;

    /**
     * @param context      the application's context of the endpoint
     * @param engine       the progress engine of its domain (attached to what is bound)
     * @param counterRoles the counter roles the provider counts ({@link EndpointBindings})
     * @param limits       what the post checks measure against
     */
    protected UtilEndpoint(Object context, ProgressEngine engine, long counterRoles, Limits limits) {
        this(context, engine, counterRoles, limits, null);
    }

    /**
     * The same, its counters labelled with {@code statsProvider} instead of its package's last
     * segment (a layer over a provider, such as the rxm endpoint, names the provider below it).
     */
    protected UtilEndpoint(Object context, ProgressEngine engine, long counterRoles, Limits limits, String statsProvider) {
        super(FidClass.ENDPOINT, context);
        Objects.requireNonNull(limits, "limits");
        this.bindings = new EndpointBindings(engine, counterRoles);
        this.admission = new PostAdmission(limits);
        this.caps = limits.caps();
        this.txOpFlags = limits.txOpFlags() & ~Fi.FI_REMOTE_CQ_DATA;
        this.rxOpFlags = limits.rxOpFlags();
        this.rxTaggedOpFlags = rxOpFlags & ~Fi.FI_MULTI_RECV;
        this.stats = new EndpointCounters(getClass(), statsProvider);
        whenClosed(stats::closed);
    }

    /** Its live counters ({@code jofi stat}, JMX): posts by kind and posts refused with {@code -EAGAIN}. */
    public final CounterGroup counters() {
        return stats.group;
    }

    /**
     * Called by a provider's constructor whose funnels serialise posts with a lock: from now on
     * the funnels count each answer themselves, inside that lock, with the counters returned
     * (so that concurrent posters under {@code FI_THREAD_SAFE} lose no count: one writer at a
     * time), and this class no longer counts after them.
     */
    protected final EndpointCounters countPostsUnderLock() {
        postsCountedByProvider = true;
        return stats;
    }

    /** Counts a funnel's answer unless the provider counted it under its lock; returns it. */
    private int counted(int rc, io.jofi.spi.util.stats.StatsCounter posted) {
        return postsCountedByProvider ? rc : stats.count(rc, posted);
    }

    /** As {@link #counted(int, io.jofi.spi.util.stats.StatsCounter)}, with the post's bytes. */
    private int counted(int rc, io.jofi.spi.util.stats.StatsCounter posted, io.jofi.spi.util.stats.StatsCounter bytes,
                        long length) {
        return postsCountedByProvider ? rc : stats.count(rc, posted, bytes, length);
    }

    // =================================================================== the funnels

    /**
     * Every send: {@code send}, {@code sendData}, {@code inject}, {@code injectData},
     * {@code sendMsg} and their tagged twins. Checked already: caps, arguments, flags,
     * {@code length} against {@code maxMsgSize} and, with {@code FI_INJECT}, the inject size;
     * the transmit CQ when the operation reports (all but an {@code fi_inject*} call:
     * {@link PostChecks#reportsToCq}{@code (flags)}, the one rule for all providers).
     *
     * @param buf    the payload of a one-buffer call, or null
     * @param desc   its registration as the caller passed it ({@code desc}; null for an inject or a
     *               {@code *Msg} call, whose descriptors are in {@code msg})
     * @param msg    the message of a {@code *Msg} call (its first {@code msg.iovCount()} iovs), or null
     * @param length the payload's bytes
     * @param data   remote CQ data, meaningful when {@code flags} has {@code FI_REMOTE_CQ_DATA}
     * @return 0 or a negative errno
     */
    protected abstract int postSend(ByteBuffer buf, MemoryRegion desc, Msg msg, long length, long destAddr,
                                    boolean tagged, long tag, long data, long flags, Object context);

    /**
     * Every receive that posts a buffer: {@code recv}, {@code recvMsg}, {@code trecv}, and
     * {@code trecvMsg} without {@code FI_PEEK}/{@code FI_CLAIM}. Checked already: caps,
     * arguments, flags, the buffers' writability and size, {@code FI_MULTI_RECV}'s capability
     * and single iov, the receive CQ. {@code desc} is the one-buffer call's registration (null
     * for a {@code *Msg} call: its descriptors are in {@code msg}).
     *
     * @return 0 or a negative errno
     */
    protected abstract int postRecv(ByteBuffer buf, MemoryRegion desc, Msg msg, long srcAddr, boolean tagged,
                                    long tag, long ignore, long flags, Object context);

    /**
     * {@code trecvMsg} with {@code FI_PEEK} or {@code FI_CLAIM} (and {@code FI_DISCARD}): looks
     * at, claims or drops an unexpected tagged message. Checked as {@link #postRecv}.
     *
     * @return 0 or a negative errno ({@code -ENOMSG} for a claim without a message)
     */
    protected abstract int postPeek(TaggedMsg msg, long flags);

    /**
     * Every RMA: {@code read}, {@code readMsg}, {@code write}, {@code writeData},
     * {@code injectWrite}, {@code writeMsg}. Checked already: caps, arguments, flags, the local
     * {@code length} (a read's buffers writable and within {@code maxMsgSize}; a write's
     * within {@code maxMsgSize} and the inject size), a message's remote segments (count
     * within {@code [1, rmaIovLimit]}, adding up to {@code length}), the transmit CQ when it
     * reports.
     *
     * @param desc the one-buffer call's local registration (null for injects and {@code *Msg} calls)
     * @param addr the remote address of a one-buffer call (a message carries its segments)
     * @param key  the remote key of a one-buffer call
     * @return 0 or a negative errno
     */
    protected abstract int postRma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long length,
                                   long peerAddr, long addr, long key, long data, long flags, Object context);

    /**
     * Every atomic: {@code atomic} ({@code result} null), {@code fetchAtomic},
     * {@code compareAtomic} ({@code op} {@code FI_CSWAP}, {@code operand} the swap value).
     * Checked already: caps, the result buffer (writable, 8 bytes), the transmit CQ. Not
     * checked: whether the provider offers {@code op} ({@code -EOPNOTSUPP} is its answer) — but
     * a compare operation ({@code FI_CSWAP} … {@code FI_MSWAP}) through {@code atomic} or
     * {@code fetchAtomic} never reaches it: {@code -EOPNOTSUPP} here (fi_atomic(3): the compare
     * operations are {@code fi_compare_atomic}'s). {@code resultDesc} is the result buffer's
     * registration as the caller passed it.
     *
     * @return 0 or a negative errno
     */
    protected abstract int postAtomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc,
                                      long destAddr, long addr, long key, long flags, Object context);

    /**
     * How many elements of {@code datatype} one typed atomic of {@code op} and kind
     * {@code kind} (0, {@code FI_FETCH_ATOMIC}, {@code FI_COMPARE_ATOMIC}) may carry: the
     * domain's {@code queryAtomic} answer, or a negative errno. The default serves none; a
     * provider that overrides it overrides {@link #postTypedAtomic} too.
     */
    protected int typedAtomicCount(int datatype, int op, long kind) {
        return -Errno.EOPNOTSUPP;
    }

    /**
     * Every typed atomic (the buffer forms): checked already are caps, the pair and count
     * ({@link #typedAtomicCount}), {@code buf} / {@code compare} / {@code result} holding
     * {@code count} elements from their positions ({@code result} writable), the transmit CQ.
     *
     * @param kind 0, {@code Fi.FI_FETCH_ATOMIC} or {@code Fi.FI_COMPARE_ATOMIC}
     * @param buf  the operands, null for {@code FI_ATOMIC_READ}
     * @return 0 or a negative errno
     */
    protected int postTypedAtomic(long kind, int datatype, int op, int count, ByteBuffer buf, ByteBuffer compare,
                                  ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                                  long flags, Object context) {
        return -Errno.EOPNOTSUPP;
    }

    // =================================================================== bindings (control path)

    /**
     * {@code fi_ep_bind} with the rules of {@link EndpointBindings}; then {@link #onBind}.
     *
     * @throws FabricException as {@link EndpointBindings#bind}; {@code EBADF}/{@code ENODEV}
     *         when the endpoint is closed/departed
     */
    @Override
    public final void bind(Fid fid, long flags) throws FabricException {
        synchronized (this) {
            ensureOpen("bind");
            bindings.bind(fid, flags);
            txCq = bindings.txCq();
            rxCq = bindings.rxCq();
            selectiveTx = bindings.selectiveTx();
            selectiveRx = bindings.selectiveRx();
            eq = bindings.eq();
            av = bindings.av();
            boundCounters = BoundCounters.of(bindings);
            onBind(fid, flags);
        }
    }

    /**
     * What the provider does after a successful bind, under this object's monitor: copy the
     * bound objects into its data-path fields, hand the receive CQ to its receive side, ...
     * Must not fail: the binding has been made. The default does nothing.
     */
    protected void onBind(Fid fid, long flags) {
    }

    /** Ends binding (every later bind is {@code EOPBADSTATE}): call when the endpoint is enabled. */
    protected final void sealBindings() {
        synchronized (this) {
            bindings.seal();
        }
    }

    /**
     * Undoes every binding once ({@link EndpointBindings#releaseAll}): {@code closing} this
     * endpoint when it is closed, null on departure. The data-path copies stay (every call
     * answers from the endpoint's state first).
     */
    protected final void releaseBindings(Fid closing) {
        synchronized (this) {
            bindings.releaseAll(closing);
        }
    }

    /** The CQ bound with {@code FI_TRANSMIT}, or null. */
    protected final UtilCompletionQueue txCq() {
        return txCq;
    }

    /** The CQ bound with {@code FI_RECV}, or null. */
    protected final UtilCompletionQueue rxCq() {
        return rxCq;
    }

    /** Whether the transmit CQ was bound with {@code FI_SELECTIVE_COMPLETION}. */
    protected final boolean selectiveTx() {
        return selectiveTx;
    }

    /** Whether the receive CQ was bound with {@code FI_SELECTIVE_COMPLETION}. */
    protected final boolean selectiveRx() {
        return selectiveRx;
    }

    /** The bound EQ, or null. */
    protected final UtilEventQueue eq() {
        return eq;
    }

    /** The bound AV, or null. */
    protected final UtilAddressVector av() {
        return av;
    }

    /** The endpoint's capabilities ({@link Limits#caps()}). */
    protected final long caps() {
        return caps;
    }

    /**
     * The counter an operation counts on, by its completion flags (fi_cntr(3)): a receive
     * ({@code FI_RECV}) the receive counter; a send ({@code FI_SEND}) the send counter; a
     * target-side access ({@code FI_REMOTE_WRITE}, {@code FI_REMOTE_READ}) the remote
     * counters; an RMA read or fetching atomic ({@code FI_READ}) the read counter; an RMA
     * write or atomic ({@code FI_WRITE}) the write counter. Null when none is bound.
     */
    protected final UtilCounter counterFor(long completionFlags) {
        return boundCounters.forCompletion(completionFlags);
    }

    // =================================================================== the open check and the caps gate

    /** The open check, then the caps gate ({@link PostAdmission#gate}); 0 or the negative errno. */
    private int admit(long primary, long direction) {
        int rc = dataPathCheck();
        return rc != 0 ? rc : admission.gate(primary, direction);
    }

    private long txCompletion() {
        return selectiveTx ? 0 : Fi.FI_COMPLETION;
    }

    private long rxCompletion() {
        return selectiveRx ? 0 : Fi.FI_COMPLETION;
    }

    // =================================================================== messages (fi_msg(3), fi_tagged(3))

    @Override
    public final int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        return send(buf, desc, null, destAddr, false, 0, 0, txOpFlags | txCompletion(), context);
    }

    @Override
    public final int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return send(buf, desc, null, destAddr, false, 0, data, txOpFlags | Fi.FI_REMOTE_CQ_DATA | txCompletion(), context);
    }

    @Override
    public final int inject(ByteBuffer buf, long destAddr) {
        return send(buf, null, null, destAddr, false, 0, 0, INJECT_CALL_FLAGS, null);
    }

    @Override
    public final int injectData(ByteBuffer buf, long data, long destAddr) {
        return send(buf, null, null, destAddr, false, 0, data, INJECT_CALL_FLAGS | Fi.FI_REMOTE_CQ_DATA, null);
    }

    @Override
    public final int sendMsg(Msg msg, long flags) {
        int rc = sendMsgCheck(msg, flags, Fi.FI_MSG);
        return rc != 0 ? rc : send(null, null, msg, msg.addr(), false, 0, msg.data(), flags | txCompletion(), msg.context());
    }

    @Override
    public final int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        return send(buf, desc, null, destAddr, true, tag, 0, txOpFlags | txCompletion(), context);
    }

    @Override
    public final int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        return send(buf, desc, null, destAddr, true, tag, data, txOpFlags | Fi.FI_REMOTE_CQ_DATA | txCompletion(), context);
    }

    @Override
    public final int tinject(ByteBuffer buf, long destAddr, long tag) {
        return send(buf, null, null, destAddr, true, tag, 0, INJECT_CALL_FLAGS, null);
    }

    @Override
    public final int tsendMsg(TaggedMsg msg, long flags) {
        int rc = sendMsgCheck(msg, flags, Fi.FI_TAGGED);
        return rc != 0 ? rc : send(null, null, msg, msg.addr(), true, msg.tag(), msg.data(), flags | txCompletion(),
                msg.context());
    }

    /** A {@code *sendMsg}'s own checks (open, caps, message, flags) ahead of {@link #send}'s. */
    private int sendMsgCheck(Msg msg, long flags, long primary) {
        int rc = admit(primary, Fi.FI_SEND);
        return rc != 0 ? rc : admission.sendMessage(msg, flags);
    }

    /** Every send: the checks, then {@link #postSend}. */
    private int send(ByteBuffer buf, MemoryRegion desc, Msg msg, long destAddr, boolean tagged, long tag, long data,
                     long flags, Object context) {
        int rc = admit(tagged ? Fi.FI_TAGGED : Fi.FI_MSG, Fi.FI_SEND);
        if (rc != 0) {
            return rc;
        }
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        long length = admission.transmitLength(buf, msg, inject);
        if (length < 0) {
            return (int) length;
        }
        if (txCq == null && PostChecks.reportsToCq(flags)) {
            return -Errno.ENOCQ;
        }
        return counted(postSend(buf, desc, msg, length, destAddr, tagged, tag, data, flags, context),
                tagged ? stats.taggedSends : stats.sends, tagged ? stats.taggedSendBytes : stats.sendBytes, length);
    }

    @Override
    public final int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        long flags = rxOpFlags | rxCompletion();
        int rc = recvCheck(buf, null, Fi.FI_MSG, flags);
        // the op flags may ask a multi-receive the endpoint does not offer: -ENOSYS, as recvMsg's would
        rc = rc != 0 ? rc : admission.multiReceive(null, flags);
        return rc != 0 ? rc : counted(postRecv(buf, desc, null, srcAddr, false, 0, 0, flags, context), stats.receives);
    }

    @Override
    public final int recvMsg(Msg msg, long flags) {
        int rc = recvMsgCheck(msg, flags, Fi.FI_MSG, PostChecks.RECV_MSG_FLAGS);
        rc = rc != 0 ? rc : admission.multiReceive(msg, flags);
        rc = rc != 0 ? rc : recvCheck(null, msg, Fi.FI_MSG, flags);
        return rc != 0 ? rc : counted(postRecv(null, null, msg, msg.addr(), false, 0, 0, flags | rxCompletion(),
                msg.context()), stats.receives);
    }

    @Override
    public final int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        // a tagged receive is never a multi-receive: the op flags' FI_MULTI_RECV does not apply to it
        int rc = recvCheck(buf, null, Fi.FI_TAGGED, 0);
        return rc != 0 ? rc : counted(postRecv(buf, desc, null, srcAddr, true, tag, ignore,
                rxTaggedOpFlags | rxCompletion(), context), stats.taggedReceives);
    }

    @Override
    public final int trecvMsg(TaggedMsg msg, long flags) {
        int rc = recvMsgCheck(msg, flags, Fi.FI_TAGGED, PostChecks.TRECV_MSG_FLAGS);
        rc = rc != 0 ? rc : recvCheck(null, msg, Fi.FI_TAGGED, flags);
        if (rc != 0) {
            return rc;
        }
        if ((flags & (Fi.FI_PEEK | Fi.FI_CLAIM)) != 0) {
            return postPeek(msg, flags | rxCompletion());
        }
        return counted(postRecv(null, null, msg, msg.addr(), true, msg.tag(), msg.ignore(), flags | rxCompletion(),
                msg.context()), stats.taggedReceives);
    }

    /** A {@code *recvMsg}'s own checks (open, caps, message, iov count, flags) ahead of {@link #recvCheck}'s. */
    private int recvMsgCheck(Msg msg, long flags, long primary, long validFlags) {
        int rc = admit(primary, Fi.FI_RECV);
        return rc != 0 ? rc : admission.receiveMessage(msg, flags, validFlags);
    }

    /**
     * Every receive: open, caps, the landing buffers ({@link PostChecks#landing}, with
     * {@code flags} deciding the multi-receive exemption), the receive CQ.
     */
    private int recvCheck(ByteBuffer buf, Msg msg, long primary, long flags) {
        int rc = admit(primary, Fi.FI_RECV);
        rc = rc != 0 ? rc : admission.landing(buf, msg, flags);
        return rc != 0 || rxCq != null ? rc : -Errno.ENOCQ;
    }

    // =================================================================== RMA (fi_rma(3))

    @Override
    public final int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return rma(true, buf, desc, null, srcAddr, addr, key, 0, txOpFlags | txCompletion(), context);
    }

    @Override
    public final int readMsg(RmaMsg msg, long flags) {
        int rc = rmaMsgCheck(true, msg, flags, PostChecks.READ_MSG_FLAGS);
        return rc != 0 ? rc : rma(true, null, null, msg, msg.addr(), 0, 0, 0, flags | txCompletion(), msg.context());
    }

    @Override
    public final int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return rma(false, buf, desc, null, destAddr, addr, key, 0, txOpFlags | txCompletion(), context);
    }

    @Override
    public final int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                               Object context) {
        return rma(false, buf, desc, null, destAddr, addr, key, data, txOpFlags | Fi.FI_REMOTE_CQ_DATA | txCompletion(),
                context);
    }

    @Override
    public final int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        return rma(false, buf, null, null, destAddr, addr, key, 0, INJECT_CALL_FLAGS, null);
    }

    @Override
    public final int writeMsg(RmaMsg msg, long flags) {
        int rc = rmaMsgCheck(false, msg, flags, PostChecks.WRITE_MSG_FLAGS);
        return rc != 0 ? rc : rma(false, null, null, msg, msg.addr(), 0, 0, msg.data(), flags | txCompletion(),
                msg.context());
    }

    /** An RMA message's own checks (open, caps, message, remote segment count, flags) ahead of {@link #rma}'s. */
    private int rmaMsgCheck(boolean read, RmaMsg msg, long flags, long validFlags) {
        int rc = admit(Fi.FI_RMA, read ? Fi.FI_READ : Fi.FI_WRITE);
        return rc != 0 ? rc : admission.rmaMessage(msg, flags, validFlags);
    }

    /** Every RMA: the checks, then {@link #postRma}. */
    private int rma(boolean read, ByteBuffer buf, MemoryRegion desc, RmaMsg msg, long peerAddr, long addr, long key,
                    long data, long flags, Object context) {
        int rc = admit(Fi.FI_RMA, read ? Fi.FI_READ : Fi.FI_WRITE);
        if (rc != 0) {
            return rc;
        }
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        long length = admission.rmaLength(read, buf, msg, inject);
        if (length < 0) {
            return (int) length;
        }
        if (txCq == null && PostChecks.reportsToCq(flags)) {
            return -Errno.ENOCQ;
        }
        return counted(postRma(read, buf, desc, msg, length, peerAddr, addr, key, data, flags, context),
                read ? stats.reads : stats.writes, read ? stats.readBytes : stats.writeBytes, length);
    }

    // =================================================================== atomics (fi_atomic(3))

    @Override
    public final int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        return atomic(op, operand, 0, null, null, false, false, destAddr, addr, key, context);
    }

    @Override
    public final int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr,
                                 long key, int op, Object context) {
        return atomic(op, operand, 0, result, resultDesc, true, false, destAddr, addr, key, context);
    }

    @Override
    public final int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                                   long addr, long key, Object context) {
        return atomic(Fi.FI_CSWAP, swap, compare, result, resultDesc, true, true, destAddr, addr, key, context);
    }

    /** Every atomic: open, caps ({@code FI_WRITE} a plain one, {@code FI_READ} a fetching one), the result, the CQ. */
    private int atomic(int op, long operand, long compare, ByteBuffer result, MemoryRegion resultDesc, boolean fetch,
                       boolean compareCall, long destAddr, long addr, long key, Object context) {
        int rc = admit(Fi.FI_ATOMIC, fetch ? Fi.FI_READ : Fi.FI_WRITE);
        rc = rc != 0 ? rc : admission.atomic(op, result, fetch, compareCall);
        if (rc != 0) {
            return rc;
        }
        if (txCq == null) {
            return -Errno.ENOCQ;
        }
        return counted(postAtomic(op, operand, compare, result, resultDesc, destAddr, addr, key,
                txOpFlags | txCompletion(), context), stats.atomics);
    }

    @Override
    public final int atomic(ByteBuffer buf, int count, MemoryRegion desc, long destAddr, long addr, long key,
                            int datatype, int op, Object context) {
        return typedAtomic(0, buf, count, null, null, null, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public final int fetchAtomic(ByteBuffer buf, int count, MemoryRegion desc, ByteBuffer result,
                                 MemoryRegion resultDesc, long destAddr, long addr, long key, int datatype, int op,
                                 Object context) {
        return typedAtomic(Fi.FI_FETCH_ATOMIC, buf, count, null, result, resultDesc, destAddr, addr, key, datatype,
                op, context);
    }

    @Override
    public final int compareAtomic(ByteBuffer buf, int count, MemoryRegion desc, ByteBuffer compare,
                                   MemoryRegion compareDesc, ByteBuffer result, MemoryRegion resultDesc,
                                   long destAddr, long addr, long key, int datatype, int op, Object context) {
        return typedAtomic(Fi.FI_COMPARE_ATOMIC, buf, count, compare, result, resultDesc, destAddr, addr, key,
                datatype, op, context);
    }

    /** Every typed atomic: caps, the pair and count, the buffers' room, the CQ; then the provider's post. */
    private int typedAtomic(long kind, ByteBuffer buf, int count, ByteBuffer compare, ByteBuffer result,
                            MemoryRegion resultDesc, long destAddr, long addr, long key, int datatype, int op,
                            Object context) {
        int rc = admit(Fi.FI_ATOMIC, kind != 0 ? Fi.FI_READ : Fi.FI_WRITE);
        if (rc != 0) {
            return rc;
        }
        rc = admission.typedAtomic(kind, datatype, op, count, typedAtomicCount(datatype, op, kind), buf, compare,
                result);
        if (rc != 0) {
            return rc;
        }
        if (txCq == null) {
            return -Errno.ENOCQ;
        }
        ByteBuffer operands = op != Fi.FI_ATOMIC_READ ? buf : null;
        return counted(postTypedAtomic(kind, datatype, op, count, operands, compare, result, resultDesc, destAddr, addr,
                key, txOpFlags | txCompletion(), context), stats.atomics);
    }
}
