package io.jofi.spi.util;

import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The completion counter every provider uses ({@code fi_cntr}, fi_cntr(3)): a count of
 * completed operations and a count of failed ones.
 *
 * <p>Providers call {@link #increment()} / {@link #incrementError()} from their progress
 * thread: one atomic add and a {@link WaitSupport#notifyReady()} (a fence and two volatile
 * reads while nobody waits), no lock, no allocation. The two counts live in one
 * {@code long[]} at indices 64 bytes apart, so that they — and the application's
 * bookkeeping — never share a cache line (array elements are laid out in order, unlike
 * fields, which the JVM may reorder).
 *
 * <p>Rules:
 * <ul>
 * <li>{@link #read()} and {@link #readErr()} drive manual progress (docs/API.md Progress) and
 *     return the counts; they stay readable after close and departure.</li>
 * <li>{@link #add}, {@link #set}, {@link #addErr}, {@link #setErr} return 0, or
 *     {@code -EBADF} closed / {@code -ENODEV} departed (R15).</li>
 * <li>{@link #await}: 0 once the count reaches the threshold; {@code -EAVAIL} when the error
 *     count changed while waiting (fi_cntr(3): fi_cntr_wait returns {@code -FI_EAVAIL});
 *     {@code -EAGAIN} on timeout or interrupt; {@code -ENOSYS} with {@code WaitObj.NONE} or
 *     {@code SET} (R4).</li>
 * <li>{@link #hasEvents()} ({@code fi_poll}): the count or the error count changed since
 *     {@code hasEvents} last returned true.</li>
 * <li>Wait objects ({@code FD}, wait sets): ready while either count changed since the
 *     application last called {@link #read()} or {@link #readErr()}.</li>
 * </ul>
 */
public class UtilCounter extends AbstractFid implements Counter, Pollable, WaitSupport.Readiness {

    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);
    /** 8 longs = 64 bytes: indices this far apart are on different cache lines. */
    private static final int LINE = 8;
    /** Success count: written by providers. */
    private static final int COUNT = LINE;
    /** Error count: written by providers. */
    private static final int ERRORS = 2 * LINE;
    /** The counts the application last read (wait-object readiness): written by readers. */
    private static final int SEEN_COUNT = 3 * LINE;
    private static final int SEEN_ERRORS = 3 * LINE + 1;
    private static final int CELLS_LENGTH = 4 * LINE + 1;

    private final long[] cells = new long[CELLS_LENGTH];
    private final WaitSupport waitSupport;
    /** Only FD and SET consult {@link #isReady}; other wait objects skip the read bookkeeping. */
    private final boolean tracksReads;

    /** What a blocked {@link #await} waits for; one instance, so that a wait allocates nothing. */
    private final ThresholdReached thresholdReached = new ThresholdReached();

    private final Object pollLock = new Object();
    private long polledCount;
    private long polledErrors;

    /**
     * Opens a counter.
     *
     * @param attr    {@code null} for defaults; {@code events} must be
     *                {@code FI_CNTR_EVENTS_COMP} (0) and {@code flags} 0, else {@code EINVAL};
     *                {@code waitObj SET} needs a JOFI wait set ({@code EINVAL})
     * @param context the application's context
     * @throws FabricException {@code EINVAL} for bad attributes (nothing is opened then),
     *                         {@code EIO} when an FD wait object cannot be made
     */
    public UtilCounter(CounterAttr attr, Object context) throws FabricException {
        super(FidClass.COUNTER, context);
        CounterAttr a = attr == null ? new CounterAttr() : attr;
        if (a.events() != Fi.FI_CNTR_EVENTS_COMP) {
            throw new FabricException(Errno.EINVAL, "counter events " + a.events()
                    + " are not supported: only FI_CNTR_EVENTS_COMP (0) is");
        }
        if (a.flags() != 0) {
            throw new FabricException(Errno.EINVAL, "counter flags 0x" + Long.toHexString(a.flags())
                    + " are not supported: none are defined");
        }
        this.tracksReads = a.waitObj() == WaitObj.FD || a.waitObj() == WaitObj.SET;
        this.waitSupport = WaitSupport.open(a.waitObj(), a.waitSet());
        // Fails only for a wait set closed meanwhile (SET has no pipe, so nothing leaks);
        // closing waitSupport here would release a binding the set never counted.
        waitSupport.attach(this);
    }

    // ---------------------------------------------------------------- provider side

    /** One operation completed: lock-free, allocation-free; wakes waiters if there are any. */
    public void increment() {
        CELLS.getAndAdd(cells, COUNT, 1L);
        waitSupport.notifyReady();
    }

    /** One operation failed: lock-free, allocation-free; wakes waiters (they see {@code -EAVAIL}). */
    public void incrementError() {
        CELLS.getAndAdd(cells, ERRORS, 1L);
        waitSupport.notifyReady();
    }

    /** Adds a manual-progress engine that reads and waits must drive. */
    public void attachProgress(ProgressEngine e) {
        waitSupport.addEngine(e);
    }

    /** Removes an engine added with {@link #attachProgress}. */
    public void detachProgress(ProgressEngine e) {
        waitSupport.removeEngine(e);
    }

    // ---------------------------------------------------------------- application side

    /** {@code fi_cntr_read}: drives progress, returns the success count. */
    @Override
    public long read() {
        waitSupport.driveProgress();
        long c = (long) CELLS.getVolatile(cells, COUNT);
        if (tracksReads) {
            markSeen(c, (long) CELLS.getVolatile(cells, ERRORS));
        }
        return c;
    }

    /** {@code fi_cntr_readerr}: drives progress, returns the error count. */
    @Override
    public long readErr() {
        waitSupport.driveProgress();
        long e = (long) CELLS.getVolatile(cells, ERRORS);
        if (tracksReads) {
            markSeen((long) CELLS.getVolatile(cells, COUNT), e);
        }
        return e;
    }

    /** {@code fi_cntr_add}: 0; {@code -EBADF} closed; {@code -ENODEV} departed. */
    @Override
    public int add(long value) {
        return change(COUNT, value, true);
    }

    /** {@code fi_cntr_set}: 0; {@code -EBADF} closed; {@code -ENODEV} departed. */
    @Override
    public int set(long value) {
        return change(COUNT, value, false);
    }

    /** {@code fi_cntr_adderr}: 0; {@code -EBADF} closed; {@code -ENODEV} departed. */
    @Override
    public int addErr(long value) {
        return change(ERRORS, value, true);
    }

    /** {@code fi_cntr_seterr}: 0; {@code -EBADF} closed; {@code -ENODEV} departed. */
    @Override
    public int setErr(long value) {
        return change(ERRORS, value, false);
    }

    /**
     * {@code fi_cntr_wait}: blocks until the count reaches {@code threshold} (negative timeout:
     * forever).
     *
     * @return 0 when {@code count >= threshold}; {@code -EAVAIL} when the error count changed
     *         since the call began; {@code -EAGAIN} on timeout or interrupt (status kept);
     *         {@code -ENOSYS} with {@code NONE}/{@code SET} (R4); {@code -EBADF} closed,
     *         {@code -ENODEV} departed (also when that happens while waiting)
     */
    @Override
    public int await(long threshold, int timeoutMs) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (!waitSupport.canBlock()) {
            return -Errno.ENOSYS;
        }
        final long errorsAtStart = (long) CELLS.getVolatile(cells, ERRORS);
        waitSupport.driveProgress();
        if ((long) CELLS.getVolatile(cells, COUNT) >= threshold) {
            return 0; // fast path: no waiting, no allocation
        }
        rc = waitSupport.await(thresholdReached, threshold, errorsAtStart, timeoutMs);
        // Threshold first, as libfabric's util counter: success beats an error seen meanwhile.
        if ((long) CELLS.getVolatile(cells, COUNT) >= threshold) {
            return 0;
        }
        if ((long) CELLS.getVolatile(cells, ERRORS) != errorsAtStart) {
            return -Errno.EAVAIL;
        }
        int s = dataPathCheck();
        return s != 0 ? s : rc == 0 ? -Errno.EAGAIN : rc;
    }

    /** {@code fi_control(FI_GETWAIT)}: the FD channel or mutex/condition; else {@code ENOSYS}. */
    @Override
    public WaitObject getWait() throws FabricException {
        ensureOpen("getWait");
        return waitSupport.exportWait();
    }

    // ---------------------------------------------------------------- Pollable / Readiness

    @Override
    public WaitSupport waitSupport() {
        return waitSupport;
    }

    /**
     * {@code fi_poll}: drives progress; true when the count or the error count changed since
     * this method last returned true.
     */
    @Override
    public boolean hasEvents() {
        waitSupport.driveProgress();
        long c = (long) CELLS.getVolatile(cells, COUNT);
        long e = (long) CELLS.getVolatile(cells, ERRORS);
        synchronized (pollLock) {
            if (c == polledCount && e == polledErrors) {
                return false;
            }
            polledCount = c;
            polledErrors = e;
            return true;
        }
    }

    /**
     * Wait-object readiness (FD, wait sets): either count changed since the application last
     * read the counter. {@code arg} is unused.
     */
    @Override
    public boolean isReady(long arg) {
        return (long) CELLS.getVolatile(cells, COUNT) != (long) CELLS.getOpaque(cells, SEEN_COUNT)
                || (long) CELLS.getVolatile(cells, ERRORS) != (long) CELLS.getOpaque(cells, SEEN_ERRORS);
    }

    // ---------------------------------------------------------------- life cycle

    @Override
    protected void onClose() {
        waitSupport.close();
    }

    /** Wakes waiters, which return {@code -ENODEV} (R15). */
    @Override
    protected void onDeparture() {
        waitSupport.notifyReady();
    }

    @Override
    protected String describe() {
        return "counter";
    }

    // ---------------------------------------------------------------- internals

    /** {@link #await}'s condition: the threshold reached, the error count changed, or the counter shut. */
    private final class ThresholdReached implements WaitSupport.Readiness2 {
        @Override
        public boolean isReady(long threshold, long errorsAtStart) {
            return (long) CELLS.getVolatile(cells, COUNT) >= threshold
                    || (long) CELLS.getVolatile(cells, ERRORS) != errorsAtStart
                    || state() != OPEN;
        }
    }

    private int change(int cell, long value, boolean add) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (add) {
            CELLS.getAndAdd(cells, cell, value);
        } else {
            CELLS.setVolatile(cells, cell, value);
        }
        waitSupport.notifyReady();
        return 0;
    }

    /**
     * Records what the reader saw and lets the FD fall silent if nothing newer arrived. A
     * racing increment at worst leaves the FD readable once more (never a lost wake-up:
     * {@link WaitSupport#afterRead()} re-checks after draining).
     */
    private void markSeen(long count, long errors) {
        CELLS.setOpaque(cells, SEEN_COUNT, count);
        CELLS.setOpaque(cells, SEEN_ERRORS, errors);
        waitSupport.afterRead();
    }
}
