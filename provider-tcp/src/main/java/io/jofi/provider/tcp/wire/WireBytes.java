package io.jofi.provider.tcp.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute reads and writes of multi-byte wire fields in an explicit byte order, whatever
 * order the {@link ByteBuffer} itself is set to. The codecs never change a buffer's order
 * (the buffer may be shared with payload code), so they convert here: one
 * {@code reverseBytes} (a single instruction) when the orders differ, nothing otherwise.
 */
public final class WireBytes {

    private WireBytes() {
    }

    /**
     * Reads an unsigned 16-bit field.
     *
     * @param buffer the buffer
     * @param index  absolute index of the field
     * @param order  the field's byte order on the wire
     * @return the value, 0..65535
     */
    public static int getUnsignedShort(final ByteBuffer buffer, final int index, final ByteOrder order) {
        final short raw = buffer.getShort(index);
        return (buffer.order() == order ? raw : Short.reverseBytes(raw)) & 0xFFFF;
    }

    /**
     * Writes a 16-bit field (the low 16 bits of {@code value}).
     *
     * @param buffer the buffer
     * @param index  absolute index of the field
     * @param value  the value
     * @param order  the field's byte order on the wire
     */
    public static void putShort(final ByteBuffer buffer, final int index, final int value, final ByteOrder order) {
        final short raw = (short) value;
        buffer.putShort(index, buffer.order() == order ? raw : Short.reverseBytes(raw));
    }

    /**
     * Reads a 64-bit field.
     *
     * @param buffer the buffer
     * @param index  absolute index of the field
     * @param order  the field's byte order on the wire
     * @return the value
     */
    public static long getLong(final ByteBuffer buffer, final int index, final ByteOrder order) {
        final long raw = buffer.getLong(index);
        return buffer.order() == order ? raw : Long.reverseBytes(raw);
    }

    /**
     * Writes a 64-bit field.
     *
     * @param buffer the buffer
     * @param index  absolute index of the field
     * @param value  the value
     * @param order  the field's byte order on the wire
     */
    public static void putLong(final ByteBuffer buffer, final int index, final long value, final ByteOrder order) {
        buffer.putLong(index, buffer.order() == order ? value : Long.reverseBytes(value));
    }
}
