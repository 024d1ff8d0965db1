package io.jofi.provider.tcp;

import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.SnapshotArrays;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The progress step of a domain (and of a fabric's connection management): one
 * {@link Selector} pass that hands every ready key to its {@link SelectHandler}.
 *
 * <p>{@link ProgressEngine} runs the step on one thread at a time, so handlers need no lock
 * against each other; they still lock their endpoint against the application's calls. The
 * pass uses {@link Selector#select(Consumer, long)} with a preallocated consumer, so a pass
 * allocates nothing (no selected-key set iterator).
 */
final class NioLoop implements ProgressEngine.Step {
    /**
     * A manual pass polls the handlers directly only while the loop has at most this many
     * polled keys: each poll is one {@code read} system call, as cheap as the
     * {@code epoll_wait} of {@code selectNow} and it returns the data at once, but with many
     * idle connections a selector pass is cheaper.
     */
    static final int MAX_POLLED = 4;
    /**
     * Every this-many manual passes one is a selector pass whatever the polls found, so that
     * keys that are not polled (and any readiness a poll cannot see) are never starved.
     */
    static final int SELECT_EVERY = 16;

    private final Selector selector;
    private final Consumer<SelectionKey> dispatch = NioLoop::dispatch;
    /**
     * Checks run after every pass (e.g. an RDM endpoint's deadlines on the fabric's CM loop,
     * whose engine passes at least every 100 ms). Empty on data loops: one volatile read.
     */
    private final CopyOnWriteArrayList<Runnable> tickers = new CopyOnWriteArrayList<>();
    /** Non-blocking passes since the tickers last ran (progress thread only). */
    private int quickPasses;
    /**
     * Keys whose handlers a manual pass may {@link SelectHandler#poll poll} instead of a
     * selector pass (the data connections of a domain); replaced as a whole on change
     * (copy on write, so that the progress thread reads it without a lock or an iterator).
     */
    private volatile SelectionKey[] polled = new SelectionKey[0];
    /** Manual passes served by polling since the last selector pass (progress thread only). */
    private int polledPasses;
    /** The MANUAL domain's wait-bridge selector, told of every registration; null if none. */
    private volatile NioReadiness watcher;

    NioLoop() {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector", e);
        }
    }

    /**
     * One pass: {@code selectNow} for a timeout of 0 (manual progress inside the
     * application's calls), otherwise {@code select(ms)} at least 1 ms.
     */
    @Override
    public int progress(long timeoutNanos) {
        if (!selector.isOpen()) {
            return 0;
        }
        try {
            int n;
            if (timeoutNanos <= 0 && (n = pollHandlers()) >= 0) {
                // served without a selector pass
            } else if (timeoutNanos <= 0) {
                n = selector.selectNow(dispatch);
            } else {
                long ms = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
                n = selector.select(dispatch, ms);
            }
            // The tickers read the clock: after a pass that may have blocked, and every
            // TICK_EVERY-th non-blocking one — a spinning MANUAL reader makes millions of
            // passes a second, and a clock read per pass costs it measurably (shm saw 40 %).
            if (!tickers.isEmpty() && (timeoutNanos > 0 || ++quickPasses >= TICK_EVERY)) {
                quickPasses = 0;
                for (int i = 0; i < tickers.size(); i++) {
                    tickers.get(i).run();
                }
            }
            return n;
        } catch (IOException e) {
            // The selector itself failed (not a connection): nothing to move this pass.
            return 0;
        } catch (java.nio.channels.ClosedSelectorException e) {
            return 0;
        }
    }

    /**
     * The manual pass without {@code selectNow}: polls every polled key's handler (a direct
     * non-blocking read: one system call instead of {@code epoll_wait} plus {@code read}), and
     * ends with {@code selectNow} when a handler left its channel to the selector.
     *
     * @return the work done, or -1 when this pass must be a selector pass (no polled keys, too
     *         many, the periodic selector pass is due, or a handler needs the selector)
     */
    private int pollHandlers() throws IOException {
        SelectionKey[] keys = polled;
        int size = keys.length;
        if (size == 0 || size > MAX_POLLED || ++polledPasses >= SELECT_EVERY) {
            polledPasses = 0;
            return -1;
        }
        int work = 0;
        boolean select = false;
        for (int i = 0; i < size; i++) {
            SelectionKey k = keys[i];
            if (!k.isValid()) {
                unpoll(k);
                polledPasses = 0;
                return -1;
            }
            int w = ((SelectHandler) k.attachment()).poll();
            if (w == SelectHandler.LEFT_TO_SELECTOR) {
                select = true;
            } else if (w < 0) {
                polledPasses = 0;
                return -1; // e.g. a connection waits to write: the selector serves it this pass
            } else {
                work += w;
            }
        }
        if (select) {
            polledPasses = 0;
            work += selector.selectNow(dispatch);
        }
        return work;
    }

    /**
     * Takes {@code k} out of the polled set (a connection closed): without it a closed
     * connection stays reachable from the loop for the domain's life, since only a manual pass
     * over at most {@link #MAX_POLLED} keys notices a cancelled key. A key that is not in the
     * set (e.g. one of the CM loop) is ignored.
     */
    synchronized void unpoll(SelectionKey k) {
        polled = SnapshotArrays.without(polled, k);
    }

    private static void dispatch(SelectionKey key) {
        int ready;
        try {
            ready = key.readyOps();
        } catch (java.nio.channels.CancelledKeyException e) {
            return; // closed by another thread after the selector picked it: nothing to do
        }
        ((SelectHandler) key.attachment()).onSelected(ready);
    }

    /** Makes a blocked {@link #progress} return. */
    @Override
    public void wakeup() {
        selector.wakeup();
    }

    /**
     * Registers {@code channel} (non-blocking) for {@code ops} with {@code handler} as the
     * attachment, and wakes the selector so that the key takes part in the current wait.
     */
    SelectionKey register(SelectableChannel channel, int ops, SelectHandler handler) throws ClosedChannelException {
        SelectionKey key = channel.register(selector, ops, handler);
        selector.wakeup();
        NioReadiness w = watcher;
        if (w != null) {
            w.registrationsChanged(); // an armed wait bridge must watch the new channel too
        }
        return key;
    }

    /**
     * As {@link #register}, and the handler may be {@link SelectHandler#poll polled} by manual
     * passes instead of a selector pass (see {@link #MAX_POLLED}). The key leaves the polled
     * set once it is cancelled.
     */
    SelectionKey registerPolled(SelectableChannel channel, int ops, SelectHandler handler) throws ClosedChannelException {
        SelectionKey key = register(channel, ops, handler);
        synchronized (this) {
            polled = SnapshotArrays.with(polled, key);
        }
        return key;
    }

    /** The polled keys: the domain's data connections (a snapshot; the array is never changed in place). */
    SelectionKey[] polledKeys() {
        return polled;
    }

    /** How many keys are in the polled set (tests: it returns to its base once connections close). */
    int polledCount() {
        return polled.length;
    }

    /** How many keys the selector holds, cancelled ones until its next pass included (tests). */
    int registeredCount() {
        return selector.keys().size();
    }

    /**
     * The readiness wait of a MANUAL domain's wait bridge, on a selector of its own that
     * mirrors this loop's registrations (see {@link NioReadiness} for why not this one).
     */
    synchronized NioReadiness readiness() {
        if (watcher == null) {
            watcher = new NioReadiness(this);
        }
        return watcher;
    }

    /** The registered keys (thread-safe to iterate: the JDK's key set is concurrent). */
    java.util.Set<SelectionKey> keys() {
        return selector.keys();
    }

    Selector selector() {
        return selector;
    }

    /** Non-blocking passes between two runs of the tickers. */
    static final int TICK_EVERY = 64;

    /**
     * Adds a check run after every pass that may have blocked and every {@link #TICK_EVERY}-th
     * non-blocking one, on the progress thread (it must not throw).
     */
    void addTicker(Runnable ticker) {
        tickers.addIfAbsent(ticker);
    }

    /** Closes the selector (after the engine and the wait bridge stopped); registered channels stay open. */
    void close() {
        NioReadiness w = watcher;
        if (w != null) {
            w.close();
        }
        try {
            selector.close();
        } catch (IOException e) {
            // Nothing left to release: the selector's own fds are closed or it never worked.
        }
    }
}
