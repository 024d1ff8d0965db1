package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * Looks at an {@code FI_WAIT_FD} wait object the way an application does: registers the
 * {@link SelectableChannel} with its own {@link Selector} for {@code OP_READ} and asks
 * whether it is readable.
 */
public final class FdReadiness implements AutoCloseable {
    private final Selector selector;
    private final SelectionKey key;

    /** Registers {@code channel} (made non-blocking, as docs/API.md allows) with a new selector. */
    public FdReadiness(SelectableChannel channel) {
        assertNotNull(channel, "an FI_WAIT_FD wait object must carry a SelectableChannel");
        try {
            if (channel.isBlocking()) {
                channel.configureBlocking(false);
            }
            this.selector = Selector.open();
            this.key = channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException e) {
            throw new UncheckedIOException("registering the FI_WAIT_FD channel with a Selector", e);
        }
    }

    /** Whether the channel is readable right now ({@code selectNow}). */
    public boolean readableNow() {
        try {
            selector.selectedKeys().clear();
            return selector.selectNow() > 0 && key.isReadable();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the channel becomes readable within {@code timeoutMs}. */
    public boolean readableWithin(long timeoutMs) {
        try {
            long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            while (true) {
                selector.selectedKeys().clear();
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return readableNow();
                }
                if (selector.select(left) > 0 && key.isReadable()) {
                    return true;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deregisters the channel and closes the selector (never the channel). */
    @Override
    public void close() {
        key.cancel();
        try {
            selector.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
