package io.jofi.provider.tcp;

import io.jofi.spi.util.WaitBridge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The readiness wait of a MANUAL tcp domain's {@link WaitBridge}: a {@link Selector} of its
 * own on which every channel of the domain's {@link NioLoop} is registered again, with the
 * same interest set, so that the bridge learns that a socket has something for progress
 * without taking it.
 *
 * <p>Why a second selector rather than the loop's own: a {@code Selector} serves one
 * selecting thread at a time, and the loop's is used by whichever application thread drives
 * progress — a bridge selecting on it would make those calls block behind it (or skip
 * progress, if it took the engine's single-runner slot), and a select that is not followed by
 * the handlers' work would leave keys selected that the progress step must see. The bridge's
 * selector shares nothing with the step: epoll reports a ready socket to both (level
 * triggered), the bridge only counts it and never reads, and the step's next pass reads as
 * always. Interest sets are copied, so a socket whose reading is paused (receive budget
 * spent) or that has nothing to write does not wake the bridge.
 *
 * <p>Registrations are made on the bridge thread only: at each pass for the loop's current
 * keys (the loop wakes the bridge when it registers a channel, e.g. a connection moved from
 * the CM loop), and dropped when the bridge disarms ({@link #idle()}), so that the bridge's
 * selector never holds a closed socket's descriptor open between armings.
 */
final class NioReadiness implements WaitBridge.Transport {
    private final NioLoop loop;
    private final Selector selector;
    /** The loop's registrations changed since this pass began (set by {@link NioLoop#register}). */
    private volatile boolean changed = true;
    private final Consumer<SelectionKey> ignore = k -> { };

    NioReadiness(NioLoop loop) {
        this.loop = loop;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the wait bridge's selector", e);
        }
    }

    /** The loop registered a channel: the next pass mirrors it (a pass asleep ends now). */
    void registrationsChanged() {
        changed = true;
        selector.wakeup();
    }

    @Override
    public boolean awaitReadiness(long timeoutNanos) throws IOException {
        changed = false;
        mirror();
        if (changed) {
            return false; // a registration raced the mirror: mirror again first
        }
        long ms = Math.max(1L, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        return selector.select(ignore, ms) > 0;
    }

    /** Registers every valid key of the loop here with its interest set; drops keys the loop no longer has. */
    private void mirror() throws IOException {
        for (SelectionKey k : loop.keys()) {
            int ops;
            try {
                if (!k.isValid()) {
                    continue;
                }
                ops = k.interestOps();
            } catch (CancelledKeyException e) {
                continue;
            }
            SelectableChannel ch = k.channel();
            SelectionKey mine = ch.keyFor(selector);
            try {
                if (mine == null) {
                    ch.register(selector, ops);
                } else if (mine.isValid() && mine.interestOps() != ops) {
                    mine.interestOps(ops);
                }
            } catch (ClosedChannelException | CancelledKeyException e) {
                // closed meanwhile: the loop drops it too
            }
        }
        for (SelectionKey mine : selector.keys()) {
            SelectionKey theirs = mine.channel().keyFor(loop.selector());
            if (theirs == null || !theirs.isValid()) {
                mine.cancel();
            }
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    /** Disarmed: drop every registration and flush them, so that no closed socket stays open here. */
    @Override
    public void idle() {
        if (!selector.isOpen()) {
            return;
        }
        for (SelectionKey mine : selector.keys()) {
            mine.cancel();
        }
        try {
            selector.selectNow(ignore);
        } catch (IOException e) {
            // the flush failed: the next pass or close() releases the keys
        }
    }

    /** Closes the selector (after the bridge stopped); the channels are the loop's. */
    void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing left to release
        }
    }
}
