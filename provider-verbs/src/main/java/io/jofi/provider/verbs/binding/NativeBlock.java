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
 * <p>Not thread-safe: each block has one owner that serialises its use.
 */
public final class NativeBlock implements AutoCloseable {
    private final Memory memory;
    private final long address;
    private final ByteBuffer view;

    /** Allocates {@code size} zeroed bytes (at least 1), aligned as malloc aligns. */
    public NativeBlock(long size) {
        memory = new Memory(Math.max(1, size));
        memory.clear();
        address = Pointer.nativeValue(memory);
        view = memory.getByteBuffer(0, memory.size()).order(ByteOrder.nativeOrder());
    }

    /** The native address of byte 0. */
    public long address() {
        return address;
    }

    /** The address of byte {@code offset}. */
    public long address(int offset) {
        return address + offset;
    }

    /** A {@link Pointer} to byte 0 (for JNA {@code Function} arguments; make it once). */
    public Pointer pointer() {
        return memory;
    }

    /** The block as a direct buffer in native byte order; absolute gets and puts only. */
    public ByteBuffer view() {
        return view;
    }

    /** The size in bytes. */
    public long size() {
        return memory.size();
    }

    /** Sets every byte to 0. */
    public void clear() {
        memory.clear();
    }

    /** Frees the memory; no use afterwards. */
    @Override
    public void close() {
        memory.close();
    }
}
