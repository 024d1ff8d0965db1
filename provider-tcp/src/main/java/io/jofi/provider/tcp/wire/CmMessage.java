package io.jofi.provider.tcp.wire;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_CONN_DATA_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_CONN_ID_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_HEADER_LENGTH;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_MAX_DATA_LENGTH;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_MSG_ID_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_SEG_NO_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_SEG_SIZE_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_TYPE_ACCEPT;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_TYPE_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_TYPE_REJECT;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_TYPE_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_VERSION_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CONN_DATA_BIG_ENDIAN;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CONN_DATA_LITTLE_ENDIAN;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CONN_DATA_REJECT;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.VERSION;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A reusable holder of one CM message of the MSG handshake (docs/TCP-WIRE.md "Connection handshake";
 * layout in {@link TcpWireDescriptor}): the type, the sender's {@code conn_data} (its byte
 * order declaration) and up to 256 bytes of connection data, with
 * {@link #encode(ByteBuffer)} and {@link #decode(ByteBuffer)}.
 *
 * <p>The CM header is never byte-swapped, so neither method looks at the buffer's
 * {@link ByteBuffer#order() order}: {@code seg_size} is read and written in network order,
 * {@code conn_data} as raw bytes (stored read big-endian). Not thread-safe: one holder per
 * connection handshake.
 */
public final class CmMessage {

    private final byte[] data = new byte[CM_MAX_DATA_LENGTH];
    private int version = VERSION;
    private int type = CM_TYPE_REQUEST;
    private int dataLength;
    private long connData = CONN_DATA_BIG_ENDIAN;
    private long msgId;

    /** Creates an empty connection request declaring big-endian headers. */
    public CmMessage() {
    }

    /**
     * Makes this a message JOFI sends: the given type and connection data, version 3, and
     * {@code conn_data} declaring big-endian headers (0 in a reject, as docs/TCP-WIRE.md states).
     * The connection data is copied.
     *
     * @param type   {@link TcpWireDescriptor#CM_TYPE_REQUEST}, {@code CM_TYPE_ACCEPT} or
     *               {@code CM_TYPE_REJECT}
     * @param src    the connection data (may be {@code null} when {@code length} is 0)
     * @param offset where it starts in {@code src}
     * @param length its length, at most 256 (the endpoint reports longer user data as
     *               {@code EINVAL} before it gets here)
     * @return this holder
     * @throws IllegalArgumentException for an unknown type or a length outside 0..256 (a
     *                                  programming error; nothing is changed)
     */
    public CmMessage set(final int type, final byte[] src, final int offset, final int length) {
        if (!isKnownType(type)) {
            throw new IllegalArgumentException("CM type " + type + " is not request (0), accept (1) or reject (6)");
        }
        if (length < 0 || length > CM_MAX_DATA_LENGTH) {
            throw new IllegalArgumentException("connection data of " + length + " bytes; at most "
                + CM_MAX_DATA_LENGTH + " travel in a CM message");
        }
        if (length > 0) {
            System.arraycopy(src, offset, data, 0, length);
        }
        this.version = VERSION;
        this.type = type;
        this.dataLength = length;
        this.connData = type == CM_TYPE_REJECT ? CONN_DATA_REJECT : CONN_DATA_BIG_ENDIAN;
        this.msgId = 0L;
        return this;
    }

    /**
     * Sets {@code msg_id}, which libfabric 1.17 writes as zero and never checks: JOFI puts
     * {@link TcpWireDescriptor#CM_JOFI_MARKER} there in its requests and accepts to announce its
     * wire extensions (atomics, ops 5/6). {@link #set} resets it to zero.
     *
     * @param msgId the eight bytes of {@code msg_id}, written big-endian
     * @return this holder
     */
    public CmMessage msgId(final long msgId) {
        this.msgId = msgId;
        return this;
    }

    /**
     * The decoded {@code msg_id} (big-endian).
     *
     * @return {@code msg_id}
     */
    public long msgId() {
        return msgId;
    }

    /**
     * Whether the peer announced JOFI's wire extensions ({@code msg_id} is
     * {@link TcpWireDescriptor#CM_JOFI_MARKER}; a C libfabric peer sends zero).
     *
     * @return {@code true} for a JOFI peer
     */
    public boolean isJofi() {
        return msgId == TcpWireDescriptor.CM_JOFI_MARKER;
    }

    /**
     * Overrides {@code conn_data} as read big-endian, e.g. {@link TcpWireDescriptor#CONN_DATA_LITTLE_ENDIAN}
     * to produce what a little-endian C peer sends (tests; JOFI itself always declares
     * big-endian through {@link #set}).
     *
     * @param connData the eight bytes of {@code conn_data}, read big-endian
     * @return this holder
     */
    public CmMessage connData(final long connData) {
        this.connData = connData;
        return this;
    }

    /**
     * Writes the 32-byte CM header and the connection data at {@code dst}'s position and
     * advances it.
     *
     * @param dst the buffer; needs {@link #encodedLength()} bytes remaining
     * @return the number of bytes written, {@link #encodedLength()}
     * @throws IllegalArgumentException if {@code dst} has too little room (nothing written)
     */
    public int encode(final ByteBuffer dst) {
        final int length = encodedLength();
        if (dst.remaining() < length) {
            throw new IllegalArgumentException("CM message needs " + length + " bytes, buffer has " + dst.remaining());
        }
        final int base = dst.position();
        dst.put(base + CM_VERSION_OFFSET, (byte) version);
        dst.put(base + CM_TYPE_OFFSET, (byte) type);
        WireBytes.putShort(dst, base + CM_SEG_SIZE_OFFSET, dataLength, ByteOrder.BIG_ENDIAN);
        dst.putInt(base + CM_SEG_NO_OFFSET, 0);
        dst.putLong(base + CM_CONN_ID_OFFSET, 0L);
        WireBytes.putLong(dst, base + CM_MSG_ID_OFFSET, msgId, ByteOrder.BIG_ENDIAN);
        WireBytes.putLong(dst, base + CM_CONN_DATA_OFFSET, connData, ByteOrder.BIG_ENDIAN);
        dst.put(base + CM_HEADER_LENGTH, data, 0, dataLength);
        dst.position(base + length);
        return length;
    }

    /**
     * Decodes one CM message from {@code src}'s position into this holder. Validates as soon
     * as each field has arrived, so a wrong peer is found without waiting for 32 bytes:
     * version 3 ({@link WireStatus#CM_WRONG_VERSION}), a known type
     * ({@link WireStatus#CM_BAD_TYPE}), {@code seg_size} at most 256
     * ({@link WireStatus#CM_DATA_TOO_LONG}). {@code seg_no}, {@code conn_id} and
     * {@code msg_id} are not checked (libfabric sends zeros and does not check them either).
     * Which type is acceptable at which step of the handshake (request on the passive side,
     * accept or reject on the active side) is the caller's decision, as is the mapping of a
     * wrong version (docs/TCP-WIRE.md: reset for a request, {@code ENOPROTOOPT} for a response).
     *
     * @param src the bytes received so far
     * @return the number of bytes consumed (header plus data; {@code src}'s position
     *         advanced), {@link WireStatus#NEED_MORE}, or a negative {@link WireStatus} code;
     *         on anything but success neither {@code src} nor this holder is changed
     */
    public int decode(final ByteBuffer src) {
        final int base = src.position();
        final int available = src.remaining();
        if (available < 1) {
            return WireStatus.NEED_MORE;
        }
        final int peerVersion = src.get(base + CM_VERSION_OFFSET) & 0xFF;
        if (peerVersion != VERSION) {
            return WireStatus.CM_WRONG_VERSION;
        }
        if (available < CM_TYPE_OFFSET + 1) {
            return WireStatus.NEED_MORE;
        }
        final int peerType = src.get(base + CM_TYPE_OFFSET) & 0xFF;
        if (!isKnownType(peerType)) {
            return WireStatus.CM_BAD_TYPE;
        }
        if (available < CM_SEG_SIZE_OFFSET + 2) {
            return WireStatus.NEED_MORE;
        }
        final int segSize = WireBytes.getUnsignedShort(src, base + CM_SEG_SIZE_OFFSET, ByteOrder.BIG_ENDIAN);
        if (segSize > CM_MAX_DATA_LENGTH) {
            return WireStatus.CM_DATA_TOO_LONG;
        }
        final int length = CM_HEADER_LENGTH + segSize;
        if (available < length) {
            return WireStatus.NEED_MORE;
        }
        this.version = peerVersion;
        this.type = peerType;
        this.dataLength = segSize;
        this.connData = WireBytes.getLong(src, base + CM_CONN_DATA_OFFSET, ByteOrder.BIG_ENDIAN);
        this.msgId = WireBytes.getLong(src, base + CM_MSG_ID_OFFSET, ByteOrder.BIG_ENDIAN);
        src.get(base + CM_HEADER_LENGTH, data, 0, segSize);
        src.position(base + length);
        return length;
    }

    /**
     * The CM type: {@link TcpWireDescriptor#CM_TYPE_REQUEST}, {@code CM_TYPE_ACCEPT} or
     * {@code CM_TYPE_REJECT}.
     *
     * @return the type
     */
    public int type() {
        return type;
    }

    /**
     * The version byte (3 after a successful decode).
     *
     * @return the version
     */
    public int version() {
        return version;
    }

    /**
     * The raw {@code conn_data}, read big-endian.
     *
     * @return {@link TcpWireDescriptor#CONN_DATA_BIG_ENDIAN}, {@code CONN_DATA_LITTLE_ENDIAN},
     *         {@code CONN_DATA_REJECT} or whatever the peer sent
     */
    public long connData() {
        return connData;
    }

    /**
     * The header byte order the sender declared through {@code conn_data}.
     *
     * @return {@link ByteOrder#BIG_ENDIAN} or {@link ByteOrder#LITTLE_ENDIAN}, or {@code null}
     *         if {@code conn_data} is neither declaration (a reject carries 0)
     */
    public ByteOrder declaredByteOrder() {
        if (connData == CONN_DATA_BIG_ENDIAN) {
            return ByteOrder.BIG_ENDIAN;
        }
        if (connData == CONN_DATA_LITTLE_ENDIAN) {
            return ByteOrder.LITTLE_ENDIAN;
        }
        return null;
    }

    /**
     * Length of the connection data, 0..256.
     *
     * @return the length
     */
    public int dataLength() {
        return dataLength;
    }

    /**
     * Byte {@code index} of the connection data.
     *
     * @param index 0..{@link #dataLength()}−1
     * @return the byte
     * @throws IndexOutOfBoundsException outside the connection data
     */
    public byte dataAt(final int index) {
        if (index < 0 || index >= dataLength) {
            throw new IndexOutOfBoundsException("connection data index " + index + " of " + dataLength);
        }
        return data[index];
    }

    /**
     * A fresh copy of the connection data (control path: the CM event's payload).
     *
     * @return the connection data
     */
    public byte[] dataCopy() {
        return Arrays.copyOf(data, dataLength);
    }

    /**
     * The number of bytes {@link #encode} writes: 32 plus the connection data.
     *
     * @return the encoded length
     */
    public int encodedLength() {
        return CM_HEADER_LENGTH + dataLength;
    }

    private static boolean isKnownType(final int type) {
        return type == CM_TYPE_REQUEST || type == CM_TYPE_ACCEPT || type == CM_TYPE_REJECT;
    }

    @Override
    public String toString() {
        return "CmMessage[version=" + version + ", type=" + type + ", connData=0x" + Long.toHexString(connData)
            + ", dataLength=" + dataLength + "]";
    }
}
