package io.jofi.provider.rxm;

import io.jofi.CompletionQueue;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.WaitObject;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;
import java.util.concurrent.TimeUnit;

/**
 * The connection-management thread of an rxm endpoint in MANUAL progress. MANUAL
 * progress moves data only inside the application's calls, but a peer's connection request
 * must not wait for them (as libfabric's rxm has a connection-management thread): an
 * application asleep on its CQ's wait object would never see the peer's first message. This
 * thread waits on the MSG event queue, handles its events under the endpoint's lock, and wakes
 * the application's queues when the MSG CQ holds something, so that its next read moves it. A
 * connection that ended it leaves to the application's next pass (and wakes it): the
 * application's thread may hold MSG completions it has read outside the lock, which an end here
 * would fail although they completed.
 */
final class RxmConnectionWatcher {
    private final Owner owner;
    private final Object lock;
    private final EventQueue msgEq;
    private final CompletionQueue msgCq;
    private final Thread thread;
    /** The MSG EQ's condition the thread sleeps on, once it has found it; signalled at {@link #join}. */
    private volatile WaitObject.MutexCond sleptOn;

    /** What the watcher asks of its endpoint: whether it still runs, its connection events, its bindings. */
    interface Owner {
        /** Whether the endpoint is enabled and neither closed nor departed (the thread runs while it is). */
        boolean isEnabled();

        /**
         * Under the lock: handles the MSG EQ's events, every connection end held for the
         * application's pass, and sends what waited for the connections made; whether an end is held.
         */
        boolean connectionEvents();

        /** The bound receive CQ, or null. */
        UtilCompletionQueue receiveCq();

        /** The bound transmit CQ, or null. */
        UtilCompletionQueue transmitCq();

        /** The bound counter of a completion with these flags, or null. */
        UtilCounter counter(long completionFlags);
    }

    /**
     * @param lock  the endpoint's lock, held while the events are handled
     * @param msgEq the MSG event queue it sleeps on
     * @param msgCq the MSG CQ whose entries it wakes the application for
     */
    RxmConnectionWatcher(Owner owner, Object lock, EventQueue msgEq, CompletionQueue msgCq, String name) {
        this.owner = owner;
        this.lock = lock;
        this.msgEq = msgEq;
        this.msgCq = msgCq;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /**
     * Wakes the thread and waits for it to end (it ends once the endpoint is no longer enabled).
     * The wake is a signal, not an interrupt: an interrupt would close a channel the thread may be
     * reading through the MSG provider.
     */
    void join() {
        WaitObject.MutexCond wait = sleptOn;
        if (wait != null) {
            wait.mutex().lock();
            try {
                wait.cond().signalAll();
            } finally {
                wait.mutex().unlock();
            }
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        WaitObject.MutexCond wait;
        try {
            wait = (WaitObject.MutexCond) msgEq.getWait();
        } catch (FabricException | ClassCastException e) {
            return; // no wait object to sleep on: connection events wait for the application's reads
        }
        sleptOn = wait;
        UtilEventQueue eq = (UtilEventQueue) msgEq;
        boolean ended = false;
        while (owner.isEnabled()) {
            // sleep on the EQ's condition without driving the MSG provider's progress: a wait
            // that drove it would take messages from the sockets while the application drives
            // (and skips, the step being busy), leaving its read empty
            wait.mutex().lock();
            try {
                // an end left to the application holds back the events after it (they wait for
                // its pass): sleep rather than spin on an EQ that stays ready meanwhile
                // the enabled check under the mutex: join's signal (taken under it) cannot fall between
                if ((!eq.isReady(0) || ended) && owner.isEnabled()) {
                    wait.cond().await(ended ? 10 : 100, TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                wait.mutex().unlock();
            }
            if (!eq.isReady(0)) {
                ended = false;
                continue;
            }
            synchronized (lock) {
                if (!owner.isEnabled()) {
                    return;
                }
                ended = owner.connectionEvents();
            }
            // reading the EQ ran the MSG provider's progress once, which may have moved a
            // message into the MSG CQ that the provider's own wake-up will not report any more
            if (ended || msgCq instanceof UtilCompletionQueue q && q.isReady(1)) {
                wakeApplication();
            }
        }
    }

    private void wakeApplication() {
        UtilCompletionQueue rx = owner.receiveCq();
        if (rx != null) {
            rx.waitSupport().notifyReady();
        }
        UtilCompletionQueue tx = owner.transmitCq();
        if (tx != null && tx != rx) {
            tx.waitSupport().notifyReady();
        }
        UtilCounter c = owner.counter(Fi.FI_RECV);
        if (c != null) {
            c.waitSupport().notifyReady();
        }
    }
}
