package io.jofi.provider.rxm;

/**
 * The one place of every byte layout of libfabric 1.17's {@code ofi_rxm} wire: the connection
 * data carried by the MSG provider's connect, accept and reject, and the packet every rxm
 * message starts with (a 32-byte control header and a 32-byte operation header), plus the
 * rendezvous descriptor a large message carries instead of its payload. Offsets, sizes and
 * codes are named here and nowhere else.
 *
 * <p><b>Byte order.</b> rxm writes every multi-byte field in its host's order and declares that
 * order in the connect data ({@link #CONNECT_ENDIANNESS}); a peer whose order differs is
 * refused. JOFI always writes little-endian and declares {@link #ENDIAN_LITTLE} (x86-64 and
 * aarch64, the hosts libfabric runs on), whatever the JVM's host.
 *
 * <h2>Connect data (the active side's connection data, 24 bytes)</h2>
 * <pre>
 *   0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  | version (1)   | endianness(2) | ctrl_version 4| op_version (3)|  0
 *  +---------------+---------------+---------------+---------------+
 *  |  port of the sender's listener|  flow_ctrl    |   (padding)   |  4
 *  +-------------------------------+---------------+---------------+
 *  |                         eager_limit                           |  8
 *  +---------------------------------------------------------------+
 *  |                         rx_size                               | 12
 *  +---------------------------------------------------------------+
 *  |            client_conn_id = pid &lt;&lt; 32 | peer index      | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+ 24
 * </pre>
 * The passive side checks version, endianness, both protocol versions and that the eager limit
 * equals its own, and refuses the request otherwise. It knows the requester by the request's
 * source IP with {@code port} put in (the port the requester listens on).
 *
 * <h2>Accept data (16 bytes) and reject data (2 bytes)</h2>
 * <pre>
 *  +---------------------------------------------------------------+
 *  |            server_conn_id = pid &lt;&lt; 32 | peer index      |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                         rx_size                               |  8
 *  +---------------+-----------------------------------------------+
 *  |  flow_ctrl    |               (padding, 3 bytes)              | 12
 *  +---------------+-----------------------------------------------+ 16
 *
 *  reject: | version (1) | reason (0 unspecified, 1 refused, 2 already connected) |
 * </pre>
 * A connection id's low 32 bits are the index under which its sender keeps the peer; the
 * other side writes that index into the {@code conn_id} of every packet it sends, and a
 * receiver with a shared receive context (rxm over tcp) finds the connection by it. The high
 * 32 bits are the sender's process id, used to tell a crossed request from a restarted peer.
 *
 * <h2>Packet header (64 bytes, then the payload)</h2>
 * <pre>
 *   0               1               2               3
 *  +---------------+---------------+-------------------------------+
 *  | ctrl version 4|     type      |           seg_size            |  0  control header
 *  +---------------+---------------+-------------------------------+
 *  |                           seg_no                              |  4
 *  +---------------------------------------------------------------+
 *  |        conn_id: the receiver's index of this sender           |  8
 *  +---------------------------------------------------------------+
 *  |        msg_id: the sender's id of the message (rendezvous)    | 16
 *  +---------------------------------------------------------------+
 *  |        ctrl_data (segments: bits 0-1 the segment's kind)      | 24
 *  +---------------+---------------+---------------+---------------+
 *  | op version 2  |   rx_index    |      op       |    op_data    | 32  operation header
 *  +---------------+---------------+---------------+---------------+
 *  |        flags (FI_REMOTE_CQ_DATA, the bit of fi_cq(3))         | 36
 *  +---------------------------------------------------------------+
 *  |        size: the message's payload length                     | 40
 *  +---------------------------------------------------------------+
 *  |        data: remote CQ data                                   | 48
 *  +---------------------------------------------------------------+
 *  |        tag (tagged operations)                                | 56
 *  +---------------------------------------------------------------+ 64
 * </pre>
 * Types: {@link #TYPE_EAGER} (the payload follows, {@code size} bytes),
 * {@link #TYPE_SEGMENT}, {@link #TYPE_RNDV_REQUEST} (a {@link #RNDV_LENGTH}-byte rendezvous
 * descriptor follows), {@link #TYPE_RNDV_READ_DONE} (header only: the receiver read it all),
 * and the others rxm defines ({@link #TYPE_ATOMIC} ... {@link #TYPE_RNDV_WRITE_DONE}).
 *
 * <h2>Rendezvous descriptor (104 bytes after the header)</h2>
 * <pre>
 *  +---------------------------------------------------------------+
 *  | iov[0]: addr (8) | len (8) | key (8)                          |  0
 *  | iov[1] ... iov[3], 24 bytes each                              | 24..95
 *  +---------------+-----------------------------------------------+
 *  |  count        |       (padding to 104)                        | 96
 *  +---------------+-----------------------------------------------+ 104
 * </pre>
 * The receiver reads each {@code iov} from the sender's memory with an RMA read
 * ({@code addr}, {@code key} as the sender's MSG provider registered it), then answers with a
 * {@link #TYPE_RNDV_READ_DONE} packet carrying the same {@code msg_id}.
 *
 * <h2>Atomic request ({@link #TYPE_ATOMIC}) and response ({@link #TYPE_ATOMIC_RESPONSE})</h2>
 * rxm executes atomics in software at the target. The request's header has {@code op}
 * {@link #OP_ATOMIC}, {@link #OP_ATOMIC_FETCH} or {@link #OP_ATOMIC_COMPARE}, {@code size} the
 * bytes after the header, and in the tag's first three bytes the datatype, the fi_atomic(3)
 * operation and the count of target entries; then:
 * <pre>
 *  +---------------------------------------------------------------+
 *  | ioc[0]: addr (8) | count (8, elements) | key (8)              |  0  (host order)
 *  | ioc[1] ... ioc[3], 24 bytes each                              | 24..95
 *  +---------------------------------------------------------------+
 *  | operands: the elements of every ioc, in order                 | 96
 *  | compare values (OP_ATOMIC_COMPARE), as many                   |
 *  +---------------------------------------------------------------+
 * </pre>
 * The response carries the request's {@code msg_id}, the same op, datatype and operation:
 * <pre>
 *  +-------------------------------+-------------------------------+
 *  | status (int32, network order) | result_len (uint32, network)  |  0
 *  +-------------------------------+-------------------------------+
 *  | result: the old elements (fetch and compare forms)            |  8
 *  +---------------------------------------------------------------+
 * </pre>
 * {@code status} is 0 or a negative fi_errno ({@code -FI_EACCES} when a target entry is not
 * registered for the access).
 */
public final class RxmWireDescriptor {

    private RxmWireDescriptor() {
    }

    // ---------------------------------------------------------------- versions and limits

    /** Version of the connection data. */
    public static final int CM_DATA_VERSION = 1;
    /** Version of the control header, also sent in the connect data. */
    public static final int CTRL_VERSION = 4;
    /** Operation version announced in the connect data (rxm's own). */
    public static final int CM_OP_VERSION = 3;
    /** Version written into the operation header of each packet (the common one of ofi_proto.h). */
    public static final int OP_VERSION = 2;
    /** Byte-order code of a little-endian sender. */
    public static final int ENDIAN_LITTLE = 2;
    /** Byte-order code of a big-endian sender. */
    public static final int ENDIAN_BIG = 1;
    /** rxm's default eager limit (its {@code buffer_size}): larger messages go by rendezvous. */
    public static final int DEFAULT_EAGER_LIMIT = 16384;
    /** Buffers one rxm message may name ({@code RXM_IOV_LIMIT}). */
    public static final int IOV_LIMIT = 4;

    // ---------------------------------------------------------------- connect data

    /** Offset of the one-byte version. */
    public static final int CONNECT_VERSION = 0;
    /** Offset of the one-byte byte-order code. */
    public static final int CONNECT_ENDIANNESS = 1;
    /** Offset of the one-byte control-header version. */
    public static final int CONNECT_CTRL_VERSION = 2;
    /** Offset of the one-byte operation version. */
    public static final int CONNECT_OP_VERSION = 3;
    /** Offset of the two-byte port the requester listens on. */
    public static final int CONNECT_PORT = 4;
    /** Offset of the one-byte flow-control mode. */
    public static final int CONNECT_FLOW_CTRL = 6;
    /** Offset of the four-byte eager limit. */
    public static final int CONNECT_EAGER_LIMIT = 8;
    /** Offset of the four-byte receive queue size. */
    public static final int CONNECT_RX_SIZE = 12;
    /** Offset of the eight-byte connection id of the requester. */
    public static final int CONNECT_CONN_ID = 16;
    /** Length of the connect data. */
    public static final int CONNECT_LENGTH = 24;

    // ---------------------------------------------------------------- accept and reject data

    /** Offset of the eight-byte connection id of the acceptor. */
    public static final int ACCEPT_CONN_ID = 0;
    /** Offset of the four-byte receive queue size. */
    public static final int ACCEPT_RX_SIZE = 8;
    /** Offset of the one-byte flow-control mode. */
    public static final int ACCEPT_FLOW_CTRL = 12;
    /** Length of the accept data. */
    public static final int ACCEPT_LENGTH = 16;

    /** Offset of the one-byte version of a reject. */
    public static final int REJECT_VERSION = 0;
    /** Offset of the one-byte reason of a reject. */
    public static final int REJECT_REASON = 1;
    /** Length of the reject data. */
    public static final int REJECT_LENGTH = 2;

    /** Reject reason: unspecified. */
    public static final int REJECT_UNSPEC = 0;
    /** Reject reason: the request was refused (bad data, no resources). */
    public static final int REJECT_REFUSED = 1;
    /** Reject reason: a crossed request lost: the connection comes the other way. */
    public static final int REJECT_ALREADY = 2;

    /** Flow control: decided locally (old peers). */
    public static final int FLOW_CTRL_LOCAL = 0;
    /** Flow control: the sender's MSG provider offers it. */
    public static final int FLOW_CTRL_ON = 1;
    /** Flow control: the sender's MSG provider does not offer it (JOFI's answer). */
    public static final int FLOW_CTRL_OFF = 2;

    // ---------------------------------------------------------------- packet header

    /** Offset of the one-byte control-header version. */
    public static final int CTRL_VERSION_OFFSET = 0;
    /** Offset of the one-byte packet type. */
    public static final int TYPE_OFFSET = 1;
    /** Offset of the two-byte segment size. */
    public static final int SEG_SIZE_OFFSET = 2;
    /** Offset of the four-byte segment number. */
    public static final int SEG_NO_OFFSET = 4;
    /** Offset of the eight-byte connection id (the receiver's index of the sender). */
    public static final int CONN_ID_OFFSET = 8;
    /** Offset of the eight-byte message id. */
    public static final int MSG_ID_OFFSET = 16;
    /** Offset of the eight-byte control data. */
    public static final int CTRL_DATA_OFFSET = 24;
    /** Offset of the one-byte operation version. */
    public static final int OP_VERSION_OFFSET = 32;
    /** Offset of the one-byte receive-context index. */
    public static final int RX_INDEX_OFFSET = 33;
    /** Offset of the one-byte operation. */
    public static final int OP_OFFSET = 34;
    /** Offset of the one-byte operation data. */
    public static final int OP_DATA_OFFSET = 35;
    /** Offset of the four-byte operation flags. */
    public static final int FLAGS_OFFSET = 36;
    /** Offset of the eight-byte payload size. */
    public static final int SIZE_OFFSET = 40;
    /** Offset of the eight-byte remote CQ data. */
    public static final int DATA_OFFSET = 48;
    /** Offset of the eight-byte tag. */
    public static final int TAG_OFFSET = 56;
    /** Length of the packet header; the payload (or the rendezvous descriptor) follows. */
    public static final int HEADER_LENGTH = 64;

    /** Packet type: an eager message, whole. */
    public static final int TYPE_EAGER = 0;
    /** Packet type: one segment of a segmented message. */
    public static final int TYPE_SEGMENT = 1;
    /** Packet type: a rendezvous request (descriptor of the sender's buffers). */
    public static final int TYPE_RNDV_REQUEST = 2;
    /** Packet type: the receiver read the rendezvous data. */
    public static final int TYPE_RNDV_READ_DONE = 3;
    /** Packet type: an atomic request. */
    public static final int TYPE_ATOMIC = 4;
    /** Packet type: an atomic response. */
    public static final int TYPE_ATOMIC_RESPONSE = 5;
    /** Packet type: flow-control credits. */
    public static final int TYPE_CREDIT = 6;
    /** Packet type: rendezvous by write, the receiver's buffers. */
    public static final int TYPE_RNDV_WRITE_DATA = 7;
    /** Packet type: rendezvous by write, the sender wrote it all. */
    public static final int TYPE_RNDV_WRITE_DONE = 8;

    /** Operation: an untagged message. */
    public static final int OP_MSG = 0;
    /** Operation: a tagged message. */
    public static final int OP_TAGGED = 1;

    /**
     * {@code op_data} of a rendezvous request whose sender asked for {@code FI_MATCH_COMPLETE}
     * (a JOFI extension; libfabric's rxm writes 0 there and never reads it): a JOFI receiver
     * then reads the data only once a receive matched the message, so the sender's completion
     * (after the read-done) means "matched".
     */
    public static final int OP_DATA_MATCH_COMPLETE = 0x4d;

    /** The flag in {@link #FLAGS_OFFSET} that says {@code data} is remote CQ data: fi_cq(3)'s bit, as is. */
    public static final int FLAG_REMOTE_CQ_DATA = 1 << 17;

    /** Mask of the segment kind in the control data of a {@link #TYPE_SEGMENT} packet. */
    public static final long SEGMENT_KIND_MASK = 0x3;
    /** Segment kind: first. */
    public static final int SEGMENT_FIRST = 1;
    /** Segment kind: middle. */
    public static final int SEGMENT_MIDDLE = 2;
    /** Segment kind: last. */
    public static final int SEGMENT_LAST = 3;

    /** Operation: a non-fetching atomic (ofi_op_atomic). */
    public static final int OP_ATOMIC = 6;
    /** Operation: a fetching atomic (ofi_op_atomic_fetch). */
    public static final int OP_ATOMIC_FETCH = 7;
    /** Operation: a compare atomic (ofi_op_atomic_compare). */
    public static final int OP_ATOMIC_COMPARE = 8;

    // ---------------------------------------------------------------- atomics

    /** Offset in the header of the one-byte datatype of an atomic (the tag's first byte). */
    public static final int ATOMIC_DATATYPE_OFFSET = TAG_OFFSET;
    /** Offset in the header of the one-byte fi_atomic(3) operation. */
    public static final int ATOMIC_OP_OFFSET = TAG_OFFSET + 1;
    /** Offset in the header of the one-byte count of target entries. */
    public static final int ATOMIC_IOC_COUNT_OFFSET = TAG_OFFSET + 2;
    /** Length of one target entry {@code {addr, count, key}} of an atomic request. */
    public static final int ATOMIC_IOC_LENGTH = 24;
    /** Offset of {@code addr} in a target entry. */
    public static final int ATOMIC_IOC_ADDR = 0;
    /** Offset of {@code count} (elements) in a target entry. */
    public static final int ATOMIC_IOC_COUNT = 8;
    /** Offset of {@code key} in a target entry. */
    public static final int ATOMIC_IOC_KEY = 16;
    /** Offset, after the header, of an atomic request's operands (behind the entries). */
    public static final int ATOMIC_OPERANDS = IOV_LIMIT * ATOMIC_IOC_LENGTH;
    /** Offset, after the header, of an atomic response's status (a big-endian int32). */
    public static final int ATOMIC_RESPONSE_STATUS = 0;
    /** Offset, after the header, of an atomic response's result length (a big-endian uint32). */
    public static final int ATOMIC_RESPONSE_RESULT_LENGTH = 4;
    /** Offset, after the header, of an atomic response's result. */
    public static final int ATOMIC_RESPONSE_RESULT = 8;
    /** fi_datatype {@code FI_INT64}: the one JOFI's atomics carry. */
    public static final int DATATYPE_INT64 = 6;
    /** fi_datatype {@code FI_UINT64}: served where signedness does not matter. */
    public static final int DATATYPE_UINT64 = 7;

    // ---------------------------------------------------------------- rendezvous descriptor

    /** Length of one remote buffer entry {@code {addr, len, key}}. */
    public static final int RNDV_IOV_LENGTH = 24;
    /** Offset of {@code addr} in an entry. */
    public static final int RNDV_IOV_ADDR = 0;
    /** Offset of {@code len} in an entry. */
    public static final int RNDV_IOV_LEN = 8;
    /** Offset of {@code key} in an entry. */
    public static final int RNDV_IOV_KEY = 16;
    /** Offset of the one-byte count of entries. */
    public static final int RNDV_COUNT = IOV_LIMIT * RNDV_IOV_LENGTH;
    /** Length of the descriptor (the C struct, padded to 8). */
    public static final int RNDV_LENGTH = 104;
}
