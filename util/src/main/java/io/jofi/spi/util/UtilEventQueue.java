package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.WaitObject;
import java.util.concurrent.TimeUnit;

/**
 * The event queue every provider uses ({@code fi_eq}, fi_eq(3)): a bounded ring of events and
 * error events, filled by providers through {@link #post} and {@link #postError} (any thread)
 * and by the application through {@link #write} (R8), read by the application one event per
 * call.
 *
 * <p>Rules it implements (docs/API.md):
 * <ul>
 * <li><b>R1</b> an empty queue reads {@code -EAGAIN}; an error event at the head makes
 *     {@link #read} return {@code -EAVAIL} until {@link #readErr} takes it; {@code readErr}
 *     without an error at the head returns {@code -EAGAIN}.</li>
 * <li><b>R3</b> error data is copied into the caller's buffer when
 *     {@link EqErrEntry#errData(byte[])} gave one, else handed out as an array the queue
 *     owns and never changes (so it stays valid past the next read).</li>
 * <li><b>R4</b> {@link #sread} returns {@code -ENOSYS} at once with {@code WaitObj.NONE} or
 *     {@code SET}; a timeout or an interrupt of the waiting thread with nothing to read gives
 *     {@code -EAGAIN}; a negative timeout waits forever.</li>
 * <li><b>R7</b> the queue holds exactly {@code attr().size()} events (0 asks for 1024, R6).
 *     A post or write to a full queue puts it into the overrun state: that one and every
 *     later one return {@code -EOVERRUN}; reads return every queued event, then
 *     {@code -EOVERRUN}; {@link #readErr} then returns an entry with
 *     {@code err == EOVERRUN} (each time: the state lasts until close, fi_eq(3) NOTES).</li>
 * <li><b>R8</b> {@link #write} needs {@code Fi.FI_WRITE} in the attributes, else
 *     {@code -ENOSYS}; the payload is copied at write time. {@code FI_PEEK} returns the head
 *     without removing it and keeps the FD readable.</li>
 * <li><b>R9</b> closing while bound ({@link #retain()}) throws {@code EBUSY}; events left at
 *     close are lost (fi_eq(3) fi_close).</li>
 * <li><b>R15</b> after the provider departed the queue stays readable until empty, then reads
 *     return {@code -ENODEV}; providers may still post (they queue {@code FI_SHUTDOWN} while
 *     departing); application writes return {@code -ENODEV}. Closed: {@code -EBADF}.</li>
 * </ul>
 *
 * <p>Flags: {@link #read} and {@link #sread} accept 0 or {@code Fi.FI_PEEK};
 * {@link #readErr} and {@link #write} accept 0. Any other bit gives {@code -EBADFLAGS}, the
 * answer every call gives a flag it does not take ({@link PostChecks}, docs/ERRORS.md); a
 * null entry is {@code -EINVAL}.
 *
 * <p>Not a hot path: one monitor guards the ring. Reads allocate nothing (the caller's entry
 * is filled in place; slots are reused). A payload is copied at post time into the slot's
 * own exact-length store, reused while sizes repeat; a read hands that store to the
 * application and takes back the one handed out by the previous read, so a payload stays
 * valid until the next read on this queue (the R3 rule for err_data) and a steady stream of
 * events allocates nothing. Error data (rare) is copied into a fresh exact-length array the
 * reader receives by reference.
 */
public class UtilEventQueue extends AbstractFid implements EventQueue, Pollable, WaitSupport.Readiness {

    /** {@code size = 0} picks this (R6). */
    public static final int DEFAULT_SIZE = 1024;
    /** The largest size accepted; docs/API.md asks for at least 65 536. */
    public static final int MAX_SIZE = 1 << 20;

    private static final long READ_FLAGS = PostChecks.EQ_READ_FLAGS;
    private static final long ATTR_FLAGS = Fi.FI_WRITE | Fi.FI_AFFINITY;
    private static final byte[] EMPTY = new byte[0];

    /** One queued event or error event; reused once read. */
    private static final class Slot {
        boolean error;
        int event;
        Fid fid;
        Object context;
        long data;
        Info info;
        /**
         * The slot's payload store, kept across uses so that a steady stream of same-sized
         * payloads copies without allocating; handed to the reader by a swap (see
         * {@link UtilEventQueue#spare}).
         */
        byte[] payload;
        boolean hasPayload;
        int payloadLength;
        int err;
        int provErrno;
        byte[] errData;
        int errDataSize;

        void clear() {
            fid = null;
            context = null;
            info = null;
            hasPayload = false;
            errData = null;
        }
    }

    private final EqAttr attr;
    /**
     * The payload array handed to the application by the previous read. A read gives the
     * application the slot's store and puts this one into the slot, so a handed-out payload
     * stays valid until the next read on this queue (as R3 says of err_data) and nothing is
     * allocated per event while payload sizes repeat. Guarded by {@code ringLock}.
     */
    private byte[] spare;
    private final boolean writable;
    private final ErrorDescriber describer;
    /** strerror's text, and the error readErr handed out last (R3). */
    private final ErrorSentence errorSentence = new ErrorSentence();
    private final WaitSupport waitSupport;
    /** What a blocked {@link #sread} waits for: something to read, or the queue shut down. */
    private final WaitSupport.Readiness blockingReadiness;

    private final Object ringLock = new Object();
    /** Its live counters, written under {@code ringLock} (one writer at a time), freed when it is closed. */
    private final CompletionCounters stats;
    private final Slot[] ring;
    private int head;
    /** Written under {@link #ringLock}; volatile so that readiness checks need no lock. */
    private volatile int count;
    private volatile boolean overrun;

    /**
     * Opens an event queue with the generic {@link #strerror}.
     *
     * @param attr    {@code null} for defaults; see {@link #UtilEventQueue(EqAttr, Object, ErrorDescriber)}
     * @param context the application's context, returned by {@link #context()}
     */
    public UtilEventQueue(EqAttr attr, Object context) throws FabricException {
        this(attr, context, null);
    }

    /**
     * Opens an event queue.
     *
     * @param attr      {@code null} for defaults; {@code size} 0 means 1024 (R6), negative or
     *                  above {@link #MAX_SIZE} is {@code EINVAL}; {@code flags} may hold
     *                  {@code FI_WRITE} and {@code FI_AFFINITY} only, else {@code EINVAL};
     *                  {@code waitObj SET} needs a JOFI wait set ({@code EINVAL})
     * @param context   the application's context
     * @param describer the provider's {@link #strerror} helper, or {@code null}
     * @throws FabricException {@code EINVAL} for bad attributes (nothing is opened then),
     *                         {@code EIO} when an FD wait object cannot be made
     */
    public UtilEventQueue(EqAttr attr, Object context, ErrorDescriber describer) throws FabricException {
        this(attr, context, describer, null);
    }

    /**
     * The same, its counters labelled with {@code statsProvider} ({@link UtilFabric#openEq}: its
     * provider); null labels them with the package of the code that opened it.
     */
    UtilEventQueue(EqAttr attr, Object context, ErrorDescriber describer, String statsProvider) throws FabricException {
        super(FidClass.EQ, context);
        EqAttr a = attr == null ? new EqAttr() : attr.copy();
        if (a.size() < 0 || a.size() > MAX_SIZE) {
            throw new FabricException(Errno.EINVAL, "event queue size " + a.size()
                    + " is out of range: use 0 (default " + DEFAULT_SIZE + ") to " + MAX_SIZE);
        }
        if ((a.flags() & ~ATTR_FLAGS) != 0) {
            throw new FabricException(Errno.EINVAL, "event queue flags 0x" + Long.toHexString(a.flags() & ~ATTR_FLAGS)
                    + " are not supported: only FI_WRITE and FI_AFFINITY are");
        }
        if (a.size() == 0) {
            a.size(DEFAULT_SIZE);
        }
        this.attr = a;
        this.writable = (a.flags() & Fi.FI_WRITE) != 0;
        this.describer = describer;
        // Slots are created on first use: a large, mostly idle queue costs only its reference array.
        this.ring = new Slot[(int) a.size()];
        this.blockingReadiness = arg -> count > 0 || overrun || state() != OPEN;
        this.waitSupport = WaitSupport.open(a.waitObj(), a.waitSet());
        // Fails only for a wait set closed meanwhile (SET has no pipe, so nothing leaks);
        // closing waitSupport here would release a binding the set never counted.
        waitSupport.attach(this);
        this.stats = new CompletionCounters(io.jofi.spi.util.stats.StatsFileDescriptor.TYPE_EVENT_QUEUE,
                statsProvider != null ? CompletionCounters.owner(statsProvider, "EventQueue")
                        : io.jofi.spi.util.stats.CounterGroup.ownerLabel("EventQueue", UtilEventQueue.class), "events");
        whenClosed(stats.group::close);
    }

    /** Its live counters ({@code jofi stat}, JMX): events written, error events by errno class, depth high-water mark, overruns. */
    public final io.jofi.spi.util.stats.CounterGroup counters() {
        return stats.group;
    }

    // ---------------------------------------------------------------- provider side

    /**
     * Queues an event (thread-safe). The payload's first {@code payloadLength} bytes are
     * copied; {@code info} is kept by reference.
     *
     * @return 1; {@code -EOVERRUN} when the queue is full or already overrun (R7);
     *         {@code -EINVAL} for a length that does not fit the array; {@code -EBADF} after close.
     *         Accepted after departure (R15).
     */
    public int post(int event, Fid fid, Object context, long data, Info info, byte[] payload, int payloadLength) {
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        return enqueue(event, fid, context, data, info, payload, payloadLength);
    }

    /**
     * Queues an error event (thread-safe); e.g. a reject (R14): {@code err = ECONNREFUSED},
     * {@code errData} the reject data. The first {@code errDataSize} bytes are copied.
     *
     * @param err a positive {@link Errno} value
     * @return 1; {@code -EOVERRUN} (R7); {@code -EINVAL} for {@code err <= 0} or a size that
     *         does not fit; {@code -EBADF} after close
     */
    public int postError(Fid fid, Object context, long data, int err, int provErrno, byte[] errData, int errDataSize) {
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        if (err <= 0 || errDataSize < 0 || (errData == null ? errDataSize != 0 : errDataSize > errData.length)) {
            return -Errno.EINVAL;
        }
        byte[] copy = copyOf(errData, errDataSize);
        synchronized (ringLock) {
            int rc = reserveLocked();
            if (rc != 0) {
                return rc;
            }
            Slot s = tailSlotLocked();
            s.error = true;
            s.event = 0;
            s.fid = fid;
            s.context = context;
            s.data = data;
            s.info = null;
            s.hasPayload = false;
            s.payloadLength = 0;
            s.err = err;
            s.provErrno = provErrno;
            s.errData = copy;
            s.errDataSize = errDataSize;
            count = count + 1;
            stats.written.increment();
            stats.error(err);
            stats.depthHighWater.max(count);
        }
        waitSupport.notifyReady();
        return 1;
    }

    /**
     * Removes every queued event and error event whose {@code fid} is {@code fid} (by
     * identity), keeping the order of the others — fi_eq(3): events of a closed endpoint are
     * removed.
     *
     * @return how many were removed ({@code 0} for {@code null})
     */
    public int removeEventsOf(Fid fid) {
        if (fid == null) {
            return 0;
        }
        int removed = 0;
        synchronized (ringLock) {
            int n = count;
            int cap = ring.length;
            int kept = 0;
            for (int i = 0; i < n; i++) {
                int from = (head + i) % cap;
                Slot s = ring[from];
                if (s.fid == fid) {
                    s.clear();
                    removed++;
                } else {
                    if (kept != i) {
                        // Positions kept..i-1 hold removed slots: swap, so no slot object is lost.
                        int to = (head + kept) % cap;
                        ring[from] = ring[to];
                        ring[to] = s;
                    }
                    kept++;
                }
            }
            count = kept;
        }
        if (removed > 0) {
            waitSupport.afterRead();
        }
        return removed;
    }

    /** Adds a manual-progress engine that reads of this queue must drive. */
    public void attachProgress(ProgressEngine engine) {
        waitSupport.addEngine(engine);
        engine.eventQueueAttached(this); // a failure of that progress is reported here
    }

    /** Removes an engine added with {@link #attachProgress}. */
    public void detachProgress(ProgressEngine engine) {
        waitSupport.removeEngine(engine);
        engine.eventQueueDetached(this);
    }

    /** Whether a post or write found the queue full (R7); lasts until close. */
    public boolean isOverrun() {
        return overrun;
    }

    // ---------------------------------------------------------------- application side

    /**
     * {@code fi_eq_read}: fills {@code entry} with the head event and removes it, or with
     * {@code FI_PEEK} leaves it queued (and the FD readable, R8).
     *
     * @return 1; {@code -EAGAIN} empty (R1); {@code -EAVAIL} an error event at the head;
     *         {@code -EOVERRUN} empty and overrun (R7); {@code -ENODEV} empty and departed
     *         (R15); {@code -EBADF} closed; {@code -EINVAL} null entry; {@code -EBADFLAGS}
     *         flags other than {@code FI_PEEK}
     */
    @Override
    public int read(EqEntry entry, long flags) {
        return read(entry, flags, null);
    }

    /**
     * As {@link #read}, for a reader that reads {@code cq} right after (a layered provider's pass
     * over its MSG queues): the progress driven is only that of the engines {@code cq}'s read does
     * not drive anyway ({@link WaitSupport#driveProgressBesides}), so that one pass drives the core
     * once, not twice. What that read's progress posts here is read by the reader's next call.
     */
    public int readBefore(UtilCompletionQueue cq, EqEntry entry, long flags) {
        return read(entry, flags, cq.waitSupport());
    }

    private int read(EqEntry entry, long flags, WaitSupport drivenNext) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        if ((flags & ~READ_FLAGS) != 0) {
            return -Errno.EBADFLAGS;
        }
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        if (drivenNext == null) {
            waitSupport.driveProgress();
        } else {
            waitSupport.driveProgressBesides(drivenNext);
        }
        boolean peek = (flags & Fi.FI_PEEK) != 0;
        synchronized (ringLock) {
            if (count == 0) {
                return emptyAnswerLocked();
            }
            Slot s = ring[head];
            if (s.error) {
                return -Errno.EAVAIL;
            }
            entry.event(s.event).fid(s.fid).context(s.context).data(s.data).info(s.info)
                    .payload(s.hasPayload ? s.payload : null).payloadLength(s.payloadLength);
            if (!peek) {
                if (s.hasPayload) {
                    byte[] handed = s.payload;
                    s.payload = spare;
                    spare = handed;
                }
                removeHeadLocked(s);
            }
        }
        if (!peek) {
            waitSupport.afterRead();
        }
        return 1;
    }

    /**
     * {@code fi_eq_readerr}: takes the error event at the head (R1, R3 copy rule).
     *
     * @return 1; {@code -EAGAIN} when no error event is at the head; on an overrun queue with
     *         nothing left, 1 with {@code err == EOVERRUN} and {@code fid} this queue (R7);
     *         {@code -ENODEV} empty and departed; {@code -EBADF} closed; {@code -EINVAL} null
     *         entry; {@code -EBADFLAGS} non-zero flags
     */
    @Override
    public int readErr(EqErrEntry entry, long flags) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        if (flags != PostChecks.EQ_NO_FLAGS) {
            return -Errno.EBADFLAGS;
        }
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        waitSupport.driveProgress();
        synchronized (ringLock) {
            if (count == 0) {
                if (overrun) {
                    entry.set(this, context(), 0L, Errno.EOVERRUN, 0, null, 0);
                    errorSentence.remember(Errno.EOVERRUN, 0, entry.errData());
                    return 1;
                }
                return state() == DEPARTED ? -Errno.ENODEV : -Errno.EAGAIN;
            }
            Slot s = ring[head];
            if (!s.error) {
                return -Errno.EAGAIN;
            }
            entry.set(s.fid, s.context, s.data, s.err, s.provErrno, s.errData, s.errDataSize);
            errorSentence.remember(s.err, s.provErrno, entry.errData());
            removeHeadLocked(s);
        }
        waitSupport.afterRead();
        return 1;
    }

    /**
     * {@code fi_eq_write} (R8): queues the entry's event code, fid, context, data, info and the
     * first {@code payloadLength()} bytes of its payload (copied now: the caller may reuse
     * its array at once).
     *
     * @return 1; {@code -ENOSYS} without {@code FI_WRITE}; {@code -EOVERRUN} (R7);
     *         {@code -EINVAL} null entry or a payload length that does not fit its array;
     *         {@code -EBADFLAGS} non-zero flags; {@code -ENODEV} departed; {@code -EBADF} closed
     */
    @Override
    public int write(EqEntry entry, long flags) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (entry == null) {
            return -Errno.EINVAL;
        }
        if (flags != PostChecks.EQ_NO_FLAGS) {
            return -Errno.EBADFLAGS;
        }
        if (!writable) {
            return -Errno.ENOSYS;
        }
        return enqueue(entry.event(), entry.fid(), entry.context(), entry.data(), entry.info(),
                entry.payload(), entry.payloadLength());
    }

    /**
     * {@code fi_eq_sread}: {@link #read}, blocking up to {@code timeoutMs} (negative: forever)
     * while the queue is empty (R4).
     *
     * @return as {@link #read}; {@code -ENOSYS} at once with {@code WaitObj.NONE}/{@code SET};
     *         {@code -EAGAIN} on timeout or interrupt (the interrupt status is kept);
     *         {@code -EBADF} when closed meanwhile
     */
    @Override
    public int sread(EqEntry entry, int timeoutMs, long flags) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        if ((flags & ~READ_FLAGS) != 0) {
            return -Errno.EBADFLAGS;
        }
        if (state() == CLOSED) {
            return -Errno.EBADF;
        }
        if (!waitSupport.canBlock()) {
            return -Errno.ENOSYS;
        }
        final long deadline = timeoutMs < 0 ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            int rc = read(entry, flags);
            if (rc != -Errno.EAGAIN) {
                return rc;
            }
            int waitMs;
            if (deadline == Long.MAX_VALUE) {
                waitMs = -1;
            } else {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return -Errno.EAGAIN;
                }
                // Round up: a sub-millisecond remainder must still wait, not spin.
                waitMs = (int) Math.min(Integer.MAX_VALUE, (remaining + 999_999) / 1_000_000);
            }
            rc = waitSupport.await(blockingReadiness, 0L, waitMs);
            if (rc != 0) {
                return state() == CLOSED ? -Errno.EBADF : rc;
            }
            // Ready: loop to read; another reader may have taken the event first.
        }
    }

    /**
     * {@code fi_eq_strerror} (R3): the provider's {@link ErrorDescriber} sentence for a provider
     * error number if it gives one, else the {@link Errno#strerror} text of {@code provErrno} —
     * or, for {@code provErrno == 0} (a reject, the overrun entry), of the {@code err} of the
     * entry {@link #readErr} handed out last with this error data — followed by the error
     * data's size and first bytes in hex ({@link ErrorSentence}). Never errno 0's "Success".
     */
    @Override
    public String strerror(int provErrno, byte[] errData) {
        return errorSentence.describe(describer, provErrno, errData);
    }

    /** {@code fi_control(FI_GETWAIT)}: the FD channel or mutex/condition; else {@code ENOSYS}. */
    @Override
    public WaitObject getWait() throws FabricException {
        ensureOpen("getWait");
        return waitSupport.exportWait();
    }

    /** A copy of the attributes as opened, {@code size} filled in (the number of events held). */
    @Override
    public EqAttr attr() {
        return attr.copy();
    }

    // ---------------------------------------------------------------- Pollable / Readiness

    @Override
    public WaitSupport waitSupport() {
        return waitSupport;
    }

    /** Drives progress, then: something to read (an event, an error event or the overrun). */
    @Override
    public boolean hasEvents() {
        waitSupport.driveProgress();
        return count > 0 || overrun;
    }

    /**
     * Wait-object readiness (FD, wait sets): an event, an error event, the overrun (R7), or a
     * state in which reads answer at once (departed: {@code -ENODEV}, R15) — as the CQ's, so
     * that the FD of a drained, departed queue does not fall silent. {@code arg} is unused.
     */
    @Override
    public boolean isReady(long arg) {
        return count > 0 || overrun || state() != OPEN;
    }

    // ---------------------------------------------------------------- life cycle

    @Override
    protected void onClose() {
        waitSupport.close();
        synchronized (ringLock) {
            // Events left at close are lost (fi_eq(3)); drop their references.
            for (Slot s : ring) {
                if (s != null) {
                    s.clear();
                }
            }
            count = 0;
        }
    }

    /** Wakes blocked readers, which then drain the queue and get {@code -ENODEV} (R15). */
    @Override
    protected void onDeparture() {
        waitSupport.notifyReady();
    }

    @Override
    protected String describe() {
        return "event queue";
    }

    // ---------------------------------------------------------------- internals

    private int enqueue(int event, Fid fid, Object context, long data, Info info, byte[] payload, int payloadLength) {
        if (payloadLength < 0 || (payload == null ? payloadLength != 0 : payloadLength > payload.length)) {
            return -Errno.EINVAL;
        }
        synchronized (ringLock) {
            int rc = reserveLocked();
            if (rc != 0) {
                return rc;
            }
            Slot s = tailSlotLocked();
            s.error = false;
            s.event = event;
            s.fid = fid;
            s.context = context;
            s.data = data;
            s.info = info;
            if (payload != null) {
                // Exactly payloadLength long (R14: never padded); reused when the size repeats.
                byte[] store = s.payload;
                if (store == null || store.length != payloadLength) {
                    store = payloadLength == 0 ? EMPTY : new byte[payloadLength];
                    s.payload = store;
                }
                System.arraycopy(payload, 0, store, 0, payloadLength);
            }
            s.hasPayload = payload != null;
            s.payloadLength = payloadLength;
            s.err = 0;
            s.provErrno = 0;
            s.errData = null;
            s.errDataSize = 0;
            count = count + 1;
            stats.written.increment();
            stats.depthHighWater.max(count);
        }
        waitSupport.notifyReady();
        return 1;
    }

    /** 0 when a slot is free; otherwise enters (or stays in) the overrun state (R7). */
    private int reserveLocked() {
        if (overrun) {
            return -Errno.EOVERRUN;
        }
        if (count == ring.length) {
            overrun = true;
            stats.overruns.increment();
            io.jofi.spi.util.stats.FabricEvents.queueOverrun(stats.group.owner(), ring.length);
            return -Errno.EOVERRUN;
        }
        return 0;
    }

    private Slot tailSlotLocked() {
        int tail = (head + count) % ring.length;
        Slot s = ring[tail];
        if (s == null) {
            s = new Slot();
            ring[tail] = s;
        }
        return s;
    }

    private void removeHeadLocked(Slot s) {
        s.clear();
        head = (head + 1) % ring.length;
        count = count - 1;
    }

    private int emptyAnswerLocked() {
        if (overrun) {
            return -Errno.EOVERRUN;
        }
        return state() == DEPARTED ? -Errno.ENODEV : -Errno.EAGAIN;
    }

    private static byte[] copyOf(byte[] src, int length) {
        if (src == null) {
            return null;
        }
        if (length == 0) {
            return EMPTY;
        }
        byte[] copy = new byte[length];
        System.arraycopy(src, 0, copy, 0, length);
        return copy;
    }
}
