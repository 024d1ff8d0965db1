package io.jofi.provider.tcp;

import io.jofi.spi.util.ProgressEngine;
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
    private final Selector selector;
    private final Consumer<SelectionKey> dispatch = NioLoop::dispatch;
    /**
     * Checks run after every pass (e.g. an RDM endpoint's deadlines on the fabric's CM loop,
     * whose engine passes at least every 100 ms). Empty on data loops: one volatile read.
     */
    private final CopyOnWriteArrayList<Runnable> tickers = new CopyOnWriteArrayList<>();

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
            if (timeoutNanos <= 0) {
                n = selector.selectNow(dispatch);
            } else {
                long ms = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
                n = selector.select(dispatch, ms);
            }
            if (!tickers.isEmpty()) {
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
        return key;
    }

    /** Adds a check run after every pass, on the progress thread (it must not throw). */
    void addTicker(Runnable ticker) {
        tickers.addIfAbsent(ticker);
    }

    /** Removes a check added by {@link #addTicker}. */
    void removeTicker(Runnable ticker) {
        tickers.remove(ticker);
    }

    /** Closes the selector (after the engine stopped); registered channels stay open. */
    void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // Nothing left to release: the selector's own fds are closed or it never worked.
        }
    }
}
