package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The wait object of one queue (CQ, EQ, counter), shared by all of them (R4):
 * <ul>
 * <li>{@code NONE}, {@code SET}: blocking reads answer {@code -ENOSYS} at once; {@code SET}
 *     signals its {@link UtilWaitSet} instead;</li>
 * <li>{@code UNSPEC}, {@code MUTEX_COND}: waiters park ({@code MUTEX_COND} also exports a
 *     lock and condition, signalled on every publish once exported);</li>
 * <li>{@code FD}: as {@code UNSPEC} internally, plus a pipe whose source channel an
 *     application selector sees readable while the queue has something to read;</li>
 * <li>{@code YIELD}: waiters spin with {@link Thread#yield()}.</li>
 * </ul>
 *
 * <p>Producers call {@link #notifyReady()} after publishing. While nobody waits and the FD is
 * already readable, that costs a fence and two volatile reads: no lock, no system call.
 * The protocol is Dekker-style — a waiter announces itself ({@code waiters++}) before its
 * last readiness check; a producer publishes, fences, then looks for waiters — so a wake-up
 * is never lost, and only what sleeps is woken (a parked thread, a waiter asleep in a manual
 * engine): a waiter that still polls costs a producer no lock, unpark or selector wake-up. A
 * waiter polls for {@link WaitSpin} before it parks. The FD keeps the same order both ways: a
 * raise sets its flag, fences and looks at the queue (a reader that took the entry first leaves
 * it silent); a read fences and looks at the flag (an FD raised meanwhile is reset). In
 * {@code MANUAL} progress a waiter moves data itself: it drives its engines (a wait set's own
 * wait object: its members' engines) and sleeps in one of them a slice at a time. A blocking
 * wait allocates nothing.
 */
public final class WaitSupport implements AutoCloseable {

    /** The queue's answer to "is there something for a waiter with this argument?". */
    public interface Readiness {
        /** @param arg e.g. the threshold of a CQ read; 0 when unused */
        boolean isReady(long arg);
    }

    /**
     * A wait condition of two arguments, for a waiter whose condition depends on its own start
     * (a counter's threshold and the error count when the wait began): one instance per
     * queue serves every call, so a blocking wait allocates nothing (no capturing lambda).
     */
    interface Readiness2 {
        boolean isReady(long a, long b);
    }

    private static final VarHandle WAITERS;
    private static final VarHandle SIGNALLED;
    private static final VarHandle SIGNALS;
    private static final VarHandle ENGINE_SLEEPERS;
    private static final VarHandle READER_SLEEPERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            WAITERS = l.findVarHandle(WaitSupport.class, "waiters", int.class);
            SIGNALLED = l.findVarHandle(WaitSupport.class, "signalled", boolean.class);
            SIGNALS = l.findVarHandle(WaitSupport.class, "signals", long.class);
            ENGINE_SLEEPERS = l.findVarHandle(WaitSupport.class, "engineSleepers", int.class);
            READER_SLEEPERS = l.findVarHandle(WaitSupport.class, "readerSleepers", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final ProgressEngine[] NO_ENGINES = new ProgressEngine[0];
    /** Slice a manual-progress waiter blocks in its engine before re-checking the queue. */
    private static final long MANUAL_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final WaitObj waitObj;
    private final UtilWaitSet waitSet;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition cond = lock.newCondition();
    private final Pipe pipe;
    private final ByteBuffer pipeByte;
    private final ByteBuffer pipeDrain;
    private final Object fdLock = new Object();
    /**
     * The threads parked in {@link #block}: producers unpark them without a lock. Parking instead
     * of {@code Condition.awaitNanos} keeps a blocking wait allocation-free (the JDK allocates a
     * node per condition wait).
     */
    private final ParkedWaiters parked = new ParkedWaiters();
    /**
     * How many waiters sleep in a manual engine's I/O wait now ({@link #block}): only they need
     * the engine woken. Without them a producer leaves the engine alone — in {@code AUTO} progress
     * the producer is the engine's own thread, and waking its selector would cost a system call
     * and an empty pass per message.
     */
    @SuppressWarnings("unused") // accessed through ENGINE_SLEEPERS
    private volatile int engineSleepers;
    /**
     * How many waiters sleep in an {@code AUTO} engine's step on their own thread now
     * ({@link ProgressEngine#takeForReader}): a producer other than their own pass wakes that step.
     */
    @SuppressWarnings("unused") // accessed through READER_SLEEPERS
    private volatile int readerSleepers;
    /** How long a waiter polls before it sleeps ({@link WaitSpin}); fixed per queue at open. */
    private final long spinNanos = WaitSpin.nanos();
    /** For a wait set's own wait object: the set, whose members' progress its waiters drive. */
    private volatile UtilWaitSet membersOf;

    @SuppressWarnings("unused") // accessed through WAITERS
    private volatile int waiters;
    @SuppressWarnings("unused") // accessed through SIGNALLED
    private volatile boolean signalled;
    /**
     * How many {@link #signal()}s there have been. A waiter remembers the count it started
     * with, so that one signal releases every thread waiting at the time, not just the first
     * to clear {@code signalled} (fi_cq(3): "unblock any thread waiting").
     */
    @SuppressWarnings("unused") // accessed through SIGNALS
    private volatile long signals;
    private volatile boolean fdReadable;
    private volatile boolean closed;
    /**
     * Set once {@code MUTEX_COND} was exported: from then on the application may wait on the
     * condition itself, unseen by {@code waiters}, so every publish must signal it.
     */
    private volatile boolean condExported;
    private volatile ProgressEngine[] engines = NO_ENGINES;
    /**
     * How often each of {@link #engines} was added (same index; guarded by this): several
     * endpoints of one domain bound to this queue add the same engine, and the first of them
     * to close must not stop the others' progress.
     */
    private int[] engineUses = new int[0];
    private Readiness readiness;

    private WaitSupport(WaitObj waitObj, UtilWaitSet waitSet, Pipe pipe) {
        this.waitObj = waitObj;
        this.waitSet = waitSet;
        this.pipe = pipe;
        this.pipeByte = pipe == null ? null : ByteBuffer.allocateDirect(1);
        this.pipeDrain = pipe == null ? null : ByteBuffer.allocateDirect(64);
    }

    /**
     * Creates the wait support of a queue.
     *
     * @param waitObj {@code null} means {@code NONE}
     * @param waitSet required with {@code SET}, else ignored
     * @throws FabricException {@code EINVAL} for {@code SET} without a set (or a foreign one),
     *         {@code EIO} when the FD pipe cannot be opened
     */
    public static WaitSupport open(WaitObj waitObj, io.jofi.WaitSet waitSet) throws FabricException {
        WaitObj w = waitObj == null ? WaitObj.NONE : waitObj;
        UtilWaitSet set = null;
        if (w == WaitObj.SET) {
            if (!(waitSet instanceof UtilWaitSet)) {
                throw new FabricException(Errno.EINVAL, waitSet == null
                        ? "wait object SET needs attr.waitSet()" : "waitSet is not a JOFI wait set: " + waitSet);
            }
            set = (UtilWaitSet) waitSet;
        }
        Pipe pipe = null;
        if (w == WaitObj.FD) {
            try {
                pipe = Pipe.open();
                pipe.source().configureBlocking(false);
                pipe.sink().configureBlocking(false);
            } catch (IOException e) {
                throw new FabricException(Errno.EIO, "cannot open the pipe of an FD wait object: " + e.getMessage(), e);
            }
        }
        WaitSupport ws = new WaitSupport(w, set, pipe);
        return ws;
    }

    /**
     * Connects the queue's readiness test (called once by the queue's constructor) and, for
     * {@code SET}, joins the wait set.
     */
    public void attach(Readiness queue) throws FabricException {
        this.readiness = queue;
        if (waitSet != null) {
            waitSet.join(this);
        }
    }

    public WaitObj waitObj() {
        return waitObj;
    }

    /** Whether blocking reads are possible (not {@code NONE} nor {@code SET}). */
    public boolean canBlock() {
        return waitObj != WaitObj.NONE && waitObj != WaitObj.SET;
    }

    /** Whether the queue has something to read now (for wait sets, poll sets and tryWait). */
    public boolean isReady() {
        Readiness r = readiness;
        return r != null && r.isReady(0);
    }

    /** {@code fi_control(FI_GETWAIT)}: the FD channel or the mutex/condition; else {@code ENOSYS}. */
    public WaitObject exportWait() throws FabricException {
        switch (waitObj) {
            case FD:
                return new WaitObject.Fd(pipe.source());
            case MUTEX_COND:
                condExported = true;
                return new WaitObject.MutexCond(lock, cond);
            default:
                throw new FabricException(Errno.ENOSYS, "wait object " + waitObj + " has nothing to export");
        }
    }

    /**
     * Adds an engine whose progress a blocking read must drive (manual progress). Adding an
     * engine that is there already counts one more use of it (each bound endpoint adds it).
     */
    public synchronized void addEngine(ProgressEngine engine) {
        ProgressEngine[] es = engines;
        for (int i = 0; i < es.length; i++) {
            if (es[i] == engine) {
                engineUses[i]++;
                return;
            }
        }
        ProgressEngine[] n = java.util.Arrays.copyOf(es, es.length + 1);
        n[es.length] = engine;
        engineUses = java.util.Arrays.copyOf(engineUses, es.length + 1);
        engineUses[es.length] = 1;
        engines = n;
    }

    /** Undoes one {@link #addEngine}: the engine goes when its last use does. */
    public synchronized void removeEngine(ProgressEngine engine) {
        ProgressEngine[] es = engines;
        int k = -1;
        for (int i = 0; i < es.length; i++) {
            if (es[i] == engine) {
                k = i;
            }
        }
        if (k < 0) {
            return;
        }
        if (--engineUses[k] > 0) {
            return;
        }
        ProgressEngine[] n = new ProgressEngine[es.length - 1];
        int[] u = new int[es.length - 1];
        System.arraycopy(es, 0, n, 0, k);
        System.arraycopy(es, k + 1, n, k, es.length - k - 1);
        System.arraycopy(engineUses, 0, u, 0, k);
        System.arraycopy(engineUses, k + 1, u, k, es.length - k - 1);
        engineUses = u;
        engines = n.length == 0 ? NO_ENGINES : n;
    }

    /** The engines attached now (a snapshot; the array is never changed in place). */
    ProgressEngine[] engines() {
        return engines;
    }

    /** Drives the progress of every attached manual engine once (non-blocking). */
    public void driveProgress() {
        ProgressEngine[] es = engines;
        for (int i = 0; i < es.length; i++) {
            es[i].drive();
        }
    }

    /**
     * Drives, as {@link #driveProgress()}, only the engines that {@code other} does not have: for a
     * reader that reads {@code other}'s queue right after, whose read drives the rest (a layered
     * provider's pass over its MSG event queue, then its MSG CQ: one pass of the core's engine, not
     * two). Allocates nothing.
     */
    public void driveProgressBesides(WaitSupport other) {
        ProgressEngine[] es = engines;
        ProgressEngine[] os = other.engines;
        for (int i = 0; i < es.length; i++) {
            if (!contains(os, es[i])) {
                es[i].drive();
            }
        }
    }

    private static boolean contains(ProgressEngine[] es, ProgressEngine e) {
        for (int i = 0; i < es.length; i++) {
            if (es[i] == e) {
                return true;
            }
        }
        return false;
    }

    /** What a waiter drives: {@link #driveProgress()}, and for a wait set's own wait object its members'. */
    private void driveForWait() {
        driveProgress();
        UtilWaitSet set = membersOf;
        if (set != null) {
            set.driveMembers();
        }
    }

    /**
     * Makes this (a wait set's own wait object) drive the progress of {@code set}'s members
     * while it waits, as a CQ's sread drives its endpoints' (MANUAL progress).
     */
    void drivesMembersOf(UtilWaitSet set) {
        this.membersOf = set;
    }

    /** The first engine a blocked waiter may sleep in (its own, else a wait set member's); null if none. */
    ProgressEngine firstEngine() {
        ProgressEngine[] es = engines;
        if (es.length > 0) {
            return es[0];
        }
        UtilWaitSet set = membersOf;
        return set == null ? null : set.firstMemberEngine();
    }

    /** Wakes every engine a waiter may sleep in ({@link #firstEngine}). */
    void wakeEngines() {
        ProgressEngine[] es = engines;
        for (int i = 0; i < es.length; i++) {
            es[i].wakeup();
        }
        UtilWaitSet set = membersOf;
        if (set != null) {
            set.wakeMemberEngines();
        }
    }

    /**
     * Producer side: something was published. Call after the publishing store; batching
     * producers call it once per batch.
     */
    public void notifyReady() {
        notifyReady(true);
    }

    /**
     * A {@link WaitBridge}'s signal: the transport of a {@code MANUAL} domain has something that
     * only the application's next read moves, so the queue itself may still be empty; the FD is
     * raised without looking at it (the application reads, finds nothing or something, and calls
     * {@code tryWait} again).
     */
    void notifyProgressDue() {
        notifyReady(false);
    }

    private void notifyReady(boolean published) {
        // Order the caller's publish before the reads of waiters/fdReadable (see class doc).
        VarHandle.fullFence();
        if (pipe != null && !fdReadable) {
            raiseFd(published);
        }
        if (waitSet != null) {
            waitSet.memberSignalled();
        }
        if ((int) WAITERS.getVolatile(this) != 0 || condExported) {
            wakeWaiters();
        }
    }

    /**
     * Reader side: called after a read that may have emptied the queue, so that the FD stops
     * being readable. A peek does not call it (R8: a peek keeps the readiness).
     */
    public void afterRead() {
        if (pipe == null) {
            return;
        }
        // The read's stores before the look at fdReadable: with raiseFd's store-then-look, either
        // this reader sees the FD raised (and resets it below) or the raiser sees the read.
        VarHandle.fullFence();
        if (!fdReadable) {
            return;
        }
        Readiness r = readiness;
        if (r != null && r.isReady(1)) {
            return;
        }
        synchronized (fdLock) {
            if (!fdReadable) {
                return;
            }
            fdReadable = false;
            VarHandle.fullFence();
            drainPipe();
            // A producer that published before seeing fdReadable == false relies on us.
            if (r != null && r.isReady(1)) {
                fdReadable = true;
                writePipe();
            }
        }
    }

    /**
     * {@code signal()} (R4): wakes every waiter, which then returns {@code -EAGAIN}; remembered
     * when nobody waits. With {@code SET} the wait object is the wait set (fi_cq(3): signal
     * needs a wait object, and {@code FI_WAIT_SET} is one): its waiters are woken.
     *
     * @return 0, or {@code -ENOSYS} for {@code NONE} (no wait object)
     */
    public int signal() {
        if (waitObj == WaitObj.NONE) {
            return -Errno.ENOSYS;
        }
        if (waitSet != null) {
            waitSet.memberSignalled(); // nobody blocks on a SET queue itself (R4: ENOSYS)
            return 0;
        }
        SIGNALLED.setVolatile(this, true);
        SIGNALS.getAndAdd(this, 1L); // after the flag: a waiter that sees the new count may clear it
        wakeWaiters();
        return 0;
    }

    /**
     * Blocks until {@code queue.isReady(arg)} holds, a {@link #signal()} arrives, the timeout
     * passes, or the thread is interrupted (R4).
     *
     * @param arg         passed to {@link Readiness#isReady(long)} (e.g. a CQ threshold)
     * @param timeoutMs   negative: forever
     * @return 0 when ready; {@code -EAGAIN} on timeout, signal or interrupt (interrupt status
     *         kept); {@code -ENOSYS} for {@code NONE}/{@code SET}
     */
    public int await(Readiness queue, long arg, int timeoutMs) {
        return await(queue, null, arg, 0L, timeoutMs);
    }

    /**
     * As {@link #await(Readiness, long, int)} with a two-argument condition
     * ({@code queue.isReady(a, b)}).
     */
    int await(Readiness2 queue, long a, long b, int timeoutMs) {
        return await(null, queue, a, b, timeoutMs);
    }

    private static boolean ready(Readiness r1, Readiness2 r2, long a, long b) {
        return r1 != null ? r1.isReady(a) : r2.isReady(a, b);
    }

    /** The wait of both forms: exactly one of {@code r1}, {@code r2} is non-null. Allocates nothing. */
    private int await(Readiness r1, Readiness2 r2, long a, long b, int timeoutMs) {
        if (!canBlock()) {
            return -Errno.ENOSYS;
        }
        final long deadline = timeoutMs < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        WAITERS.getAndAdd(this, 1);
        final long signalsAtStart = (long) SIGNALS.getVolatile(this);
        // Spin-then-park: the answer of a ping-pong peer comes within microseconds, sooner than
        // a parked thread is scheduled again; polling that long first saves the unpark and the
        // wake-up latency. Not for YIELD (it polls anyway) and bounded by the timeout.
        boolean spinning = spinNanos > 0 && waitObj != WaitObj.YIELD;
        long spinUntil = 0L;
        try {
            while (true) {
                driveForWait();
                if (ready(r1, r2, a, b)) {
                    return 0;
                }
                if ((long) SIGNALS.getVolatile(this) != signalsAtStart) {
                    // Signalled while waiting: delivered, so no longer to be remembered.
                    SIGNALLED.compareAndSet(this, true, false);
                    return -Errno.EAGAIN;
                }
                if (SIGNALLED.compareAndSet(this, true, false)) {
                    return -Errno.EAGAIN; // a signal from before, remembered for exactly one read
                }
                if (closed || Thread.currentThread().isInterrupted()) {
                    return -Errno.EAGAIN;
                }
                long now = System.nanoTime();
                long remaining = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - now;
                if (remaining <= 0) {
                    return -Errno.EAGAIN;
                }
                if (spinning) {
                    if (spinUntil == 0L) {
                        spinUntil = now + spinNanos;
                    }
                    if (now - spinUntil < 0) {
                        Thread.onSpinWait();
                        continue;
                    }
                    spinning = false;
                }
                block(r1, r2, a, b, remaining, signalsAtStart);
            }
        } finally {
            WAITERS.getAndAdd(this, -1);
        }
    }

    private void block(Readiness r1, Readiness2 r2, long a, long b, long remaining, long signalsAtStart) {
        if (waitObj == WaitObj.YIELD) {
            Thread.yield();
            return;
        }
        ProgressEngine engine = firstEngine();
        if (engine != null && engine.isManual()) {
            // Manual progress: the waiter itself must move data. Block in the first engine's
            // I/O wait for a slice; producers and signal() wake the engine while a waiter
            // sleeps there (registered, then re-checked: the Dekker order of notifyReady).
            long slice = Math.min(remaining, MANUAL_SLICE_NANOS);
            ENGINE_SLEEPERS.getAndAdd(this, 1);
            try {
                if (ready(r1, r2, a, b) || (boolean) SIGNALLED.getVolatile(this)
                        || (long) SIGNALS.getVolatile(this) != signalsAtStart || closed) {
                    return;
                }
                if (engine.await(slice) >= 0) {
                    return;
                }
            } finally {
                ENGINE_SLEEPERS.getAndAdd(this, -1);
            }
            remaining = slice; // another thread is progressing: park instead, and look again
        } else if (engine != null) {
            // AUTO progress: wait in the engine's step on this thread when it lends it (the
            // reader moves the data itself, as C's sread in epoll_wait); else its thread
            // publishes and unparks. Either way look again every slice, in case a provider path
            // publishes without notifying.
            remaining = Math.min(remaining, MANUAL_SLICE_NANOS);
            ProgressEngine host = membersOf == null ? engine.readerEngine() : null;
            if (host != null && host.takeForReader()) {
                READER_SLEEPERS.getAndAdd(this, 1);
                try {
                    // registered, then re-checked: the Dekker order of notifyReady
                    if (!ready(r1, r2, a, b) && !(boolean) SIGNALLED.getVolatile(this)
                            && (long) SIGNALS.getVolatile(this) == signalsAtStart && !closed) {
                        host.readerPass(remaining);
                    }
                } finally {
                    READER_SLEEPERS.getAndAdd(this, -1);
                    host.releaseFromReader();
                }
                return;
            }
        }
        // Register, re-check, park: a producer that published before the registration is
        // seen by the re-check; one after it unparks this thread (a permit if not yet parked).
        int slot = parked.register(Thread.currentThread());
        VarHandle.fullFence(); // the registration before the re-check (producer: publish, fence, look)
        try {
            if (ready(r1, r2, a, b) || (boolean) SIGNALLED.getVolatile(this)
                    || (long) SIGNALS.getVolatile(this) != signalsAtStart || closed) {
                return;
            }
            LockSupport.parkNanos(this, remaining); // an interrupt ends it too; the loop sees it
        } finally {
            parked.leave(slot); // no lock: the producer that woke us may still be scanning
        }
    }

    /** How many threads are in {@link #await} now (for tests that must act while they wait). */
    int waiters() {
        return (int) WAITERS.getVolatile(this);
    }

    private void wakeWaiters() {
        if (waitObj == WaitObj.YIELD) {
            return;
        }
        // Only what sleeps is woken: no selector wake-up, lock or unpark for a waiter that is
        // still polling (it sees the publish itself).
        if ((int) ENGINE_SLEEPERS.getVolatile(this) != 0 || membersOf != null) {
            wakeEngines();
        }
        if ((int) READER_SLEEPERS.getVolatile(this) != 0) {
            ProgressEngine[] es = engines;
            for (int i = 0; i < es.length; i++) {
                es[i].wakeReader(); // not from the sleeping reader's own pass (no selector wake-up per message)
            }
        }
        parked.unparkAll();
        if (condExported) {
            // The application may wait on the exported condition itself (FI_WAIT_MUTEX_COND).
            lock.lock();
            try {
                cond.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Makes the FD readable for what the caller {@code published} — unless a reader took it meanwhile:
     * a reader that read before {@code fdReadable} was set found nothing to reset
     * ({@link #afterRead}), and a raise after its read would leave the FD readable with nothing
     * unread (a spurious wake-up for every read that follows a publish at once). The flag is set
     * first and the queue looked at after a fence; the reader's side is the mirror image.
     */
    private void raiseFd(boolean published) {
        synchronized (fdLock) {
            if (fdReadable || closed) {
                return;
            }
            fdReadable = true;
            VarHandle.fullFence();
            Readiness r = readiness;
            if (published && r != null && !r.isReady(1)) {
                // Read already. A producer that saw the flag up meanwhile left the raise to us:
                // lower it, then look again (that producer's publish is seen now, or it sees the
                // flag down and raises itself).
                fdReadable = false;
                VarHandle.fullFence();
                if (!r.isReady(1)) {
                    return;
                }
                fdReadable = true;
            }
            writePipe();
        }
    }

    private void writePipe() {
        try {
            pipeByte.clear();
            pipe.sink().write(pipeByte);
        } catch (IOException e) {
            if (!closed) {
                throw new UncheckedIOException("FD wait object pipe failed", e);
            }
        }
    }

    private void drainPipe() {
        try {
            int n;
            do {
                pipeDrain.clear();
                n = pipe.source().read(pipeDrain);
            } while (n > 0);
        } catch (IOException e) {
            if (!closed) {
                throw new UncheckedIOException("FD wait object pipe failed", e);
            }
        }
    }

    /** Wakes every waiter for good (they return {@code -EAGAIN}) and closes the pipe. */
    @Override
    public void close() {
        closed = true;
        wakeWaiters();
        if (waitSet != null) {
            waitSet.leave(this);
        }
        if (pipe != null) {
            synchronized (fdLock) {
                try {
                    pipe.sink().close();
                    pipe.source().close();
                } catch (IOException ignored) {
                    // closing a pipe we own; nothing to report to anyone
                }
            }
        }
    }
}
