package io.jofi.rsa.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.IntFunction;

/**
 * A growable direct buffer that one outgoing message is encoded into: the header's room first,
 * then the body; it grows (doubling, through the grower: the channel's domain memory, which a
 * shm peer can read directly) when a value does not fit. A grown buffer up to
 * {@link #KEEP_LIMIT} is kept for the next message, so a pooled buffer costs no allocation for
 * ordinary calls nor for repeated large ones; a larger one goes back to the standard size.
 */
public final class MessageBuffer {
    /** Grown buffers up to this size are kept for reuse. */
    public static final int KEEP_LIMIT = 4 << 20;

    private final int standardCapacity;
    private final IntFunction<ByteBuffer> grower;
    private ByteBuffer buf;

    public MessageBuffer(int standardCapacity) {
        this(standardCapacity, ByteBuffer::allocateDirect);
    }

    /** @param grower allocates the direct buffer a message grows into */
    public MessageBuffer(int standardCapacity, IntFunction<ByteBuffer> grower) {
        this.standardCapacity = Math.max(standardCapacity, CallDescriptor.HEADER);
        this.grower = grower;
        this.buf = ByteBuffer.allocateDirect(this.standardCapacity).order(ByteOrder.LITTLE_ENDIAN);
        clear();
    }

    /** Ready for a new message: the write position after the header's room. */
    public void clear() {
        if (buf.capacity() > KEEP_LIMIT) {
            buf = ByteBuffer.allocateDirect(standardCapacity).order(ByteOrder.LITTLE_ENDIAN);
        }
        buf.clear().position(CallDescriptor.HEADER);
    }

    /** The buffer; its position is where the next byte goes. */
    public ByteBuffer buffer() {
        return buf;
    }

    /** Makes room for {@code bytes} more bytes, growing the buffer if needed. */
    public ByteBuffer ensure(int bytes) {
        if (buf.remaining() < bytes) {
            long needed = (long) buf.position() + bytes;
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("a message of " + needed + " bytes is too large");
            }
            int capacity = buf.capacity();
            while (capacity < needed) {
                capacity = (int) Math.min(Integer.MAX_VALUE - 16, capacity * 2L);
            }
            ByteBuffer bigger = grower.apply(capacity).order(ByteOrder.LITTLE_ENDIAN);
            buf.flip();
            bigger.put(buf);
            buf = bigger;
        }
        return buf;
    }

    /** The body's length so far. */
    public int bodyLength() {
        return buf.position() - CallDescriptor.HEADER;
    }

    /** The whole message as {@code [0, length)}: position 0, limit the end of the body. */
    public ByteBuffer flip() {
        return buf.flip();
    }
}
