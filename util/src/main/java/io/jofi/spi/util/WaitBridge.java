package io.jofi.spi.util;

import io.jofi.Errno;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Wakes the wait objects of a {@code MANUAL}-progress domain's queues when its transport
 * receives something while the application sleeps on them: the domain's <em>wait bridge</em>.
 *
 * <p>In {@code MANUAL} progress nobody moves data while the application blocks in a
 * {@code Selector} on an {@code FI_WAIT_FD} channel or on an exported
 * {@code FI_WAIT_MUTEX_COND}, so a message from a peer would not make them ready (R4, docs/API.md
 * "use Fabric.tryWait before blocking"). {@code Fabric.tryWait} therefore {@link #arm arms}
 * the bridge of each of its {@code MANUAL} domains with the wait objects it was asked about.
 * The bridge's daemon thread (started by the first arming, named as the provider says) then
 * sleeps in the transport's readiness wait ({@link Transport#awaitReadiness}) — which must
 * <em>not</em> consume anything the progress step needs — and, once the transport has
 * something, signals every armed wait object once ({@link WaitSupport#notifyProgressDue}: the FD
 * becomes readable, condition waiters wake) and disarms until the next {@code tryWait}. It
 * moves no data: the application's next read does ({@code MANUAL}).
 *
 * <p>A pass fires only if no {@code tryWait} armed during it: such a {@code tryWait} drove
 * progress and checked the queues after what woke the pass, so the next pass sleeps for it.
 * Spurious signals are harmless: the application reads, finds nothing, and calls
 * {@code tryWait} again, which resets the FD ({@link TryWait#tryWait(java.util.Collection, io.jofi.Fid...)}).
 *
 * <p>{@link #close()} stops and joins the thread (bounded), so that it never outlives its
 * domain (R15); the domain closes its transport's resources only after that.
 */
public final class WaitBridge implements AutoCloseable {

    /** A provider's side of the bridge: its transport's readiness wait. */
    public interface Transport {
        /**
         * Sleeps up to {@code timeoutNanos} until the transport has something for progress
         * (a message, a ring record, writability that progress waits for), without consuming
         * it. Returns early, false, on {@link #wakeup()} or when its wait is taken by the
         * progress step (then after a short pause, so that the bridge does not spin).
         *
         * @return true when the transport has, or may have, something for progress
         * @throws IOException when the wait itself failed: the bridge then signals, so that the
         *                     application looks (and progresses) itself
         */
        boolean awaitReadiness(long timeoutNanos) throws IOException;

        /** Makes an {@link #awaitReadiness} in progress return soon. */
        void wakeup();

        /**
         * Whether progress left something in the transport that it can take now, so that
         * {@code tryWait} answers {@code -EAGAIN} instead of arming (e.g. a ring record).
         * By default false: the bridge's first wait sees such readiness and fires at once.
         */
        default boolean hasPending() {
            return false;
        }

        /**
         * Called on the bridge thread when it disarmed and goes idle: a transport that keeps
         * wait registrations of its own drops them here (e.g. so that closed sockets are
         * not held open by the bridge's selector until the next arming).
         */
        default void idle() {
        }
    }

    /** A pass re-checks its state (stop, new arming) at least this often. */
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final WaitSupport[] NOT_ARMED = new WaitSupport[0];

    private final String threadName;
    private final Transport transport;
    /** The wait objects to signal; guarded by this. */
    private WaitSupport[] armed = NOT_ARMED;
    /** Counts armings; guarded by this. A pass fires only if no arming came during it. */
    private long armings;
    /** Started by the first arming; guarded by this. */
    private Thread thread;
    /** Guarded by this. */
    private boolean stopped;
    private volatile boolean running = true;

    /**
     * @param threadName the bridge thread's name (e.g. {@code jofi-tcp-fdwait-3})
     * @param transport  the domain's readiness wait
     */
    public WaitBridge(String threadName, Transport transport) {
        this.threadName = threadName;
        this.transport = transport;
    }

    /**
     * {@code fi_trywait} for this bridge's domain: {@code -EAGAIN} when the transport holds
     * something progress can take now; otherwise adds {@code waits} to the armed wait objects,
     * starts the thread if needed, and answers 0. After {@link #close()} it answers 0 and arms
     * nothing (the domain is gone: nothing will arrive).
     *
     * @return 0 (safe to block) or {@code -EAGAIN}
     */
    public int arm(WaitSupport[] waits) {
        if (transport.hasPending()) {
            return -Errno.EAGAIN;
        }
        Thread start = null;
        synchronized (this) {
            if (stopped) {
                return 0;
            }
            WaitSupport[] a = armed;
            for (WaitSupport w : waits) {
                boolean known = false;
                for (WaitSupport x : a) {
                    known |= x == w;
                }
                if (!known) {
                    a = java.util.Arrays.copyOf(a, a.length + 1);
                    a[a.length - 1] = w;
                }
            }
            armed = a;
            armings++;
            if (thread == null) {
                thread = start = new Thread(this::loop, threadName);
                thread.setDaemon(true);
            } else {
                LockSupport.unpark(thread);
            }
        }
        if (start != null) {
            start.start();
        }
        return 0;
    }

    /** Arms each of {@code bridges} with {@code waits}; the first {@code -EAGAIN} ends it. */
    static int armAll(Collection<WaitBridge> bridges, WaitSupport[] waits) {
        for (WaitBridge b : bridges) {
            int rc = b.arm(waits);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }

    /** Whether wait objects are armed now (for tests). */
    public synchronized boolean isArmed() {
        return armed.length > 0;
    }

    /** The bridge thread, or {@code null} before the first arming (for tests that prove it ends). */
    public synchronized Thread thread() {
        return thread;
    }

    private void loop() {
        boolean wasArmed = false;
        while (running) {
            WaitSupport[] waits;
            long pass;
            synchronized (this) {
                waits = armed;
                pass = armings;
            }
            if (waits.length == 0) {
                if (wasArmed) {
                    transport.idle();
                    wasArmed = false;
                    continue; // look again before parking: an arming may have come meanwhile
                }
                LockSupport.parkNanos(this, SLICE_NANOS);
                continue;
            }
            wasArmed = true;
            boolean fire;
            try {
                fire = transport.awaitReadiness(SLICE_NANOS);
            } catch (IOException | RuntimeException e) {
                fire = true; // the wait broke: let the application look (and progress) itself
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1)); // never spin on a broken wait
            }
            if (!fire || !running) {
                continue;
            }
            synchronized (this) {
                if (armings != pass) {
                    // A tryWait armed meanwhile: it drove progress and checked the queues after
                    // what woke this pass; the next pass sleeps for it.
                    continue;
                }
                waits = armed;
                armed = NOT_ARMED;
            }
            for (WaitSupport w : waits) {
                w.notifyProgressDue(); // the queue may be empty: its FD is raised all the same
            }
        }
        transport.idle();
    }

    /**
     * Stops the bridge: disarms, wakes and joins the thread (bounded at 10 s), so that it
     * does not outlive the domain (R15). Idempotent.
     *
     * @throws IllegalStateException when the thread did not stop in time
     */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            stopped = true;
            running = false;
            armed = NOT_ARMED;
            t = thread;
        }
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.isAlive() && System.nanoTime() < deadline) {
            LockSupport.unpark(t);
            transport.wakeup();
            try {
                t.join(100);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            throw new IllegalStateException("wait bridge thread " + t.getName() + " did not stop within 10 s");
        }
    }
}
