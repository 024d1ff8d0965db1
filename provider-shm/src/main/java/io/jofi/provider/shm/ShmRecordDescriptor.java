package io.jofi.provider.shm;

/**
 * The layout of the endpoint protocol's records, carried as the payload of ring records
 * ({@code io.jofi.provider.shm.ring}). Native byte order, absolute offsets, every field 4 or
 * 8 bytes aligned:
 *
 * <pre>
 * offset size field
 *      0    4  kind (bits 0..7) | flags (bits 8..31)
 *      4    4  status: 0 or a positive errno (ACK, READ_RESP, ATOMIC_RESP) | payload length (BOUNCE)
 *      8    8  sender pid         } the sender endpoint: its name is
 *     16    8  sender seq         } &lt;pid&gt;-&lt;seq &gt;&gt;&gt; 32&gt;-&lt;seq &amp; 0xffffffff&gt;
 *     24    8  token: the initiator's operation, echoed by ACK / READ_RESP / ATOMIC_RESP
 *     32    8  A: tag (MSG) | key (WRITE, READ_REQ, ATOMIC_REQ) | total (READ_RESP)
 *     40    8  B: remote CQ data (MSG) | addr (WRITE, READ_REQ, ATOMIC_REQ) | old value (ATOMIC_RESP)
 *     48    8  C: total message/transfer length (MSG, WRITE, READ_REQ) | operand (ATOMIC_REQ)
 *     56    8  D: offset of this fragment's payload in the message/transfer | compare (ATOMIC_REQ)
 *     64    8  E: remote CQ data (WRITE, NOTIFY) | atomic op (ATOMIC_REQ)
 *                  TYPED ATOMIC_REQ: op (bits 0..7) | datatype (8..15) | count (16..31)
 *     72  ...  payload (MSG, WRITE, READ_RESP fragments)
 * </pre>
 *
 * A TYPED ATOMIC_REQ (and its ATOMIC_RESP) carries up to 8 bytes of elements in each of C
 * (operands), D (compare values) and B (the old elements), packed as the host lays them out
 * in memory, element 0 first.
 *
 * A message of one fragment without acknowledgement ({@link #COMPACT}: no ACK_* flag, not
 * BOUNCE, not CMA) carries a compact header instead — the words nobody reads for it (token,
 * the total that is the payload's length, the offset that is 0, the tag of an untagged message,
 * absent remote CQ data) are left out, so a 64-byte message is 88 bytes, not 136 (104 and
 * 152 of ring with the ring record's own 16-byte header):
 *
 * <pre>
 * MSG | FIRST | LAST | COMPACT
 *      0    4  kind | flags (TAGGED? HAS_DATA?)
 *      4    4  status: 0
 *      8   16  sender pid, seq
 *     24    8  tag                 (TAGGED only)
 *  24|32    8  remote CQ data      (HAS_DATA only)
 * 24..40  ...  payload: the whole message (its length is the ring record's, less the header)
 * </pre>
 *
 * A message or transfer longer than the fragment size travels as several records of one
 * sender, in order ({@link #FIRST} on the first, {@link #LAST} on the last); a sender never
 * interleaves two of its messages to one receiver, so the receiver reassembles per sender.
 *
 * <p><b>Cross-memory attach</b> (large messages read by the receiver straight from the
 * sender's buffers with {@code process_vm_readv}, {@code io.jofi.provider.shm.cma}):
 *
 * <pre>
 * PROBE (sender S to receiver R, once per peer, before S's first CMA message to R)
 *      0    4  PROBE | FIRST | LAST
 *      8   16  S's pid, seq                (R reads from that pid)
 *     24    8  token                       (R's ACK echoes it; STATUS 0 = CMA on for S to R)
 *     32    8  A: address of S's probe word (native, in S)
 *     40    8  B: the value the word holds
 *
 * MSG | CMA (one record for the whole message)
 *      0    4  MSG | CMA | FIRST | LAST | TAGGED? | HAS_DATA?
 *      4    4  STATUS: iovec count n (1 .. 4)
 *      8   16  S's pid, seq
 *     24    8  token                       (R always ACKs: STATUS 0 or the errno of the read)
 *     32    8  A: tag          40  8  B: remote CQ data
 *     48    8  C: total length (= the sum of the lengths below)
 *     56    8  D: 0
 *     72 16*n  payload: n x (address long, length long) of S's buffers
 *
 *   S                                         R
 *   post: len >= cmaThreshold, direct iovs
 *   peer unknown: PROBE ---------------------&gt; process_vm_readv(S.pid, A, 8) == B ?
 *   (this message takes the bounce path)  &lt;-- ACK(token, 0 | errno)  → peer CMA on | off
 *   later: MSG|CMA {pid, iovs} --------------&gt; match (now, or when a receive is posted: only
 *   the op stays pending, buffers pinned           the descriptor is kept), process_vm_readv
 *                                                  into the posted buffer (truncation, heap via
 *   send completes (error if status != 0)  &lt;-- ACK(token, status)   scratch), complete the receive
 * </pre>
 * A discarded or truncated CMA message is acknowledged with status 0 (the sender completes);
 * a failed read completes the receive and the send with that errno.
 */
final class ShmRecordDescriptor {
    static final int KIND_FLAGS = 0;
    static final int STATUS = 4;
    static final int SENDER_PID = 8;
    static final int SENDER_SEQ = 16;
    static final int TOKEN = 24;
    static final int A = 32;
    static final int B = 40;
    static final int C = 48;
    static final int D = 56;
    static final int E = 64;
    static final int HEADER = 72;

    // The words A..E by what each kind of record carries in them (the table above); the
    // sender writes A..E generically from its operation, the handlers read them by these names.
    /** MSG: the tag. */
    static final int MSG_TAG = A;
    /** MSG: the remote CQ data. */
    static final int MSG_DATA = B;
    /** MSG, WRITE, READ_REQ: the length of the whole message or transfer. */
    static final int TOTAL_LENGTH = C;
    /** MSG, WRITE, READ_RESP: where this fragment's payload goes in the message or transfer. */
    static final int FRAGMENT_OFFSET = D;
    /** WRITE, READ_REQ, ATOMIC_REQ: the target region's key. */
    static final int RMA_KEY = A;
    /** WRITE, READ_REQ, ATOMIC_REQ: the target address. */
    static final int RMA_ADDR = B;
    /** WRITE, NOTIFY: the remote CQ data. */
    static final int RMA_DATA = E;
    /** ATOMIC_REQ: the operand. */
    static final int ATOMIC_OPERAND = C;
    /** ATOMIC_REQ: the compare value (CSWAP). */
    static final int ATOMIC_COMPARE = D;
    /** ATOMIC_REQ: the atomic op. */
    static final int ATOMIC_OP = E;
    /** ATOMIC_RESP: the target's old value. */
    static final int ATOMIC_OLD = B;
    /** PROBE: the address of the sender's probe word. */
    static final int PROBE_ADDRESS = A;
    /** PROBE: the value the probe word holds. */
    static final int PROBE_VALUE = B;

    /** A (tagged) message fragment. */
    static final int MSG = 1;
    /** The receiver's acknowledgement of a message (delivery/match complete) or of a WRITE. */
    static final int ACK = 2;
    /** An RMA write fragment, for regions the initiator cannot reach directly. */
    static final int WRITE = 3;
    /** An RMA read request. */
    static final int READ_REQ = 4;
    /** An RMA read response fragment (or its error). */
    static final int READ_RESP = 5;
    /** An atomic request. */
    static final int ATOMIC_REQ = 6;
    /** An atomic response: status and the old value. */
    static final int ATOMIC_RESP = 7;
    /** A notification of a direct (one-sided) RMA access: remote counters, remote CQ data. */
    static final int NOTIFY = 8;
    /** The sender's CMA probe: the receiver reads A (8 bytes, in the sender's pid) and compares it with B. */
    static final int PROBE = 9;

    /** First fragment. */
    static final int FIRST = 1 << 8;
    /** Last fragment. */
    static final int LAST = 1 << 9;
    /** Tagged message. */
    static final int TAGGED = 1 << 10;
    /** Carries remote CQ data. */
    static final int HAS_DATA = 1 << 11;
    /** Acknowledge once placed or buffered (FI_DELIVERY_COMPLETE, FI_COMMIT_COMPLETE). */
    static final int ACK_ARRIVAL = 1 << 12;
    /** Acknowledge once matched with a receive (FI_MATCH_COMPLETE). */
    static final int ACK_MATCH = 1 << 13;
    /** Force a file-backed target to storage before acknowledging (FI_COMMIT_COMPLETE). */
    static final int COMMIT = 1 << 14;
    /** NOTIFY: a direct write happened (FI_REMOTE_WRITE counter). */
    static final int REMOTE_WRITE = 1 << 15;
    /** NOTIFY: a direct read happened (FI_REMOTE_READ counter). */
    static final int REMOTE_READ = 1 << 16;
    /** ATOMIC_REQ: the result is fetched (a read of the target, too). */
    static final int FETCH = 1 << 17;
    /** ATOMIC_REQ: fi_atomic(3) with a datatype and count (the diagram's TYPED ATOMIC_REQ), not one FI_INT64. */
    static final int TYPED = 1 << 21;
    /** TYPED ATOMIC_REQ: the bytes of elements C, D and B hold, so the count bound of 8 / element size. */
    static final int TYPED_BYTES = 8;
    /**
     * The fragment's payload is in a bounce slot of the receiver's region (the ring record's
     * aux word = slot + 1, STATUS = the payload length), not inline; the receiver copies it out
     * and frees the slot.
     */
    static final int BOUNCE = 1 << 18;
    /**
     * MSG: the payload is not here; the record carries the sender's iovecs (STATUS = their
     * count, payload = count x (address, length)) for the receiver's {@code process_vm_readv}.
     */
    static final int CMA = 1 << 19;
    /**
     * MSG: a single-fragment message without acknowledgement in the compact header (the second
     * diagram above): FIRST and LAST set, no flag but TAGGED and HAS_DATA besides.
     */
    static final int COMPACT = 1 << 20;
    /** The compact header's fixed part: kind and flags, status, sender pid and seq. */
    static final int COMPACT_HEADER = 24;
    /** The flags a compact record carries besides MSG, FIRST, LAST and COMPACT: anything else is a protocol error. */
    static final int COMPACT_OPTIONAL = TAGGED | HAS_DATA;

    /** Bytes of one iovec in a CMA record's payload. */
    static final int CMA_IOV = 16;

    private ShmRecordDescriptor() {
    }

    /** The length of the header of a record with {@code kindFlags}: compact or {@link #HEADER}. */
    static int headerLength(int kindFlags) {
        if ((kindFlags & COMPACT) == 0) {
            return HEADER;
        }
        return COMPACT_HEADER + ((kindFlags & TAGGED) != 0 ? 8 : 0) + ((kindFlags & HAS_DATA) != 0 ? 8 : 0);
    }

    /** Whether {@code kindFlags} is a well-formed compact record (MSG, FIRST, LAST, at most TAGGED and HAS_DATA besides). */
    static boolean validCompact(int kindFlags) {
        return (kindFlags & ~COMPACT_OPTIONAL) == (MSG | FIRST | LAST | COMPACT);
    }

    static int kind(int kindFlags) {
        return kindFlags & 0xFF;
    }

    /** The name of the endpoint a (pid, seq) pair denotes. */
    static String name(long pid, long seq) {
        return pid + "-" + (seq >>> 32) + "-" + (seq & 0xFFFFFFFFL);
    }

    /** The seq of an endpoint name {@code <pid>-<d>-<e>}. */
    static long seqOf(String name) {
        int e = name.lastIndexOf('-');
        int d = name.lastIndexOf('-', e - 1);
        return (Long.parseLong(name.substring(d + 1, e)) << 32) | Long.parseLong(name.substring(e + 1));
    }
}
