package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_wc} (x86-64, rdma-core 44 headers): a work completion, polled in batches into a preallocated native array.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 wr_id
 *      8     4 status
 *     12     4 opcode
 *     16     4 vendor_err
 *     20     4 byte_len
 *     24     4 imm_data
 *     28     4 qp_num
 *     32     4 src_qp
 *     36     4 wc_flags
 *   size   48</pre>
 */
public final class IbvWcDescriptor {
    /** {@code sizeof(struct ibv_wc)}. */
    public static final int SIZE = 48;
    /** {@code offsetof(struct ibv_wc, wr_id)}, 8 bytes. */
    public static final int WR_ID = 0;
    /** {@code offsetof(struct ibv_wc, status)}, 4 bytes. */
    public static final int STATUS = 8;
    /** {@code offsetof(struct ibv_wc, opcode)}, 4 bytes. */
    public static final int OPCODE = 12;
    /** {@code offsetof(struct ibv_wc, vendor_err)}, 4 bytes. */
    public static final int VENDOR_ERR = 16;
    /** {@code offsetof(struct ibv_wc, byte_len)}, 4 bytes. */
    public static final int BYTE_LEN = 20;
    /** {@code offsetof(struct ibv_wc, imm_data)}, 4 bytes. */
    public static final int IMM_DATA = 24;
    /** {@code offsetof(struct ibv_wc, qp_num)}, 4 bytes. */
    public static final int QP_NUM = 28;
    /** {@code offsetof(struct ibv_wc, src_qp)}, 4 bytes. */
    public static final int SRC_QP = 32;
    /** {@code offsetof(struct ibv_wc, wc_flags)}, 4 bytes. */
    public static final int WC_FLAGS = 36;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_wc", SIZE)
            .field("wr_id", WR_ID, 8)
            .field("status", STATUS, 4)
            .field("opcode", OPCODE, 4)
            .field("vendor_err", VENDOR_ERR, 4)
            .field("byte_len", BYTE_LEN, 4)
            .field("imm_data", IMM_DATA, 4)
            .field("qp_num", QP_NUM, 4)
            .field("src_qp", SRC_QP, 4)
            .field("wc_flags", WC_FLAGS, 4);

    private IbvWcDescriptor() {
    }
}
