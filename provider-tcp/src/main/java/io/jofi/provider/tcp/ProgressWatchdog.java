package io.jofi.provider.tcp;

import java.nio.channels.SelectionKey;
import java.util.concurrent.TimeUnit;

/**
 * The progress timeout of a domain's connections ({@link TcpSettings#progressTimeout}): after
 * the domain loop's passes (at most every {@link #periodNanos}), every data connection that
 * waits for its peer and has moved no byte for the timeout is failed with {@code ETIMEDOUT}
 * ({@link TcpConnection#checkStall}). This is what finds a peer that is alive but stopped
 * ({@code SIGSTOP}), hung, or not driving its progress: its kernel still acknowledges TCP, so
 * neither keepalive nor a reset ever comes.
 */
final class ProgressWatchdog implements Runnable {
    private final NioLoop loop;
    private final long timeoutNanos;
    private final long periodNanos;
    private long next;

    ProgressWatchdog(NioLoop loop, long timeoutMillis) {
        this.loop = loop;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.periodNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(250), Math.max(1, timeoutNanos / 4));
        this.next = System.nanoTime();
    }

    /** On the domain's progress thread after each pass: one clock read unless a check is due. */
    @Override
    public void run() {
        long now = System.nanoTime();
        if (now - next < 0) {
            return;
        }
        next = now + periodNanos;
        SelectionKey[] keys = loop.polledKeys();
        for (SelectionKey k : keys) {
            if (k.attachment() instanceof TcpConnection ep) {
                ep.checkStall(now, timeoutNanos);
            }
        }
    }
}
