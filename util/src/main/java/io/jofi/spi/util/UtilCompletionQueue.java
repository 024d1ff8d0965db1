package io.jofi.spi.util;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.CqWaitCond;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.nio.ByteBuffer;

/**
 * The completion queue every provider uses (fi_cq(3), docs/API.md R1–R6, R9, R10, R15): providers
 * write completions into it from any number of threads, applications read them from any
 * number of threads. The storage is a bounded lock-free ring ({@link CompletionRing}: slots in
 * structure-of-arrays form, per-slot sequence numbers, credits); this class adds the queue's
 * rules on top: argument checks, error and overrun reporting, blocking through
 * {@link WaitSupport}, manual progress, close and departure.
 *
 * <p><b>Room (R6).</b> Every completion a posted operation will produce has its room taken
 * when the operation is posted ({@link #reserve()}); the write into that room
 * ({@link #complete}, {@link #completeError}) therefore never fails. Completions nobody
 * posted for ({@link #completeUnsolicited}) take room if there is any, else put the queue into
 * the overrun state for good. An overrun queue is done (fi_cq(3): "may not be used to report
 * additional completions"): reads return the valid entries written before, then
 * {@code -EOVERRUN}; {@link #reserve()} answers {@code -EOVERRUN}, so posts are refused; and
 * completions written after the overrun are not added.
 *
 * <p><b>States.</b> Open; departed (R15: the provider went away — entries stay readable,
 * producers may still flush, an empty queue answers {@code -ENODEV}); closed (R9: data-path
 * calls answer {@code -EBADF}, completions written later are dropped).
 *
 * <p>Data-path calls neither allocate nor take a lock (blocking reads lock only to sleep).
 */
public class UtilCompletionQueue extends AbstractFid implements CompletionQueue, Pollable, WaitSupport.Readiness {

    /** {@code size = 0} picks this many entries (R6). */
    public static final int DEFAULT_SIZE = 1024;
    /** The largest capacity a CQ may have (4 Mi entries, about 400 MiB of slots). */
    public static final int MAX_SIZE = 1 << 22;

    private final CompletionRing ring;
    private final WaitSupport waitSupport;
    private final CqAttr attr;
    private final boolean threshold;
    private final ErrorDescriber describer;
    /** strerror's text, and the error readErr handed out last (R3). */
    private final ErrorSentence errorSentence = new ErrorSentence();
    /**
     * False for {@code WaitObj.NONE}: nobody can block on such a queue (sread is ENOSYS, no FD,
     * no wait set; poll sets ask {@link #hasEvents()}), so producers skip the wake-up and its
     * full fence — one of the three atomic instructions a completion would otherwise cost.
     */
    private final boolean wakes;
    /** R6: set once by an unsolicited completion that found no room; never cleared. */
    private volatile boolean overrun;
    /** Its live counters, freed when it is closed. */
    private final CompletionCounters stats;
    /** Guards {@link #hostedFollower} against engines attaching and detaching meanwhile. */
    private final Object hostLock = new Object();
    /** The hosted engine its attached engines run after their passes ({@link #hostProgress}), or null. */
    private volatile ProgressEngine hostedFollower;

    /**
     * Opens a completion queue with the generic {@link #strerror}.
     *
     * @param attr    null means every default
     * @param context the application's context, returned by {@link #context()}
     * @throws FabricException {@code EINVAL} for a size below 0 or above {@link #MAX_SIZE}, flags
     *         other than {@code FI_AFFINITY}, or {@code WaitObj.SET} without a JOFI wait set;
     *         {@code EIO} when an FD wait object cannot be created
     */
    public UtilCompletionQueue(CqAttr attr, Object context) throws FabricException {
        this(attr, context, null);
    }

    /**
     * Opens a completion queue (fi_cq_open). Validates {@code attr}: size 0 → 1024 (R6);
     * capacity = the next power of two ≥ size, at most {@link #MAX_SIZE}, and
     * {@code attr().size()} reports it; format {@code UNSPEC} → {@code CONTEXT}; the wait object
     * as given; {@code CqWaitCond.THRESHOLD} allowed (R5); {@code FI_AFFINITY} with a signaling
     * vector is accepted and ignored (Java threads have no interrupt vector to follow); any
     * other flag → {@code EINVAL}. {@code WaitObj.SET} requires {@code attr.waitSet()}.
     *
     * @param describer the provider's strerror for {@code provErrno}/{@code errData}; null
     *                  gives the generic text
     * @throws FabricException as {@link #UtilCompletionQueue(CqAttr, Object)}
     */
    public UtilCompletionQueue(CqAttr attr, Object context, ErrorDescriber describer) throws FabricException {
        this(attr, context, describer, null);
    }

    /**
     * The same, its counters labelled with {@code statsProvider} ({@link UtilDomain#openCq}:
     * its fabric's provider); null labels them with the package of the code that opened it.
     */
    UtilCompletionQueue(CqAttr attr, Object context, ErrorDescriber describer, String statsProvider) throws FabricException {
        super(FidClass.CQ, context);
        CqAttr a = attr == null ? new CqAttr() : attr;
        long size = a.size();
        if (size < 0 || size > MAX_SIZE) {
            throw new FabricException(Errno.EINVAL, "CQ size " + size + " is out of range: use 0 (default "
                    + DEFAULT_SIZE + ") up to " + MAX_SIZE);
        }
        long unknown = a.flags() & ~Fi.FI_AFFINITY;
        if (unknown != 0) {
            throw new FabricException(Errno.EINVAL, "CQ flags 0x" + Long.toHexString(unknown)
                    + " are not supported: the only CQ flag is FI_AFFINITY");
        }
        int capacity = size == 0 ? DEFAULT_SIZE : nextPowerOfTwo((int) size);
        CqFormat format = a.format() == CqFormat.UNSPEC ? CqFormat.CONTEXT : a.format();
        WaitObj waitObj = a.waitObj() == null ? WaitObj.NONE : a.waitObj();

        this.attr = a.copy().size(capacity).format(format).waitObj(waitObj);
        this.threshold = a.waitCond() == CqWaitCond.THRESHOLD;
        this.describer = describer;
        this.waitSupport = WaitSupport.open(waitObj, a.waitSet());
        // its counters before the ring: the ring's producer index is its "completions written" counter
        this.stats = new CompletionCounters(io.jofi.spi.util.stats.StatsFileDescriptor.TYPE_COMPLETION_QUEUE,
                statsProvider != null ? CompletionCounters.owner(statsProvider, "CompletionQueue")
                        : io.jofi.spi.util.stats.CounterGroup.ownerLabel("CompletionQueue", UtilCompletionQueue.class),
                "completions");
        this.ring = new CompletionRing(capacity, ringFormat(format), stats.written);
        this.wakes = waitObj != WaitObj.NONE;
        try {
            waitSupport.attach(this);
        } catch (FabricException e) {
            waitSupport.close();
            stats.group.close();
            throw e;
        }
        whenClosed(stats.group::close);
    }

    /**
     * Its live counters ({@code jofi stat}, JMX): completions written, error completions by
     * errno class, the depth's high-water mark (room reserved or unread), overruns.
     */
    public final io.jofi.spi.util.stats.CounterGroup counters() {
        return stats.group;
    }

    /**
     * Counts one entry written — the ring's claim counted it already ("completions written"
     * is its producer index: exact with any number of writers) — by the depth now, the room
     * reserved or unread: a mark several writers raise, with a CAS only when it rises.
     */
    private void counted() {
        stats.depthHighWater.maxShared(ring.capacity() - ring.credits());
    }

    private static int nextPowerOfTwo(int size) {
        return size <= 1 ? 1 : Integer.highestOneBit(size - 1) << 1;
    }

    private static int ringFormat(CqFormat f) {
        switch (f) {
            case MSG:
                return CompletionRing.FORMAT_MSG;
            case DATA:
                return CompletionRing.FORMAT_DATA;
            case TAGGED:
                return CompletionRing.FORMAT_TAGGED;
            default:
                return CompletionRing.FORMAT_CONTEXT;
        }
    }

    // =================================================================== application side

    /**
     * {@code fi_cq_read} (R1, R2, R6): drives manual progress, then copies up to {@code count}
     * completions — only the fields of the queue's format, zeros for the others.
     *
     * @return the number read; {@code 0} for {@code count == 0} when entries wait (R1);
     *         {@code -EAVAIL} when an error completion is at the head (R2); {@code -EOVERRUN}
     *         when overrun and nothing valid is left (R6); {@code -ENODEV} when departed and
     *         empty (R15); {@code -EAGAIN} when empty; {@code -EINVAL} for a null {@code buf},
     *         {@code count < 0}, {@code count > buf.length} or a null entry within
     *         {@code count} (nothing consumed); {@code -EBADF} when closed
     */
    @Override
    public int read(CqEntry[] buf, int count) {
        return doRead(buf, count, null);
    }

    /**
     * {@code fi_cq_readfrom} (R10): as {@link #read}, and {@code srcAddr[i]} is the sender of
     * entry {@code i} as the provider wrote it ({@code Fi.FI_ADDR_NOTAVAIL} when unknown).
     * A null {@code srcAddr} or one shorter than {@code count} → {@code -EINVAL}.
     */
    @Override
    public int readFrom(CqEntry[] buf, int count, long[] srcAddr) {
        if (srcAddr == null || srcAddr.length < count) {
            return -Errno.EINVAL;
        }
        return doRead(buf, count, srcAddr);
    }

    private int doRead(CqEntry[] buf, int count, long[] srcAddr) {
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        int rc = checkEntries(buf, count);
        if (rc != 0) {
            return rc;
        }
        waitSupport.driveProgress(); // R1: every read drives manual progress
        return take(buf, count, srcAddr);
    }

    /** The non-blocking read proper, after the checks and the progress pass. */
    private int take(CqEntry[] buf, int count, long[] srcAddr) {
        int n = count == 0 ? ring.peekHead() : ring.read(buf, count, srcAddr);
        if (n > 0) {
            if (count == 0) {
                return 0; // R1: entries wait; nothing taken
            }
            // No peek on a CQ: every read may have emptied it, so the FD may stop being readable.
            waitSupport.afterRead();
            return n;
        }
        return nothingRead(n);
    }

    /** What a read that took nothing answers, in order of what the application must learn first. */
    private int nothingRead(int ringResult) {
        if (ringResult == CompletionRing.ERROR_AT_HEAD) {
            return -Errno.EAVAIL;
        }
        if (overrun) {
            return -Errno.EOVERRUN;
        }
        int s = state();
        // Closed while a blocking read waited: it must leave, not wait on a dead queue.
        return s == OPEN ? -Errno.EAGAIN : s == DEPARTED ? -Errno.ENODEV : -Errno.EBADF;
    }

    private static int checkEntries(CqEntry[] buf, int count) {
        if (buf == null || count < 0 || count > buf.length) {
            return -Errno.EINVAL;
        }
        for (int i = 0; i < count; i++) {
            if (buf[i] == null) {
                return -Errno.EINVAL;
            }
        }
        return 0;
    }

    /**
     * {@code fi_cq_readerr} (R2, R3, R6): takes the error completion at the head. The error
     * data follows {@link CqErrEntry#setError}: copied into the caller's buffer when it set
     * one, else the provider's array by reference (the provider handed it over, so it stays
     * valid). On an overrun queue with no error at the head, reports {@code err == EOVERRUN}
     * (on every call: the state lasts until close). fi_cq(3) defines no flags for it: any bit
     * is {@code -EBADFLAGS} and reads nothing ({@link PostChecks}, docs/ERRORS.md).
     *
     * @return 1; {@code -EAGAIN} when no error is at the head; {@code -ENODEV} when departed
     *         and empty; {@code -EINVAL} for a null {@code buf}; {@code -EBADFLAGS} for flags;
     *         {@code -EBADF} when closed
     */
    @Override
    public int readErr(CqErrEntry buf, long flags) {
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        if (buf == null) {
            return -Errno.EINVAL;
        }
        if (flags != PostChecks.CQ_READ_ERR_FLAGS) {
            return PostChecks.flags(flags, PostChecks.CQ_READ_ERR_FLAGS); // fi_cq(3) defines none: -EBADFLAGS
        }
        waitSupport.driveProgress();
        if (ring.readError(buf) == 1) {
            errorSentence.remember(buf.err(), buf.provErrno(), buf.errData());
            waitSupport.afterRead();
            return 1;
        }
        if (overrun) {
            buf.setAll(null, 0L, 0L, null, 0, 0L, 0L, 0L, Errno.EOVERRUN, 0, null, 0);
            errorSentence.remember(Errno.EOVERRUN, 0, buf.errData());
            return 1;
        }
        return state() == DEPARTED && ring.peekHead() == CompletionRing.EMPTY ? -Errno.ENODEV : -Errno.EAGAIN;
    }

    /**
     * {@code fi_cq_sread} (R4, R5): as {@link #read}, blocking until something is readable.
     * With {@code CqWaitCond.THRESHOLD}, {@code cond} entries are waited for (at most the
     * capacity; below 1 means 1); with {@code CqWaitCond.NONE} {@code cond} is ignored. On
     * timeout, {@link #signal()} or interrupt it returns what is there (up to {@code count}),
     * or {@code -EAGAIN} when nothing is; the interrupt status is kept. A negative timeout
     * waits forever.
     *
     * @return as {@link #read}; {@code -ENOSYS} at once for {@code WaitObj.NONE} and
     *         {@code WaitObj.SET}
     */
    @Override
    public int sread(CqEntry[] buf, int count, long cond, int timeoutMs) {
        return doSread(buf, count, null, cond, timeoutMs);
    }

    /** {@code fi_cq_sreadfrom}: {@link #sread} with sender addresses as {@link #readFrom} (R10). */
    @Override
    public int sreadFrom(CqEntry[] buf, int count, long[] srcAddr, long cond, int timeoutMs) {
        if (srcAddr == null || srcAddr.length < count) {
            return -Errno.EINVAL;
        }
        return doSread(buf, count, srcAddr, cond, timeoutMs);
    }

    private int doSread(CqEntry[] buf, int count, long[] srcAddr, long cond, int timeoutMs) {
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        int rc = checkEntries(buf, count);
        if (rc != 0) {
            return rc;
        }
        if (!waitSupport.canBlock()) {
            return -Errno.ENOSYS; // R4: never hang on a queue nobody can wake
        }
        final long want = threshold ? cond : 1L;
        final long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
        int waitMs = timeoutMs;
        while (true) {
            // await drives progress and returns 0 at once when the condition already holds.
            int waited = waitSupport.await(this, want, waitMs);
            int got = take(buf, count, srcAddr);
            if (waited != 0 || got != -Errno.EAGAIN) {
                // Ready, or timeout/signal/interrupt: what is there, else -EAGAIN (R4, R5).
                return got;
            }
            // Another reader took what woke us: wait again for the time that is left.
            if (deadline != Long.MAX_VALUE) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return -Errno.EAGAIN;
                }
                waitMs = (int) Math.max(1L, left / 1_000_000L);
            }
        }
    }

    /**
     * {@code fi_cq_signal} (R4): wakes blocked readers, which return {@code -EAGAIN};
     * remembered when none waits. With {@code WaitObj.SET} it wakes the wait set's waiters.
     *
     * @return 0; {@code -ENOSYS} without a wait object ({@code WaitObj.NONE}); {@code -EBADF} when closed
     */
    @Override
    public int signal() {
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        return waitSupport.signal();
    }

    /**
     * {@code fi_cq_strerror} (R3): the provider's describer sentence for a provider error
     * number when it gives one, else the libfabric text of {@code provErrno} — or, for
     * {@code provErrno == 0} (an {@code FI_SOURCE_ERR} entry, the overrun entry), of the
     * {@code err} of the entry {@link #readErr} handed out last with this error data — and the
     * error data's size and first bytes ({@link ErrorSentence}). Never errno 0's "Success".
     */
    @Override
    public String strerror(int provErrno, byte[] errData) {
        return errorSentence.describe(describer, provErrno, errData);
    }

    /**
     * {@code fi_control(FI_GETWAIT)}: {@code FD} → {@link WaitObject.Fd} (readable while
     * something is to be read, an error at the head or the overrun included);
     * {@code MUTEX_COND} → {@link WaitObject.MutexCond}.
     *
     * @throws FabricException {@code ENOSYS} for the other wait objects; {@code EBADF} when
     *         closed; {@code ENODEV} when departed
     */
    @Override
    public WaitObject getWait() throws FabricException {
        ensureOpen("getWait");
        return waitSupport.exportWait();
    }

    /** The attributes as opened with defaults filled in; {@code size()} is the capacity (R6). A copy. */
    @Override
    public CqAttr attr() {
        return attr.copy();
    }

    // =================================================================== provider side

    /**
     * Reserves room for the completion of an operation being posted (R6). Call before
     * accepting the post; follow with exactly one {@link #complete}/{@link #completeError}
     * (or {@link #unreserve()} if the post fails). Thread-safe.
     *
     * @return 0; {@code -EAGAIN} when the CQ could not hold the completion (the post returns
     *         it: the application reads and retries); {@code -EOVERRUN} once the CQ is overrun
     *         (R6: permanent, so not {@code -EAGAIN} — no read or retry can make room on a CQ
     *         that may report no more completions; the post returns it and nothing is queued);
     *         {@code -EBADF} when closed;
     *         {@code -ENODEV} when departed and full (while departing, a provider may still
     *         reserve room that is free, to flush {@code ECANCELED} completions, R15)
     */
    public int reserve() {
        int s = state();
        if (s == CLOSED) {
            return -Errno.EBADF;
        }
        if (overrun) {
            return -Errno.EOVERRUN;
        }
        if (ring.tryTakeCredit()) {
            return 0;
        }
        return s == DEPARTED ? -Errno.ENODEV : -Errno.EAGAIN;
    }

    /** Gives back a {@link #reserve()}d room whose post failed. */
    public void unreserve() {
        ring.returnCredits(1);
    }

    /**
     * Writes a successful completion into room taken by {@link #reserve()} and wakes readers.
     * Dropped when the CQ is closed (R9) or overrun (R6: an overrun CQ reports no additional
     * completion; its room is given back).
     *
     * @param srcAddr the sender's {@code fi_addr_t}, or {@code Fi.FI_ADDR_NOTAVAIL} (R10)
     */
    public void complete(Object context, long flags, long len, ByteBuffer buf, int bufOffset, long data, long tag,
                         long srcAddr) {
        if (refusesReserved()) {
            return;
        }
        ring.write(context, flags, len, buf, bufOffset, data, tag, srcAddr);
        counted();
        wakeReaders();
    }

    /**
     * As {@link #complete} without waking readers: for producers that write a batch and then
     * call {@link #wakeReaders()} once.
     */
    public void completeDeferred(Object context, long flags, long len, ByteBuffer buf, int bufOffset, long data,
                                 long tag, long srcAddr) {
        if (refusesReserved()) {
            return;
        }
        ring.write(context, flags, len, buf, bufOffset, data, tag, srcAddr);
        counted();
    }

    /**
     * Publishes {@code n} successful completions a {@link CompletionBatch} staged into room
     * taken by {@link #reserve()}: one claim, one depth mark, one wake. Dropped, their room
     * given back, as {@link #complete} drops one.
     */
    void completeBatch(CompletionBatch batch, int n) {
        if (refusesReserved(n)) {
            return;
        }
        ring.writeBatch(batch, n);
        counted();
        wakeReaders();
    }

    /** Wakes readers after a batch of {@link #completeDeferred} writes. */
    public void wakeReaders() {
        ProgressEngine follower = hostedFollower;
        if (follower != null) {
            // a completion written inside the follower's own pass (a send it posted that the core
            // completed at once) comes after that pass's read: the pass must look again
            follower.passWanted();
        }
        if (wakes) {
            waitSupport.notifyReady();
        }
    }

    /**
     * Writes an error completion into room taken by {@link #reserve()} and wakes readers
     * (R2). {@code errData} is kept by reference (R3): the provider hands it over and never
     * reuses it. An {@code err} of 0 (a provider bug: an error without a cause) is reported as
     * {@code FI_EOTHER}; a negative one as its absolute value. Dropped as {@link #complete} is.
     */
    public void completeError(Object context, long flags, long len, ByteBuffer buf, int bufOffset, long data, long tag,
                              long olen, int err, int provErrno, byte[] errData, int errDataSize, long srcAddr) {
        if (refusesReserved()) {
            return;
        }
        ring.writeError(context, flags, len, buf, bufOffset, data, tag, olen, errnoOf(err), provErrno, errData,
                errDataSize, srcAddr);
        counted();
        stats.sharedError(errnoOf(err));
        wakeReaders();
    }

    /**
     * A completion nobody reserved room for (remote CQ data of an RMA write, an unexpected
     * event): takes room if there is any; else the CQ enters the overrun state for good (R6)
     * and readers are woken to learn it. Once overrun, nothing more is queued.
     *
     * @return true when queued; false when it was not (overrun, or the CQ is closed)
     */
    public boolean completeUnsolicited(Object context, long flags, long len, ByteBuffer buf, int bufOffset, long data,
                                       long tag, long srcAddr) {
        if (!takeUnsolicitedRoom()) {
            return false;
        }
        ring.write(context, flags, len, buf, bufOffset, data, tag, srcAddr);
        counted();
        wakeReaders();
        return true;
    }

    /** The error form of {@link #completeUnsolicited}; {@code errData} as {@link #completeError}. */
    public boolean completeUnsolicitedError(Object context, long flags, long len, ByteBuffer buf, int bufOffset,
                                            long data, long tag, long olen, int err, int provErrno, byte[] errData,
                                            int errDataSize, long srcAddr) {
        if (!takeUnsolicitedRoom()) {
            return false;
        }
        ring.writeError(context, flags, len, buf, bufOffset, data, tag, olen, errnoOf(err), provErrno, errData,
                errDataSize, srcAddr);
        counted();
        stats.sharedError(errnoOf(err));
        wakeReaders();
        return true;
    }

    /**
     * Whether a reserved completion is not written: the CQ is closed (R9), or overrun (R6,
     * fi_cq(3): no additional completions) — then its reserved room is given back. A
     * completion racing with the overrun may still land; it was produced before the producer
     * could learn of it.
     */
    private boolean refusesReserved() {
        return refusesReserved(1);
    }

    /** {@link #refusesReserved()} for {@code n} reserved completions. */
    private boolean refusesReserved(int n) {
        if (state() == CLOSED) {
            return true;
        }
        if (overrun) {
            ring.returnCredits(n);
            return true;
        }
        return false;
    }

    private boolean takeUnsolicitedRoom() {
        if (state() == CLOSED) {
            return false;
        }
        if (overrun) {
            return false; // R6: an overrun CQ takes nothing more, even where reads made room
        }
        if (ring.tryTakeCredit()) {
            return true;
        }
        overrun = true;
        stats.overruns.addShared();
        io.jofi.spi.util.stats.FabricEvents.queueOverrun(stats.group.owner(), ring.capacity());
        waitSupport.notifyReady(); // readers and the FD must learn of the overrun
        return false;
    }

    private static int errnoOf(int err) {
        return err == 0 ? Errno.FI_EOTHER : Math.abs(err);
    }

    /**
     * An endpoint bound to this CQ brings its progress engine, so that reads drive manual
     * progress (R1). Bind counting for {@code EBUSY} (R9) is {@link #retain()}/{@link #release()}.
     */
    public void attachProgress(ProgressEngine engine) {
        synchronized (hostLock) {
            waitSupport.addEngine(engine);
            if (hostedFollower != null) {
                engine.host(hostedFollower);
            }
        }
    }

    /** Undoes {@link #attachProgress}. */
    public void detachProgress(ProgressEngine engine) {
        synchronized (hostLock) {
            waitSupport.removeEngine(engine);
            if (hostedFollower != null) {
                engine.unhost(hostedFollower);
            }
        }
    }

    /**
     * Progress on publish: every engine attached to this queue, now and later, runs
     * {@code follower} ({@link ProgressEngine#hosted}) on its own thread after each of its passes —
     * the passes that publish into this queue — once its step has let go of its locks. A layered
     * provider that reads this queue (rxm over a core's MSG CQ) so handles the core's completions on
     * the core's progress thread, with no thread of its own in between (docs/API.md, Progress).
     * Completions written here by threads that are no host (an application's thread, inside a post)
     * are the follower's owner's to run it for ({@link ProgressEngine#follow()}). Set once.
     *
     * @throws IllegalStateException when a follower is set already
     */
    public void hostProgress(ProgressEngine follower) {
        synchronized (hostLock) {
            if (hostedFollower != null) {
                throw new IllegalStateException("this completion queue hosts a follower already");
            }
            ProgressEngine[] es = waitSupport.engines();
            for (int i = 0; i < es.length; i++) {
                es[i].host(follower);
            }
            hostedFollower = follower;
        }
    }

    /** Whether an unsolicited completion found the CQ full (R6); lasts until close. */
    public boolean isOverrun() {
        return overrun;
    }

    /** How many completions the CQ holds: a power of two, {@code attr().size()} (R6). */
    public int capacity() {
        return ring.capacity();
    }

    // =================================================================== wait and poll

    /**
     * Readiness for {@link WaitSupport}: {@code arg} completions published (R5; 1 for a plain
     * wait), an error at the head, the overrun state, or a state in which reads answer at
     * once (departed: entries or {@code -ENODEV}; closed: {@code -EBADF}).
     */
    @Override
    public boolean isReady(long arg) {
        return ring.hasAtLeast(arg) || overrun || state() != OPEN;
    }

    /** The wait object support (for poll sets, wait sets and {@code fi_trywait}). */
    @Override
    public WaitSupport waitSupport() {
        return waitSupport;
    }

    /** Drives manual progress once; true when a read would return an entry, {@code -EAVAIL} or {@code -EOVERRUN}. */
    @Override
    public boolean hasEvents() {
        waitSupport.driveProgress();
        return ring.peekHead() != CompletionRing.EMPTY || overrun;
    }

    // =================================================================== life cycle

    /** R9: the wait object is closed (waiters return) and the completions left are lost. */
    @Override
    protected void onClose() {
        waitSupport.close();
        ring.clearReferences();
    }

    /**
     * R15: wakes every waiter and raises the FD; entries stay readable and, once they are
     * drained, reads answer {@code -ENODEV}.
     */
    @Override
    protected void onDeparture() {
        waitSupport.notifyReady();
    }

    @Override
    protected String describe() {
        return "completion queue";
    }
}
