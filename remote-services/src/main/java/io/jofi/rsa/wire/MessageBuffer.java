package io.jofi.rsa.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A growable direct buffer that one outgoing message is encoded into: the header's room first,
 * then the body; it grows (doubling) when a value does not fit and shrinks back to its standard
 * capacity when reused, so a pooled buffer costs no allocation for ordinary calls.
 */
public final class MessageBuffer {
    private final int standardCapacity;
    private ByteBuffer buf;

    public MessageBuffer(int standardCapacity) {
        this.standardCapacity = Math.max(standardCapacity, CallDescriptor.HEADER);
        this.buf = allocate(this.standardCapacity);
        clear();
    }

    private static ByteBuffer allocate(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Ready for a new message: the write position after the header's room. */
    public void clear() {
        if (buf.capacity() > standardCapacity) {
            buf = allocate(standardCapacity);
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
            ByteBuffer bigger = allocate(capacity);
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
