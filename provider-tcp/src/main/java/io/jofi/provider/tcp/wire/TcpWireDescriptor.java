package io.jofi.provider.tcp.wire;

/**
 * The one place of every byte layout of libfabric's tcp wire format (header version 3), as
 * docs/TCP-WIRE.md states it: the connection-management (CM) message of the MSG
 * handshake and the header of every data message. Offsets and sizes are named here and
 * nowhere else; {@link CmMessage} and {@link MessageHeader} use only these names.
 *
 * <h2>CM message (handshake, docs/TCP-WIRE.md "Connection handshake")</h2>
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |  version (3)  |     type      |   seg_size (network order)    |  0
 *  +---------------+---------------+-------------------------------+
 *  |                         seg_no (0)                            |  4
 *  +---------------------------------------------------------------+
 *  |                         conn_id (0)                           |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                         msg_id (0)                            | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |   conn_data: the integer 1 in the sender's byte order          | 24
 *  |   (0 in a reject)                                             |
 *  +---------------------------------------------------------------+
 *  |   seg_size bytes of connection data (at most 256)            ... 32
 *  +---------------------------------------------------------------+
 * </pre>
 * Types: {@link #CM_TYPE_REQUEST} 0, {@link #CM_TYPE_ACCEPT} 1, {@link #CM_TYPE_REJECT} 6. The
 * CM header is never byte-swapped: one-byte fields, {@code seg_size} always big-endian, the
 * zero words are zero in either order, and {@code conn_data} is the very thing that declares
 * the sender's order. JOFI always declares big-endian ({@link #CONN_DATA_BIG_ENDIAN}).
 *
 * <h2>Message header (docs/TCP-WIRE.md "Messages")</h2>
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |  version (3)  |      op       |            flags              |  0
 *  +---------------+---------------+---------------+---------------+
 *  |    op_data    |  rma_iov_cnt  |   hdr_size    |      id       |  4
 *  +---------------+---------------+---------------+---------------+
 *  |            size = hdr_size + payload length (8 bytes)         |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+ 16 = BASE_HEADER_LENGTH
 *  |   remote CQ data (8 bytes)              only if flags bit 0   |
 *  +---------------------------------------------------------------+
 *  |   tag (8 bytes)            only if op = tagged or flags bit 7 |
 *  +---------------------------------------------------------------+
 *  |   rma_iov_cnt x { addr (8) | len (8) | key (8) }  (24 each)   |
 *  +---------------------------------------------------------------+ hdr_size (at most 120)
 *  |   payload: size - hdr_size bytes                             ...
 *  +---------------------------------------------------------------+
 * </pre>
 * The extensions follow in exactly that order; {@code hdr_size} is 16 plus the extensions
 * present ({@link #headerLength}). One exception, from the source: libfabric builds an RMA
 * read response from a copy of the request's header and sets {@code hdr_size} to 16, so a read
 * response is a bare base header whatever its {@code rma_iov_cnt} and flags say. Multi-byte fields ({@code flags}, {@code size}, every 8-byte extension word)
 * travel in the connection's header byte order — big-endian on every JOFI connection; the
 * one-byte fields and the payload are never converted. The {@code version} byte of data
 * messages is written as 3 and never checked (libfabric does not check it either); the
 * {@code id} byte is written as a per-connection, per-direction counter and never checked.
 *
 * <p>An acknowledgement ({@link #OP_DATA_ACK}) is a bare base header: op {@link #OP_MSG},
 * op_data 2, hdr_size 16, size 16. It answers a message whose flags carry
 * {@link #FLAG_DELIVERY_COMPLETE}.
 */
public final class TcpWireDescriptor {

    private TcpWireDescriptor() {
    }

    /** The wire version of both the CM header and message headers. */
    public static final int VERSION = 3;

    // ---------------------------------------------------------------- CM message

    /** Offset of the one-byte version in the CM header. */
    public static final int CM_VERSION_OFFSET = 0;
    /** Offset of the one-byte type in the CM header. */
    public static final int CM_TYPE_OFFSET = 1;
    /** Offset of the two-byte {@code seg_size} (always network order) in the CM header. */
    public static final int CM_SEG_SIZE_OFFSET = 2;
    /** Offset of the four-byte {@code seg_no} (always 0) in the CM header. */
    public static final int CM_SEG_NO_OFFSET = 4;
    /** Offset of the eight-byte {@code conn_id} (always 0) in the CM header. */
    public static final int CM_CONN_ID_OFFSET = 8;
    /** Offset of the eight-byte {@code msg_id} (always 0) in the CM header. */
    public static final int CM_MSG_ID_OFFSET = 16;
    /** Offset of the eight-byte {@code conn_data} (the byte-order declaration). */
    public static final int CM_CONN_DATA_OFFSET = 24;
    /** Length of the CM header; the connection data follows it. */
    public static final int CM_HEADER_LENGTH = 32;
    /**
     * Most connection data a CM message carries. libfabric 1.17 keeps only 256 bytes and reads
     * the rest of the stream as message headers, so JOFI never sends more and refuses more.
     */
    public static final int CM_MAX_DATA_LENGTH = 256;

    /** CM type: connection request (active to passive side). */
    public static final int CM_TYPE_REQUEST = 0;
    /** CM type: connection response, i.e. accept (passive to active side). */
    public static final int CM_TYPE_ACCEPT = 1;
    /** CM type: reject; carries the reject data, then the passive side shuts the socket. */
    public static final int CM_TYPE_REJECT = 6;

    /**
     * {@code conn_data} of a sender declaring big-endian headers, read big-endian: the
     * integer 1 written big-endian. JOFI always sends this (in requests and accepts).
     */
    public static final long CONN_DATA_BIG_ENDIAN = 1L;
    /**
     * {@code conn_data} of a sender declaring little-endian headers, read big-endian: the
     * integer 1 written little-endian (what libfabric on x86-64 and aarch64 sends).
     */
    public static final long CONN_DATA_LITTLE_ENDIAN = 0x0100_0000_0000_0000L;
    /** {@code conn_data} of a reject. */
    public static final long CONN_DATA_REJECT = 0L;

    /**
     * JOFI's marker in the CM header's {@code msg_id} (offset 16, 8 bytes, big-endian): ASCII
     * {@code "JOFI"} followed by the extension version 1. libfabric 1.17 writes zero there and
     * never reads it, so a C peer is unaffected and is recognised as "not JOFI". A connection
     * whose both CM messages (request and accept) carry it negotiated JOFI's extensions: the
     * atomic ops {@link #OP_ATOMIC_REQUEST}/{@link #OP_ATOMIC_RESPONSE} and
     * {@link #FLAG_JOFI_MATCH_COMPLETE}.
     * <pre>
     *  offset 16: 4a 4f 46 49 00 00 00 01     "JOFI", extension version 1
     * </pre>
     */
    public static final long CM_JOFI_MARKER = 0x4A4F_4649_0000_0001L;

    // ---------------------------------------------------------------- message header

    /** Offset of the one-byte version (written 3, never checked). */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the one-byte op code. */
    public static final int OP_OFFSET = 1;
    /** Offset of the two-byte flags (header byte order). */
    public static final int FLAGS_OFFSET = 2;
    /** Offset of the one-byte op_data ({@link #OP_DATA_ACK} marks an acknowledgement). */
    public static final int OP_DATA_OFFSET = 4;
    /** Offset of the one-byte number of RMA descriptors that follow. */
    public static final int RMA_IOV_COUNT_OFFSET = 5;
    /** Offset of the one-byte total header length. */
    public static final int HDR_SIZE_OFFSET = 6;
    /** Offset of the one-byte id (a counter in debug builds of libfabric; never checked). */
    public static final int ID_OFFSET = 7;
    /** Offset of the eight-byte size: header plus payload length (header byte order). */
    public static final int SIZE_OFFSET = 8;
    /** Length of the base header every message starts with. */
    public static final int BASE_HEADER_LENGTH = 16;

    /** Length of the remote CQ data extension (present when {@link #FLAG_REMOTE_CQ_DATA}). */
    public static final int CQ_DATA_LENGTH = 8;
    /** Length of the tag extension (present for {@link #OP_TAGGED} or {@link #FLAG_TAGGED}). */
    public static final int TAG_LENGTH = 8;
    /** Offset of {@code addr} within one RMA descriptor. */
    public static final int RMA_IOV_ADDR_OFFSET = 0;
    /** Offset of {@code len} within one RMA descriptor. */
    public static final int RMA_IOV_LEN_OFFSET = 8;
    /** Offset of {@code key} within one RMA descriptor. */
    public static final int RMA_IOV_KEY_OFFSET = 16;
    /** Length of one RMA descriptor {@code {addr, len, key}}. */
    public static final int RMA_IOV_LENGTH = 24;
    /** Most RMA descriptors one header carries. */
    public static final int MAX_RMA_IOV_COUNT = 4;
    /**
     * Largest {@code hdr_size} (libfabric's largest header: base + CQ data + 4 RMA
     * descriptors = 16 + 8 + 96).
     */
    public static final int MAX_HEADER_LENGTH = 120;

    /** Op: a message (send/inject/senddata; also the op of an acknowledgement). */
    public static final int OP_MSG = 0;
    /** Op: a tagged message; the header carries the tag extension. */
    public static final int OP_TAGGED = 1;
    /** Op: RMA read request; descriptors name the target's memory. */
    public static final int OP_READ_REQUEST = 2;
    /** Op: RMA read response; the payload is the data read. */
    public static final int OP_READ_RESPONSE = 3;
    /** Op: RMA write; descriptors name the target's memory, the payload is the data. */
    public static final int OP_WRITE = 4;
    /** Highest op code; anything above is an I/O error that drops the connection. */
    public static final int MAX_OP = OP_WRITE;

    /*
     * JOFI extension (only on connections that negotiated it, CM_JOFI_MARKER): 64-bit atomics.
     * libfabric's tcp wire has none (op > 4 drops the connection in C), so a connection to a C
     * peer never carries them and the decoder refuses them there (UNKNOWN_OP).
     *
     * Atomic request (op 5): base header + one RMA descriptor naming the 8-byte target word,
     * then a 24-byte payload. op_data stays 0 (op_data 2 would read as an ack).
     *
     *   0      1      2      4      5      6      7      8                16
     *   +------+------+------+------+------+------+------+----------------+
     *   | 3    | 5    | 0    | 0    | 1    | 40   | id   | size = 64      |
     *   +------+------+------+------+------+------+------+----------------+
     *   16: addr (8)   24: len = 8 (8)   32: key (8)
     *   40: atomic (8): bits 0-7 the fi_atomic op (Fi.FI_SUM = 2, FI_CSWAP = 12, ...),
     *                   bit 8 set when the initiator fetches the old value,
     *                   bit 9 (ATOMIC_TYPED) set for a datatype and count: bits 16-23 the
     *                   datatype (Fi.FI_INT8 = 0 ...), bits 32-47 the count; len = count x size
     *   48: operand (8)   56: compare (8; a compare op, else 0)    -- all in header byte order
     *   A typed request packs its count x size (at most 8) bytes of operands and of compare
     *   values into those words, laid out as in the initiator's memory, element 0 first; its
     *   response packs the old elements alike.
     *
     * Atomic response (op 6): a bare base header (like a read response) + the old value of the
     * word (8 bytes, header byte order). Responses come in request order.
     *
     *   0      1      2      4      5      6      7      8              16            24
     *   +------+------+------+------+------+------+------+--------------+-------------+
     *   | 3    | 6    | 0    | 0    | 0    | 16   | id   | size = 24    | old value   |
     *   +------+------+------+------+------+------+------+--------------+-------------+
     */

    /** JOFI op: atomic request (negotiated connections only). */
    public static final int OP_ATOMIC_REQUEST = 5;
    /** JOFI op: atomic response, the old value (negotiated connections only). */
    public static final int OP_ATOMIC_RESPONSE = 6;
    /** Highest op code on a connection that negotiated JOFI's extensions. */
    public static final int MAX_JOFI_OP = OP_ATOMIC_RESPONSE;
    /** Payload of an atomic request: the op word, the operand, the compare value. */
    public static final int ATOMIC_REQUEST_PAYLOAD = 24;
    /** Bit of the atomic request's op word: the initiator fetches the old value. */
    public static final int ATOMIC_FETCH = 1 << 8;
    /** Bit of the atomic request's op word: a datatype and count follow in it (bits 16-23, 32-47). */
    public static final long ATOMIC_TYPED = 1 << 9;
    /** The bytes of elements a typed atomic request carries at most (one operand word). */
    public static final int ATOMIC_TYPED_BYTES = 8;
    /** Payload of an atomic response: the old value. */
    public static final int ATOMIC_RESPONSE_PAYLOAD = 8;

    /** Flag bit 0: the remote CQ data extension is present. */
    public static final int FLAG_REMOTE_CQ_DATA = 1;
    /**
     * Flag bit 2: delivery or transmit complete requested; the receiver answers with an
     * acknowledgement once the data is in the receive buffer (docs/API.md R11).
     */
    public static final int FLAG_DELIVERY_COMPLETE = 1 << 2;
    /** Flag bit 3: commit complete (RMA writes only). */
    public static final int FLAG_COMMIT_COMPLETE = 1 << 3;
    /**
     * Flag bit 7: a tagged message sent as op 0 (libfabric 1.17's rxm path only); the header
     * carries the tag extension as for {@link #OP_TAGGED}.
     */
    public static final int FLAG_TAGGED = 1 << 7;

    /**
     * Flag bit 1 (JOFI extension, negotiated connections only; libfabric leaves it unused):
     * together with bit 2, the sender asked for {@code FI_MATCH_COMPLETE}, so the receiver acks
     * only once a receive took the message, not when it was buffered unexpected.
     */
    public static final int FLAG_JOFI_MATCH_COMPLETE = 1 << 1;

    /** op_data value that marks an acknowledgement. */
    public static final int OP_DATA_ACK = 2;

    /**
     * Whether a header of this op and these flags carries the tag extension: op tagged, or
     * flag bit 7 (a tagged message sent as op 0); never a read response, which is a bare base
     * header.
     *
     * @param op    the op code
     * @param flags the flags
     * @return {@code true} if the tag extension is present
     */
    public static boolean hasTag(final int op, final int flags) {
        return op == OP_TAGGED || (isMessageOp(op) && (flags & FLAG_TAGGED) != 0);
    }

    /**
     * Whether a header of this op and these flags carries the remote CQ data extension (flag
     * bit 0; never in a read response, which is a bare base header).
     *
     * @param op    the op code
     * @param flags the flags
     * @return {@code true} if the CQ data extension is present
     */
    public static boolean hasCqData(final int op, final int flags) {
        return !isBareResponse(op) && (flags & FLAG_REMOTE_CQ_DATA) != 0;
    }

    /**
     * The {@code hdr_size} a header with these fields must carry: the base header plus the
     * CQ data (flag bit 0), the tag (op tagged or flag bit 7) and the RMA descriptors, in that
     * order; a read response is always a bare base header.
     *
     * @param op          the op code
     * @param flags       the flags
     * @param rmaIovCount the number of RMA descriptors
     * @return the header length in bytes
     */
    public static int headerLength(final int op, final int flags, final int rmaIovCount) {
        if (isBareResponse(op)) {
            return BASE_HEADER_LENGTH;
        }
        return BASE_HEADER_LENGTH
            + ((flags & FLAG_REMOTE_CQ_DATA) != 0 ? CQ_DATA_LENGTH : 0)
            + (hasTag(op, flags) ? TAG_LENGTH : 0)
            + rmaIovCount * RMA_IOV_LENGTH;
    }

    /**
     * The {@code hdr_size} of a header with these fields, {@code op_data} included: an
     * acknowledgement ({@link #OP_DATA_ACK}) is a bare base header whatever op, flags and
     * rma_iov_cnt it carries — libfabric 1.17 acks an RMA write with the write's rma_iov_cnt
     * copied (seen on the wire: {@code 03 00 0000 02 01 10 00 …10}) — and otherwise as
     * {@link #headerLength(int, int, int)} with the descriptors counted only for an op that
     * has them ({@link #usesRmaIovs}: a message's stale rma_iov_cnt adds nothing).
     *
     * @param op          the op code
     * @param flags       the flags
     * @param rmaIovCount the number of RMA descriptors
     * @param opData      the op_data byte
     * @return the header length in bytes
     */
    public static int headerLength(final int op, final int flags, final int rmaIovCount, final int opData) {
        return opData == OP_DATA_ACK ? BASE_HEADER_LENGTH
            : headerLength(op, flags, usesRmaIovs(op, opData) ? rmaIovCount : 0);
    }

    /**
     * Whether a header is a bare base header whatever its flags and rma_iov_cnt say: a read
     * response, JOFI's atomic response, or an acknowledgement.
     *
     * @param op     the op code
     * @param opData the op_data byte
     * @return {@code true} when no extension follows the base header
     */
    public static boolean isBare(final int op, final int opData) {
        return opData == OP_DATA_ACK || isBareResponse(op);
    }

    /**
     * Whether a header of this op carries RMA descriptors, i.e. whether its {@code rma_iov_cnt}
     * means anything: an RMA read request (op 2), an RMA write (op 4) and JOFI's atomic request
     * (op 5), and never an acknowledgement. Every other header's {@code rma_iov_cnt} is ignored
     * (taken as 0): libfabric 1.17 never clears the field when it reuses a transmit entry, so a
     * message sent after an RMA operation carries that operation's count (its receiver ignores
     * the field for messages, as JOFI does).
     *
     * @param op     the op code
     * @param opData the op_data byte
     * @return {@code true} when {@code rma_iov_cnt} descriptors follow the other extensions
     */
    public static boolean usesRmaIovs(final int op, final int opData) {
        return opData != OP_DATA_ACK && (op == OP_READ_REQUEST || op == OP_WRITE || op == OP_ATOMIC_REQUEST);
    }

    /**
     * Whether a header of this op is a bare base header whatever its copied flags and
     * rma_iov_cnt say: a read response, and JOFI's atomic response.
     *
     * @param op the op code
     * @return {@code true} for ops 3 and 6
     */
    public static boolean isBareResponse(final int op) {
        return op == OP_READ_RESPONSE || op == OP_ATOMIC_RESPONSE;
    }

    /**
     * Whether flag bit 7 (tagged as op 0) can apply to this op: every op but the responses
     * and JOFI's atomic request.
     *
     * @param op the op code
     * @return {@code true} for ops 0, 1, 2, 4
     */
    private static boolean isMessageOp(final int op) {
        return op <= OP_WRITE && op != OP_READ_RESPONSE;
    }

    /**
     * Offset of the remote CQ data within a header (valid when {@link #hasCqData}).
     *
     * @return the offset
     */
    public static int cqDataOffset() {
        return BASE_HEADER_LENGTH;
    }

    /**
     * Offset of the tag within a header (valid when {@link #hasTag}).
     *
     * @param op    the op code
     * @param flags the flags
     * @return the offset
     */
    public static int tagOffset(final int op, final int flags) {
        return BASE_HEADER_LENGTH + (hasCqData(op, flags) ? CQ_DATA_LENGTH : 0);
    }

    /**
     * Offset of the first RMA descriptor within a header of this op and these flags.
     *
     * @param op    the op code
     * @param flags the flags
     * @return the offset
     */
    public static int rmaIovOffset(final int op, final int flags) {
        return headerLength(op, flags, 0);
    }
}
