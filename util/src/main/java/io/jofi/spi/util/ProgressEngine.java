package io.jofi.spi.util;

import io.jofi.Progress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a provider's progress function, written once, in either progress mode:
 * <ul>
 * <li>{@link Progress#AUTO}: on a thread of its own, which calls the step with a blocking
 *     timeout so that it sleeps in the provider's I/O wait (a selector, a doorbell) when
 *     there is nothing to do;</li>
 * <li>{@link Progress#MANUAL}: inside the application's calls on CQs, counters, EQs and
 *     endpoints, which call {@link #drive()} (non-blocking) — and, in blocking reads,
 *     {@link #await(long)}.</li>
 * <li><b>hosted</b> ({@link #hosted}): {@code AUTO} without a thread of its own — a layered
 *     provider's step run by the threads of the engines that publish into the queue it reads
 *     ({@link UtilCompletionQueue#hostProgress}), after each of their passes, and by
 *     {@link #follow()} from any thread that knows there is work for it.</li>
 * </ul>
 * <p><b>Readers wait in the step.</b> An {@code AUTO} engine whose step can block on any thread
 * ({@link Step#waitsOnAnyThread}) lends it to a blocking read ({@link #takeForReader}): the
 * reader sleeps in the provider's I/O wait itself and moves the data on its own thread, as C's
 * {@code fi_cq_sread} sleeps in {@code epoll_wait} on the sockets, instead of parking while the
 * auto thread wakes on the data and then wakes it (two threads and a hand-over per message). The
 * auto thread keeps out meanwhile and for {@link #READER_LEASE_NANOS} after the last reader's pass,
 * the reader's time to handle what it read and wait again, then takes the step back.
 *
 * The step never runs on two threads at once (single-writer principle): a thread that finds
 * another one progressing skips rather than waits, so a provider's progress state needs no
 * lock of its own.
 *
 * <p><b>A step that throws</b> is a broken provider, and must not end silently (README "Failure model"):
 * whether it threw on the auto thread or inside an application's call in manual mode, the
 * engine catches it (any {@link Throwable}, errors too), stops for good ({@link #isRunning()}
 * false, later calls do nothing), logs it once with its cause ({@link System.Logger}, level
 * {@code ERROR}) and hands it to the provider's {@link FailureHandler} — usually
 * {@link UtilDomain#progressFailed}, which turns it into error completions, an EQ error event
 * and {@code -EIO} posts. Nothing is thrown to the application: a data-path call never throws.
 *
 * <p><b>The report cannot kill the thread either.</b> The log call and the handler run inside
 * their own catch: a logger that throws (out of descriptors, the JVM's first log record cannot
 * load its time-zone data) is tried again with the report, and a handler that throws (e.g. it
 * cannot load a class for want of descriptors) is called again — by the auto thread every
 * {@link #AUTO_IDLE_NANOS}, in manual mode by the next {@link #drive()} — until it returns or the
 * engine is closed, so the failure reaches the application once the process can report it.
 * Engines prepare the logger's lazily loaded data when they start ({@link SafeLog#prepare()}).
 */
public final class ProgressEngine implements AutoCloseable {

    /** A provider's progress function. */
    public interface Step {
        /**
         * Moves data: one pass over the provider's transports. With {@code timeoutNanos > 0}
         * it may block up to that long waiting for I/O when it finds nothing to do.
         *
         * @return how much work was done (0 when nothing)
         */
        int progress(long timeoutNanos);

        /** Makes a {@link #progress} blocked in its I/O wait return soon (e.g. {@code Selector.wakeup()}). */
        void wakeup();

        /**
         * Whether {@link #progress} may block on any thread, woken by {@link #wakeup} from any
         * other (a selector: yes; a wait that parks one particular thread: no). Then an
         * {@code AUTO} engine lends the step to its blocking readers ({@link ProgressEngine#takeForReader}).
         * Default: no.
         */
        default boolean waitsOnAnyThread() {
            return false;
        }
    }

    /**
     * What a provider does when its step threw (the engine has stopped and logged it already):
     * fail what depended on that progress, so that nothing waits for ever.
     */
    @FunctionalInterface
    public interface FailureHandler {
        /**
         * Called on the thread whose step threw, while that thread still owns the step
         * (no other thread runs it now, and none will again): the provider's progress state
         * may be touched without a lock. Called once when it returns; when it throws (e.g. out
         * of descriptors, a class it needs cannot be loaded) that is logged and it is called
         * again later (class comment), so what it did before it threw may be done twice.
         *
         * @param engine the engine that stopped
         * @param cause  what the step threw
         */
        void progressFailed(ProgressEngine engine, Throwable cause);
    }

    private static final System.Logger LOG = System.getLogger(ProgressEngine.class.getName());

    /** How long the auto-progress thread sleeps in one step when idle (it is woken on close). */
    static final long AUTO_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * How long after a reader's pass the auto thread still keeps out of the step: the reader's
     * time to handle what it read (a ping-pong's answer: microseconds) and wait again. A reader
     * that does not come back leaves the provider without progress this long at most.
     */
    static final long READER_LEASE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How long a reader waits for the auto thread to let go of the step before it parks instead. */
    private static final long HANDOVER_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    /** The system property that turns reader waits off ({@code false}): the auto thread alone waits in the step. */
    public static final String READER_WAITS_PROPERTY = "jofi.progress.readerWaits";

    private final Progress mode;
    private final Step step;
    private final String name;
    private final FailureHandler onFailure;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Thread thread;
    /** Whether this is a {@link #hosted} engine: AUTO progress on its hosts' threads. */
    private final boolean hosted;
    /**
     * A hosted engine's pass was asked for ({@link #follow()}) and not yet begun: a caller that
     * finds the step busy leaves it to the owner, which looks again before it lets go.
     */
    private volatile boolean followRequested;
    /**
     * The thread in a hosted engine's pass or a reader's pass ({@link #takeForReader}) now, or
     * null: its close must not wait for itself, and a producer on it needs no wake-up of the step.
     */
    private volatile Thread passOwner;
    /** Readers in or waiting for the step ({@link #takeForReader}): the auto thread keeps out. */
    private final AtomicInteger readers = new AtomicInteger();
    /** When the last reader's pass ended ({@code System.nanoTime}): the auto thread's lease starts there. */
    private volatile long readerPassEnded;
    /**
     * Whether readers may wait in the step: a threaded {@code AUTO} engine whose step waits on any
     * thread, unless {@value #READER_WAITS_PROPERTY} is {@code false}.
     */
    private final boolean readerWaits;
    /** A hosted engine's one host, or null (none, or several: a reader then cannot tell whose step to wait in). */
    private volatile ProgressEngine host;
    /** How many engines host this one, each counted once however often it hosts it (guarded by this). */
    private int hosts;
    /** The hosted engines this (threaded AUTO) engine runs after each pass; copy on write, guarded by this. */
    private volatile ProgressEngine[] followers = NO_FOLLOWERS;
    /** How often each of {@link #followers} was {@link #host}ed (same index; guarded by this). */
    private int[] followerUses = new int[0];
    private static final ProgressEngine[] NO_FOLLOWERS = new ProgressEngine[0];
    private volatile boolean running = true;
    /** Set by {@link #close()}: the auto thread stops retrying a failure report. */
    private volatile boolean closed;
    private volatile Throwable failure;
    /** Whether the failure was logged / handed to the handler without a throwable (owner of the step only). */
    private boolean failureLogged;
    private boolean failureHandled;
    /** Event queues of endpoints this engine moves, with their bind counts; guarded by itself. */
    private final Map<UtilEventQueue, Integer> eventQueues = new IdentityHashMap<>();

    private ProgressEngine(Progress mode, Step step, String threadName, FailureHandler onFailure, boolean hosted) {
        this.mode = mode;
        this.step = step;
        this.name = threadName;
        this.onFailure = onFailure;
        this.hosted = hosted;
        this.readerWaits = mode == Progress.AUTO && !hosted && step.waitsOnAnyThread()
                && !"false".equalsIgnoreCase(System.getProperty(READER_WAITS_PROPERTY));
        // no lease at start (nanoTime's origin is arbitrary: 0 is not "long ago")
        this.readerPassEnded = System.nanoTime() - READER_LEASE_NANOS - 1;
        SafeLog.prepare();
        if (mode == Progress.AUTO && !hosted) {
            thread = new Thread(this::runAuto, threadName);
            thread.setDaemon(true);
            thread.start();
        } else {
            thread = null;
        }
    }

    /**
     * Starts an engine. {@code Progress.UNSPEC} means {@code AUTO} (the default of docs/API.md).
     *
     * @param threadName the name of the auto-progress thread (e.g. {@code jofi-tcp-progress-1})
     */
    public static ProgressEngine start(Progress mode, String threadName, Step step) {
        return start(mode, threadName, step, null);
    }

    /**
     * Starts an engine whose step failing is handed to {@code onFailure} (see the class
     * comment); {@code null} only logs it.
     *
     * @param threadName the name of the auto-progress thread; also names the engine in the log
     */
    public static ProgressEngine start(Progress mode, String threadName, Step step, FailureHandler onFailure) {
        Objects.requireNonNull(step, "step");
        Progress m = mode == null || mode == Progress.UNSPEC ? Progress.AUTO : mode;
        return new ProgressEngine(m, step, threadName, onFailure, false);
    }

    /**
     * Starts a hosted engine: {@code AUTO} progress without a thread of its own. Its step runs,
     * non-blocking ({@code progress(0)}), on the threads of the AUTO engines that {@link #host}
     * it, after each of their passes — for a layered provider, on the core's progress thread that
     * has just published into the queue the layer reads, once the core's step has let go of its
     * locks — and in {@link #follow()}. Whoever owns the queues it reads must make sure one of
     * those runs it when something arrives that no host publishes (e.g. a completion written on an
     * application's thread): a hosted engine is not woken, it is run.
     *
     * @param name names the engine in the log (no thread carries it)
     */
    public static ProgressEngine hosted(String name, Step step, FailureHandler onFailure) {
        Objects.requireNonNull(step, "step");
        return new ProgressEngine(Progress.AUTO, step, name, onFailure, true);
    }

    /** {@code AUTO} or {@code MANUAL}. */
    public Progress mode() {
        return mode;
    }

    /** Whether the application's calls must drive progress. */
    public boolean isManual() {
        return mode == Progress.MANUAL;
    }

    /** Whether this is a {@link #hosted} engine (AUTO progress on other engines' threads). */
    public boolean isHosted() {
        return hosted;
    }

    /**
     * A hosted engine's non-blocking pass, on the calling thread; if another thread is in the
     * step now, that thread makes one more pass before it lets go, so a request is never lost.
     * Never blocks, never throws (a step that throws stops the engine: class comment). Does
     * nothing on an engine that is not hosted.
     *
     * @return the work this thread did (0 when the pass was left to another thread)
     */
    public int follow() {
        if (!hosted) {
            return 0;
        }
        followRequested = true;
        int work = 0;
        while (followRequested && running && busy.compareAndSet(false, true)) {
            if (!running) {
                busy.set(false); // closed between the look and the claim: close saw the step free
                break;
            }
            passOwner = Thread.currentThread();
            try {
                followRequested = false;
                work += step.progress(0L);
            } catch (Throwable t) {
                failed(t);
            } finally {
                passOwner = null;
                busy.set(false);
            }
        }
        return work;
    }

    /**
     * Something a hosted engine's step reads was published ({@link UtilCompletionQueue#hostProgress}):
     * a pass under way now — on whatever thread, the publisher's own included (a send its pass posted
     * that the core completed at once) — makes one more before it lets go. Runs nothing itself: when no
     * pass is under way, the publisher's host or poster runs one ({@link #follow()}). Costs a volatile
     * read when a request is pending already.
     */
    void passWanted() {
        if (hosted && !followRequested) {
            followRequested = true;
        }
    }

    /**
     * Runs the hosted engine {@code follower} on this engine's thread after each of its passes
     * (an engine without a thread — MANUAL, hosted — never runs it). Hosting one follower again
     * counts one more use of it: each endpoint that binds the hosting queue adds it.
     */
    public synchronized void host(ProgressEngine follower) {
        if (!follower.hosted || follower == this) {
            throw new IllegalArgumentException("only another, hosted engine can be hosted: " + follower.name);
        }
        ProgressEngine[] fs = followers;
        for (int i = 0; i < fs.length; i++) {
            if (fs[i] == follower) {
                followerUses[i]++;
                return;
            }
        }
        follower.hostedBy(this); // a new host (its further uses are counted above, and undone by unhost)
        ProgressEngine[] n = java.util.Arrays.copyOf(fs, fs.length + 1);
        n[fs.length] = follower;
        followerUses = java.util.Arrays.copyOf(followerUses, fs.length + 1);
        followerUses[fs.length] = 1;
        followers = n;
    }

    /** Undoes one {@link #host}: the follower is no longer run once its last use is gone. */
    public synchronized void unhost(ProgressEngine follower) {
        ProgressEngine[] fs = followers;
        for (int k = 0; k < fs.length; k++) {
            if (fs[k] != follower) {
                continue;
            }
            if (--followerUses[k] > 0) {
                return;
            }
            ProgressEngine[] n = new ProgressEngine[fs.length - 1];
            int[] u = new int[fs.length - 1];
            System.arraycopy(fs, 0, n, 0, k);
            System.arraycopy(fs, k + 1, n, k, fs.length - k - 1);
            System.arraycopy(followerUses, 0, u, 0, k);
            System.arraycopy(followerUses, k + 1, u, k, fs.length - k - 1);
            followerUses = u;
            followers = n.length == 0 ? NO_FOLLOWERS : n;
            follower.unhostedBy(this);
            return;
        }
    }

    private synchronized void hostedBy(ProgressEngine h) {
        hosts++;
        host = hosts == 1 ? h : null;
    }

    private synchronized void unhostedBy(ProgressEngine h) {
        hosts--;
        if (hosts == 0 || host == h) {
            host = null;
        }
    }

    /**
     * The engine whose step a blocking reader of this engine's queues waits in: itself, or for a
     * hosted engine its one host (the host's passes run this one after them); null when none.
     */
    ProgressEngine readerEngine() {
        return hosted ? host : this;
    }

    /** The hosted engines' passes after one of ours: on our thread, outside our step (no lock of ours held). */
    private void runFollowers() {
        ProgressEngine[] fs = followers;
        for (int i = 0; i < fs.length; i++) {
            fs[i].follow(); // never throws: a follower's failure stops the follower, not its host
        }
    }

    /**
     * Called at the top of the application's data-path calls: one non-blocking progress pass
     * in manual mode; nothing in auto mode. Never blocks, never throws (a step that throws
     * stops the engine: see the class comment).
     *
     * @return the work done, 0 if none or skipped
     */
    public int drive() {
        if (mode != Progress.MANUAL) {
            return 0;
        }
        if (!running) {
            if (failure != null && !(failureLogged && failureHandled) && busy.compareAndSet(false, true)) {
                try {
                    report(); // the report could not be made when the step threw: try again
                } finally {
                    busy.set(false);
                }
            }
            return 0;
        }
        return runStep(0L);
    }

    /**
     * Called by a blocking read in manual mode: one progress pass that may block up to
     * {@code nanos} in the provider's I/O wait. In auto mode, or when another thread is
     * progressing, it does not block (the caller waits on its queue's wait object instead).
     *
     * @return the work done, or -1 when it could not progress (another thread is)
     */
    public int await(long nanos) {
        if (mode != Progress.MANUAL || !running) {
            return -1;
        }
        if (!busy.compareAndSet(false, true)) {
            return -1;
        }
        try {
            return step.progress(nanos);
        } catch (Throwable t) {
            failed(t);
            return 0;
        } finally {
            busy.set(false);
        }
    }

    /**
     * A blocking reader takes the step to wait in it on its own thread (class comment): true when
     * the caller now owns the step, and must call {@link #readerPass} at most once and then
     * {@link #releaseFromReader}; false when it should park as before (not such an engine, closed,
     * or the auto thread did not let go within {@link #HANDOVER_NANOS}). A step held by the auto
     * thread, asleep in its I/O wait, is woken to let go; it then keeps out while readers come.
     */
    boolean takeForReader() {
        if (!readerWaits || !running) {
            return false;
        }
        readers.getAndIncrement();
        long until = 0L;
        while (!busy.compareAndSet(false, true)) {
            long now = System.nanoTime();
            if (until == 0L) {
                until = now + HANDOVER_NANOS;
                step.wakeup();
            } else if (now - until > 0 || !running) {
                readers.getAndDecrement();
                return false;
            }
            Thread.onSpinWait();
        }
        if (!running) {
            busy.set(false); // closed between the look and the claim: close saw the step free
            readers.getAndDecrement();
            return false;
        }
        passOwner = Thread.currentThread();
        return true;
    }

    /** The reader's pass ({@link #takeForReader}): may block up to {@code nanos} in the I/O wait. */
    int readerPass(long nanos) {
        try {
            return step.progress(nanos);
        } catch (Throwable t) {
            failed(t);
            return 0;
        }
    }

    /** Gives back the step a reader took; the hosted followers' passes then run on the reader's thread. */
    void releaseFromReader() {
        passOwner = null;
        readerPassEnded = System.nanoTime();
        busy.set(false);
        readers.getAndDecrement();
        runFollowers();
    }

    /** Whether the auto thread keeps out of the step: readers are in it or coming, or the lease of the last one runs. */
    private boolean lentToReaders() {
        return readerWaits && (readers.get() > 0 || System.nanoTime() - readerPassEnded < READER_LEASE_NANOS);
    }

    /**
     * Wakes a reader asleep in this engine's step ({@link #takeForReader}) for a producer that
     * published what it waits for — unless the producer is that reader's own pass.
     */
    void wakeReader() {
        ProgressEngine e = readerEngine();
        if (e != null && e.readerWaits && e.passOwner != Thread.currentThread()) {
            e.step.wakeup();
        }
    }

    /** Wakes a thread blocked in the step ({@link #await} or the auto thread). */
    public void wakeup() {
        step.wakeup();
    }

    /** What a step threw and stopped the engine with (either mode), or {@code null}. */
    public Throwable failure() {
        return failure;
    }

    /** Whether the engine is running. */
    public boolean isRunning() {
        return running;
    }

    /** The auto-progress thread, or {@code null} in manual mode and for a hosted engine (tests prove it ends). */
    public Thread thread() {
        return thread;
    }

    private int runStep(long timeoutNanos) {
        if (!busy.compareAndSet(false, true)) {
            return 0;
        }
        try {
            return step.progress(timeoutNanos);
        } catch (Throwable t) {
            failed(t);
            return 0;
        } finally {
            busy.set(false);
        }
    }

    private void runAuto() {
        boolean owned = false;
        while (running) {
            try {
                if (lentToReaders()) {
                    // a reader waits in the step on its own thread: look again once its lease may have run out
                    LockSupport.parkNanos(this, READER_LEASE_NANOS);
                } else if (busy.compareAndSet(false, true)) {
                    owned = true;
                    try {
                        step.progress(AUTO_IDLE_NANOS);
                    } catch (Throwable t) {
                        failed(t);
                    } finally {
                        busy.set(false);
                        owned = false;
                    }
                    runFollowers();
                } else {
                    Thread.onSpinWait();
                }
            } catch (InternalError e) {
                // The JVM reports a fault of an unsafe memory access in compiled code (a mapped
                // file truncated under the step: shm) at its next safepoint poll, which can be
                // this loop's, after the step returned; the step's own handling never saw it and
                // the thread died (ShmTruncatedCrossProcessTest, AUTO, once in a full verify).
                // The step's next pass probes its mappings before it uses them and meets the
                // fault where it handles it.
                if (owned) {
                    busy.set(false);
                    owned = false;
                }
            } catch (Throwable t) {
                // Thrown outside the step (by this loop itself, e.g. an error at a safepoint
                // poll): the thread must not end unreported, so it counts as the step's.
                if (owned) {
                    busy.set(false);
                    owned = false;
                }
                failed(t);
            }
        }
        retryReport();
    }

    /**
     * After the step failed on this thread: until the report was made in full or the engine is
     * closed, try it again every {@link #AUTO_IDLE_NANOS} (descriptors may come back).
     */
    private void retryReport() {
        while (failure != null && !closed) {
            if (busy.compareAndSet(false, true)) {
                try {
                    if (report()) {
                        return;
                    }
                } catch (Throwable t) {
                    // report() catches what it calls; this is an error in the catch itself
                    // (e.g. StackOverflowError): the next round tries again
                } finally {
                    busy.set(false);
                }
            }
            try {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(AUTO_IDLE_NANOS));
            } catch (InterruptedException e) {
                return; // only close() could want us gone; it sets closed as well
            }
        }
    }

    /**
     * A step threw: the provider is broken. Stop for good, log once with the cause, and let the
     * provider fail what waited on this progress. Runs while the caller still owns the step;
     * never throws.
     */
    private void failed(Throwable t) {
        if (failure != null) {
            return; // only one thread owns the step, and after the first failure none runs it
        }
        failure = t;
        running = false;
        report();
    }

    /**
     * Logs the failure and hands it to the handler, each until it was done once without a
     * throwable; the caller owns the step. Never throws.
     *
     * @return whether both are done
     */
    private boolean report() {
        Throwable t = failure;
        if (!failureLogged) {
            failureLogged = SafeLog.log(LOG, System.Logger.Level.ERROR, "JOFI progress engine " + name + " (" + mode
                    + " progress) stopped: its step threw; the provider fails the operations that waited on it", t);
        }
        if (!failureHandled) {
            if (onFailure == null) {
                failureHandled = true;
            } else {
                try {
                    onFailure.progressFailed(this, t);
                    failureHandled = true;
                } catch (Throwable h) {
                    // Said when it can be; the handler is called again (class comment).
                    SafeLog.log(LOG, System.Logger.Level.ERROR, "JOFI progress engine " + name
                            + ": the provider's failure handler threw; it is called again", h);
                }
            }
        }
        return failureLogged && failureHandled;
    }

    /**
     * Records that an endpoint moved by this engine was bound to {@code eq} (called by
     * {@link UtilEventQueue#attachProgress}), so that a progress failure can be reported there.
     */
    void eventQueueAttached(UtilEventQueue eq) {
        synchronized (eventQueues) {
            eventQueues.merge(eq, 1, Integer::sum);
        }
    }

    /** Undoes one {@link #eventQueueAttached}. */
    void eventQueueDetached(UtilEventQueue eq) {
        synchronized (eventQueues) {
            eventQueues.computeIfPresent(eq, (q, n) -> n == 1 ? null : n - 1);
        }
    }

    /** The event queues endpoints moved by this engine are bound to (a copy). */
    List<UtilEventQueue> eventQueues() {
        synchronized (eventQueues) {
            return new ArrayList<>(eventQueues.keySet());
        }
    }

    /**
     * Stops the engine: the auto thread is woken and joined (bounded), so that no thread of
     * the provider outlives it (R15). Idempotent.
     */
    @Override
    public void close() {
        running = false;
        closed = true;
        if (hosted) {
            awaitHostedPass();
            return;
        }
        if (thread != null && thread != Thread.currentThread()) {
            step.wakeup();
            boolean interrupted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (thread.isAlive() && System.nanoTime() < deadline) {
                try {
                    thread.join(100);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                step.wakeup();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                throw new IllegalStateException("progress thread " + thread.getName() + " did not stop within 10 s");
            }
        }
        if (readerWaits) {
            awaitReaderPass(); // the provider frees what the step uses once close returns
        }
    }

    /** A reader's pass under way ends before close returns (woken, bounded), unless the caller is that reader. */
    private void awaitReaderPass() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (busy.get() && passOwner != Thread.currentThread() && System.nanoTime() < deadline) {
            step.wakeup();
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * A hosted engine's close: a pass that runs on a host's thread now ends before close
     * returns (bounded as a thread's join), unless the caller is inside that pass itself.
     */
    private void awaitHostedPass() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (busy.get() && System.nanoTime() < deadline) {
            if (passOwner == Thread.currentThread()) {
                return;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
