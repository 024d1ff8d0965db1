package io.jofi.provider.verbs.binding;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A block of native memory allocated once (work requests, SGEs, work completions,
 * out-parameters, connection data), addressed both by its native address (to pass to C)
 * and through a direct {@link ByteBuffer} view in native byte order (to read and write the
 * fields a descriptor names without a JNI call or an allocation). Zeroed when allocated.
 *
 * <p><b>Life cycle.</b> The JNA {@link Memory} is held strongly by this block, so its cleaner
 * cannot free it while the block is reachable; {@link #close()} frees it at once, exactly once
 * (a second close does nothing). After close every accessor throws
 * {@link IllegalStateException} instead of handing out the address or view of freed memory.
 * A view or address obtained <em>before</em> close cannot be revoked (a direct buffer has no
 * "closed" state): owners that cache the view ({@code SendChain}, {@code RecvChain},
 * {@code CqPoller}) check {@link #isClosed()} themselves, and whoever closes a block must
 * exclude every use of it first (the endpoint does both under its monitor).
 *
 * <p>Not thread-safe: each block has one owner that serialises its use (and its close).
 */
public final class NativeBlock implements AutoCloseable {
    private final Memory memory;
    private final long address;
    private final ByteBuffer view;
    /** Set by {@link #close()}; read by every accessor (one plain field read: the owner serialises). */
    private boolean closed;

    /** Allocates {@code size} zeroed bytes (at least 1), aligned as malloc aligns. */
    public NativeBlock(long size) {
        memory = new Memory(Math.max(1, size));
        memory.clear();
        address = Pointer.nativeValue(memory);
        view = memory.getByteBuffer(0, memory.size()).order(ByteOrder.nativeOrder());
    }

    /** The native address of byte 0. @throws IllegalStateException after {@link #close()} */
    public long address() {
        if (closed) {
            throw closedError();
        }
        return address;
    }

    /** The address of byte {@code offset}. @throws IllegalStateException after {@link #close()} */
    public long address(int offset) {
        if (closed) {
            throw closedError();
        }
        return address + offset;
    }

    /**
     * A {@link Pointer} to byte 0 (for JNA {@code Function} arguments; make it once).
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public Pointer pointer() {
        if (closed) {
            throw closedError();
        }
        return memory;
    }

    /**
     * The block as a direct buffer in native byte order; absolute gets and puts only.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public ByteBuffer view() {
        if (closed) {
            throw closedError();
        }
        return view;
    }

    /** The size in bytes (still answered after close: it is not a use of the memory). */
    public long size() {
        return view.capacity();
    }

    /** Sets every byte to 0. @throws IllegalStateException after {@link #close()} */
    public void clear() {
        if (closed) {
            throw closedError();
        }
        memory.clear();
    }

    /** Whether {@link #close()} ran (for owners that cached the view). */
    public boolean isClosed() {
        return closed;
    }

    /** Frees the memory; no use afterwards. Idempotent: a second close does nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        memory.close();
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("native block of " + view.capacity() + " bytes at 0x"
                + Long.toHexString(address) + " is closed (its memory was freed)");
    }
}
