package io.jofi.provider.tcp.wire;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.BASE_HEADER_LENGTH;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAGS_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.HDR_SIZE_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.ID_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.MAX_HEADER_LENGTH;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.MAX_OP;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.MAX_RMA_IOV_COUNT;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_DATA_ACK;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_DATA_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_MSG;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.RMA_IOV_ADDR_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.RMA_IOV_COUNT_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.RMA_IOV_KEY_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.RMA_IOV_LENGTH;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.RMA_IOV_LEN_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.SIZE_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.VERSION;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.VERSION_OFFSET;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable, mutable holder of one message header (docs/TCP-WIRE.md "Messages"; layout in
 * {@link TcpWireDescriptor}): the base header fields plus the remote CQ data, the tag and up
 * to 4 RMA descriptors. One instance per connection and direction, reused for every message:
 * nothing is allocated by {@link #encode} or {@link #decode}.
 *
 * <p>Sending: {@link #clear()}, set the fields, {@link #encode(ByteBuffer)} — which derives
 * {@code hdr_size} from op, flags and descriptor count ({@link TcpWireDescriptor#headerLength})
 * and {@code size} from {@link #payloadLength(long)}, so an encoded header is always
 * consistent. Receiving: {@link #decode(ByteBuffer, long)}, which validates exactly the
 * docs/TCP-WIRE.md "Bad input" list and reports each violation with its own {@link WireStatus}.
 *
 * <p>Multi-byte fields travel in the connection's header byte order, fixed at construction
 * (big-endian on every JOFI connection, see docs/TCP-WIRE.md "Byte order"; little-endian exists to
 * read and write what two little-endian C peers exchange). The buffer's own order is never
 * used or changed. Not thread-safe.
 */
public final class MessageHeader {

    private final ByteOrder byteOrder;
    private final long[] rmaAddr = new long[MAX_RMA_IOV_COUNT];
    private final long[] rmaLen = new long[MAX_RMA_IOV_COUNT];
    private final long[] rmaKey = new long[MAX_RMA_IOV_COUNT];

    private int version = VERSION;
    private int op;
    private int flags;
    private int opData;
    private int rmaIovCount;
    private int hdrSize = BASE_HEADER_LENGTH;
    private int id;
    private long size = BASE_HEADER_LENGTH;
    private long cqData;
    private long tag;

    /** A holder for big-endian headers, JOFI's order on every connection. */
    public MessageHeader() {
        this(ByteOrder.BIG_ENDIAN);
    }

    /**
     * A holder for headers in the given byte order.
     *
     * @param byteOrder the order of {@code flags}, {@code size} and the extension words
     */
    public MessageHeader(final ByteOrder byteOrder) {
        if (byteOrder == null) {
            throw new IllegalArgumentException("byteOrder is null");
        }
        this.byteOrder = byteOrder;
    }

    /**
     * Resets to an empty message: version 3, op msg, no flags, no extensions, no payload
     * ({@code hdr_size} and {@code size} 16). The id is kept (it counts per connection).
     *
     * @return this holder
     */
    public MessageHeader clear() {
        version = VERSION;
        op = OP_MSG;
        flags = 0;
        opData = 0;
        rmaIovCount = 0;
        hdrSize = BASE_HEADER_LENGTH;
        size = BASE_HEADER_LENGTH;
        cqData = 0;
        tag = 0;
        return this;
    }

    /**
     * Makes this an acknowledgement (docs/TCP-WIRE.md "Acknowledgements"): op msg, op_data 2, no
     * flags, no extensions, no payload.
     *
     * @return this holder
     */
    public MessageHeader ack() {
        clear();
        opData = OP_DATA_ACK;
        return this;
    }

    /**
     * Encodes the header at {@code dst}'s position and advances it. {@code hdr_size} is
     * derived from op, flags and the descriptor count; {@code size} is {@code hdr_size} plus
     * the payload length.
     *
     * @param dst the buffer
     * @return the number of bytes written ({@code hdr_size}), or 0 if {@code dst} has less
     *         room than that (nothing written)
     * @throws IllegalStateException if the fields describe a header above 120 bytes (a
     *                               programming error: e.g. a tag plus 4 descriptors and CQ data)
     */
    public int encode(final ByteBuffer dst) {
        final int length = TcpWireDescriptor.headerLength(op, flags, rmaIovCount, opData);
        if (length > MAX_HEADER_LENGTH) {
            throw new IllegalStateException("header of " + length + " bytes; at most " + MAX_HEADER_LENGTH);
        }
        if (dst.remaining() < length) {
            return 0;
        }
        final long payload = size - hdrSize;
        hdrSize = length;
        size = length + payload;

        final int base = dst.position();
        dst.put(base + VERSION_OFFSET, (byte) version);
        dst.put(base + OP_OFFSET, (byte) op);
        WireBytes.putShort(dst, base + FLAGS_OFFSET, flags, byteOrder);
        dst.put(base + OP_DATA_OFFSET, (byte) opData);
        dst.put(base + RMA_IOV_COUNT_OFFSET, (byte) rmaIovCount);
        dst.put(base + HDR_SIZE_OFFSET, (byte) length);
        dst.put(base + ID_OFFSET, (byte) id);
        WireBytes.putLong(dst, base + SIZE_OFFSET, size, byteOrder);
        final boolean bare = TcpWireDescriptor.isBare(op, opData);
        if (!bare && TcpWireDescriptor.hasCqData(op, flags)) {
            WireBytes.putLong(dst, base + TcpWireDescriptor.cqDataOffset(), cqData, byteOrder);
        }
        if (!bare && TcpWireDescriptor.hasTag(op, flags)) {
            WireBytes.putLong(dst, base + TcpWireDescriptor.tagOffset(op, flags), tag, byteOrder);
        }
        // only ops with descriptors carry them (a read response or an ack is a bare base header)
        final int count = TcpWireDescriptor.usesRmaIovs(op, opData) ? rmaIovCount : 0;
        int at = base + TcpWireDescriptor.rmaIovOffset(op, flags);
        for (int i = 0; i < count; i++, at += RMA_IOV_LENGTH) {
            WireBytes.putLong(dst, at + RMA_IOV_ADDR_OFFSET, rmaAddr[i], byteOrder);
            WireBytes.putLong(dst, at + RMA_IOV_LEN_OFFSET, rmaLen[i], byteOrder);
            WireBytes.putLong(dst, at + RMA_IOV_KEY_OFFSET, rmaKey[i], byteOrder);
        }
        dst.position(base + length);
        return length;
    }

    /**
     * Decodes one header from {@code src}'s position into this holder, validating the docs/TCP-WIRE.md "Bad input" list, each field as soon as its bytes have arrived (so a broken peer
     * is found early and a prefix of a header never reports a different error than the whole):
     * <ol>
     *   <li>op above 4: {@link WireStatus#UNKNOWN_OP};</li>
     *   <li>{@code rma_iov_cnt} above 4: {@link WireStatus#TOO_MANY_RMA_IOVS} — only for ops
     *       with descriptors ({@link TcpWireDescriptor#usesRmaIovs}); any other header's count is
     *       ignored and decoded as 0;</li>
     *   <li>{@code hdr_size} below 16: {@link WireStatus#HDR_SIZE_TOO_SMALL}; above 120:
     *       {@link WireStatus#HDR_SIZE_TOO_LARGE}; other than the extensions op, flags and
     *       {@code rma_iov_cnt} imply: {@link WireStatus#HDR_SIZE_MISMATCH};</li>
     *   <li>{@code size} (unsigned) below {@code hdr_size}: {@link WireStatus#SIZE_BELOW_HDR_SIZE};
     *       payload above {@code maxMessageSize}: {@link WireStatus#MESSAGE_TOO_LARGE}.</li>
     * </ol>
     * The version byte is stored, not checked (docs/TCP-WIRE.md: libfabric does not check it on data
     * messages); the id byte likewise. Unknown flag bits are kept and ignored.
     *
     * @param src            the bytes received so far
     * @param maxMessageSize the largest payload accepted (the endpoint's {@code max_msg_size})
     * @return the number of bytes consumed ({@code hdr_size}; {@code src}'s position advanced),
     *         {@link WireStatus#NEED_MORE}, or a negative {@link WireStatus} code; on anything
     *         but success neither {@code src} nor this holder is changed
     */
    public int decode(final ByteBuffer src, final long maxMessageSize) {
        return decode(src, maxMessageSize, MAX_OP);
    }

    /**
     * As {@link #decode(ByteBuffer, long)}, accepting ops up to {@code maxOp}: a connection
     * that negotiated JOFI's extensions passes {@link TcpWireDescriptor#MAX_JOFI_OP} (atomics,
     * ops 5 and 6); every other connection {@link TcpWireDescriptor#MAX_OP}.
     *
     * @param src            the bytes received so far
     * @param maxMessageSize the largest payload accepted
     * @param maxOp          the highest op accepted ({@code MAX_OP} or {@code MAX_JOFI_OP})
     * @return as {@link #decode(ByteBuffer, long)}
     */
    public int decode(final ByteBuffer src, final long maxMessageSize, final int maxOp) {
        final int base = src.position();
        final int available = src.remaining();
        if (available <= OP_OFFSET) {
            return WireStatus.NEED_MORE;
        }
        final int peerOp = src.get(base + OP_OFFSET) & 0xFF;
        if (peerOp > maxOp) {
            return WireStatus.UNKNOWN_OP;
        }
        if (available <= RMA_IOV_COUNT_OFFSET) {
            return WireStatus.NEED_MORE;
        }
        // rma_iov_cnt counts only for ops with descriptors: libfabric leaves a stale count in
        // the messages and acks it sends after an RMA operation (TcpWireDescriptor.usesRmaIovs)
        final int peerRmaIovCount = TcpWireDescriptor.usesRmaIovs(peerOp, src.get(base + OP_DATA_OFFSET) & 0xFF)
            ? src.get(base + RMA_IOV_COUNT_OFFSET) & 0xFF : 0;
        if (peerRmaIovCount > MAX_RMA_IOV_COUNT) {
            return WireStatus.TOO_MANY_RMA_IOVS;
        }
        if (available <= HDR_SIZE_OFFSET) {
            return WireStatus.NEED_MORE;
        }
        final int peerHdrSize = src.get(base + HDR_SIZE_OFFSET) & 0xFF;
        if (peerHdrSize < BASE_HEADER_LENGTH) {
            return WireStatus.HDR_SIZE_TOO_SMALL;
        }
        if (peerHdrSize > MAX_HEADER_LENGTH) {
            return WireStatus.HDR_SIZE_TOO_LARGE;
        }
        final int peerFlags = WireBytes.getUnsignedShort(src, base + FLAGS_OFFSET, byteOrder);
        final int peerOpData = src.get(base + OP_DATA_OFFSET) & 0xFF;
        if (peerHdrSize != TcpWireDescriptor.headerLength(peerOp, peerFlags, peerRmaIovCount, peerOpData)) {
            return WireStatus.HDR_SIZE_MISMATCH;
        }
        if (available < BASE_HEADER_LENGTH) {
            return WireStatus.NEED_MORE;
        }
        final long peerSize = WireBytes.getLong(src, base + SIZE_OFFSET, byteOrder);
        // size is an unsigned 64-bit count: compare unsigned, so 2^63 and above are "too large"
        if (Long.compareUnsigned(peerSize, peerHdrSize) < 0) {
            return WireStatus.SIZE_BELOW_HDR_SIZE;
        }
        if (Long.compareUnsigned(peerSize - peerHdrSize, maxMessageSize) > 0) {
            return WireStatus.MESSAGE_TOO_LARGE;
        }
        if (available < peerHdrSize) {
            return WireStatus.NEED_MORE;
        }

        // valid and complete: commit to the holder
        version = src.get(base + VERSION_OFFSET) & 0xFF;
        op = peerOp;
        flags = peerFlags;
        opData = src.get(base + OP_DATA_OFFSET) & 0xFF;
        rmaIovCount = peerRmaIovCount;
        hdrSize = peerHdrSize;
        id = src.get(base + ID_OFFSET) & 0xFF;
        size = peerSize;
        final boolean bare = TcpWireDescriptor.isBare(peerOp, peerOpData);
        cqData = !bare && TcpWireDescriptor.hasCqData(peerOp, peerFlags)
            ? WireBytes.getLong(src, base + TcpWireDescriptor.cqDataOffset(), byteOrder) : 0L;
        tag = !bare && TcpWireDescriptor.hasTag(peerOp, peerFlags)
            ? WireBytes.getLong(src, base + TcpWireDescriptor.tagOffset(peerOp, peerFlags), byteOrder) : 0L;
        final int count = peerRmaIovCount; // 0 unless the op has descriptors (see above)
        int at = base + TcpWireDescriptor.rmaIovOffset(peerOp, peerFlags);
        for (int i = 0; i < count; i++, at += RMA_IOV_LENGTH) {
            rmaAddr[i] = WireBytes.getLong(src, at + RMA_IOV_ADDR_OFFSET, byteOrder);
            rmaLen[i] = WireBytes.getLong(src, at + RMA_IOV_LEN_OFFSET, byteOrder);
            rmaKey[i] = WireBytes.getLong(src, at + RMA_IOV_KEY_OFFSET, byteOrder);
        }
        src.position(base + peerHdrSize);
        return peerHdrSize;
    }

    // ---------------------------------------------------------------- setters (sending side)

    /**
     * Sets the op code.
     *
     * @param op {@link TcpWireDescriptor#OP_MSG} .. {@link TcpWireDescriptor#OP_WRITE}
     * @return this holder
     * @throws IllegalArgumentException outside 0..4
     */
    public MessageHeader op(final int op) {
        if (op < 0 || op > TcpWireDescriptor.MAX_JOFI_OP) {
            throw new IllegalArgumentException("op " + op + " outside 0.." + TcpWireDescriptor.MAX_JOFI_OP);
        }
        this.op = op;
        return this;
    }

    /**
     * Sets the flags ({@code TcpWireDescriptor.FLAG_*}); bit 0 and bit 7 decide which
     * extensions {@link #encode} writes.
     *
     * @param flags the 16-bit flags
     * @return this holder
     */
    public MessageHeader flags(final int flags) {
        this.flags = flags & 0xFFFF;
        return this;
    }

    /**
     * Sets op_data ({@link TcpWireDescriptor#OP_DATA_ACK} for an acknowledgement).
     *
     * @param opData the byte
     * @return this holder
     */
    public MessageHeader opData(final int opData) {
        this.opData = opData & 0xFF;
        return this;
    }

    /**
     * Sets the id byte (docs/TCP-WIRE.md: send an incrementing id per connection and direction).
     *
     * @param id the byte (the low 8 bits are kept)
     * @return this holder
     */
    public MessageHeader id(final int id) {
        this.id = id & 0xFF;
        return this;
    }

    /**
     * Sets the version byte (always 3 for JOFI; settable to reproduce a peer's header).
     *
     * @param version the byte
     * @return this holder
     */
    public MessageHeader version(final int version) {
        this.version = version & 0xFF;
        return this;
    }

    /**
     * Sets the remote CQ data word and flag bit 0 (fi_senddata, fi_writedata).
     *
     * @param cqData the 8 bytes of remote CQ data
     * @return this holder
     */
    public MessageHeader cqData(final long cqData) {
        this.cqData = cqData;
        this.flags |= TcpWireDescriptor.FLAG_REMOTE_CQ_DATA;
        return this;
    }

    /**
     * Sets the tag word (written for op tagged or flag bit 7).
     *
     * @param tag the tag
     * @return this holder
     */
    public MessageHeader tag(final long tag) {
        this.tag = tag;
        return this;
    }

    /**
     * Sets the number of RMA descriptors.
     *
     * @param count 0..4
     * @return this holder
     * @throws IllegalArgumentException outside 0..4
     */
    public MessageHeader rmaIovCount(final int count) {
        if (count < 0 || count > MAX_RMA_IOV_COUNT) {
            throw new IllegalArgumentException("rma_iov_cnt " + count + " outside 0.." + MAX_RMA_IOV_COUNT);
        }
        this.rmaIovCount = count;
        return this;
    }

    /**
     * Sets RMA descriptor {@code index}.
     *
     * @param index 0..3
     * @param addr  the target address (or offset, FI_MR_VIRT_ADDR off)
     * @param len   the length
     * @param key   the memory region key
     * @return this holder
     */
    public MessageHeader rmaIov(final int index, final long addr, final long len, final long key) {
        rmaAddr[index] = addr;
        rmaLen[index] = len;
        rmaKey[index] = key;
        return this;
    }

    /**
     * Sets the payload length; {@link #encode} writes {@code size = hdr_size + payloadLength}.
     *
     * @param payloadLength the payload bytes that follow the header, at least 0
     * @return this holder
     * @throws IllegalArgumentException if negative
     */
    public MessageHeader payloadLength(final long payloadLength) {
        if (payloadLength < 0) {
            throw new IllegalArgumentException("negative payload length " + payloadLength);
        }
        this.size = hdrSize + payloadLength;
        return this;
    }

    // ---------------------------------------------------------------- getters

    /** @return the header byte order of this holder */
    public ByteOrder byteOrder() {
        return byteOrder;
    }

    /** @return the version byte */
    public int version() {
        return version;
    }

    /** @return the op code */
    public int op() {
        return op;
    }

    /** @return the 16-bit flags */
    public int flags() {
        return flags;
    }

    /** @return the op_data byte */
    public int opData() {
        return opData;
    }

    /** @return whether this header is an acknowledgement (op_data 2) */
    public boolean isAck() {
        return opData == OP_DATA_ACK;
    }

    /** @return whether the sender asked for an acknowledgement (flag bit 2) */
    public boolean ackRequested() {
        return (flags & TcpWireDescriptor.FLAG_DELIVERY_COMPLETE) != 0;
    }

    /** @return whether the header carries remote CQ data */
    public boolean hasCqData() {
        return !TcpWireDescriptor.isBare(op, opData) && TcpWireDescriptor.hasCqData(op, flags);
    }

    /** @return whether the header carries a tag */
    public boolean hasTag() {
        return !TcpWireDescriptor.isBare(op, opData) && TcpWireDescriptor.hasTag(op, flags);
    }

    /** @return the number of RMA descriptors */
    public int rmaIovCount() {
        return rmaIovCount;
    }

    /** @return {@code hdr_size}: as decoded, or as written by the last {@link #encode} */
    public int hdrSize() {
        return hdrSize;
    }

    /** @return the id byte */
    public int id() {
        return id;
    }

    /** @return {@code size}: header plus payload length */
    public long size() {
        return size;
    }

    /** @return the payload length, {@code size - hdr_size} */
    public long payloadLength() {
        return size - hdrSize;
    }

    /** @return the remote CQ data (0 if absent) */
    public long cqData() {
        return cqData;
    }

    /** @return the tag (0 if absent) */
    public long tag() {
        return tag;
    }

    /**
     * @param index 0..{@link #rmaIovCount()}−1
     * @return the address of RMA descriptor {@code index}
     */
    public long rmaAddr(final int index) {
        return rmaAddr[index];
    }

    /**
     * @param index 0..{@link #rmaIovCount()}−1
     * @return the length of RMA descriptor {@code index}
     */
    public long rmaLen(final int index) {
        return rmaLen[index];
    }

    /**
     * @param index 0..{@link #rmaIovCount()}−1
     * @return the key of RMA descriptor {@code index}
     */
    public long rmaKey(final int index) {
        return rmaKey[index];
    }

    @Override
    public String toString() {
        return "MessageHeader[version=" + version + ", op=" + op + ", flags=0x" + Integer.toHexString(flags)
            + ", opData=" + opData + ", rmaIovCount=" + rmaIovCount + ", hdrSize=" + hdrSize + ", id=" + id
            + ", size=" + size + ", cqData=0x" + Long.toHexString(cqData) + ", tag=0x" + Long.toHexString(tag) + "]";
    }
}
