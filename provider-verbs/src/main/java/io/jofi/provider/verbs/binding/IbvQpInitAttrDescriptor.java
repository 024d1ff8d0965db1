package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_qp_init_attr} (x86-64, rdma-core 44 headers): the attributes rdma_create_qp creates an RC queue pair with.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 qp_context
 *      8     8 send_cq
 *     16     8 recv_cq
 *     32     4 cap.max_send_wr
 *     36     4 cap.max_recv_wr
 *     40     4 cap.max_send_sge
 *     44     4 cap.max_recv_sge
 *     48     4 cap.max_inline_data
 *     52     4 qp_type
 *     56     4 sq_sig_all
 *   size   64</pre>
 */
public final class IbvQpInitAttrDescriptor {
    /** {@code sizeof(struct ibv_qp_init_attr)}. */
    public static final int SIZE = 64;
    /** {@code offsetof(struct ibv_qp_init_attr, qp_context)}, 8 bytes. */
    public static final int QP_CONTEXT = 0;
    /** {@code offsetof(struct ibv_qp_init_attr, send_cq)}, 8 bytes. */
    public static final int SEND_CQ = 8;
    /** {@code offsetof(struct ibv_qp_init_attr, recv_cq)}, 8 bytes. */
    public static final int RECV_CQ = 16;
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_send_wr)}, 4 bytes. */
    public static final int CAP_MAX_SEND_WR = 32;
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_recv_wr)}, 4 bytes. */
    public static final int CAP_MAX_RECV_WR = 36;
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_send_sge)}, 4 bytes. */
    public static final int CAP_MAX_SEND_SGE = 40;
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_recv_sge)}, 4 bytes. */
    public static final int CAP_MAX_RECV_SGE = 44;
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_inline_data)}, 4 bytes. */
    public static final int CAP_MAX_INLINE_DATA = 48;
    /** {@code offsetof(struct ibv_qp_init_attr, qp_type)}, 4 bytes. */
    public static final int QP_TYPE = 52;
    /** {@code offsetof(struct ibv_qp_init_attr, sq_sig_all)}, 4 bytes. */
    public static final int SQ_SIG_ALL = 56;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_qp_init_attr", SIZE)
            .field("qp_context", QP_CONTEXT, 8)
            .field("send_cq", SEND_CQ, 8)
            .field("recv_cq", RECV_CQ, 8)
            .field("cap.max_send_wr", CAP_MAX_SEND_WR, 4)
            .field("cap.max_recv_wr", CAP_MAX_RECV_WR, 4)
            .field("cap.max_send_sge", CAP_MAX_SEND_SGE, 4)
            .field("cap.max_recv_sge", CAP_MAX_RECV_SGE, 4)
            .field("cap.max_inline_data", CAP_MAX_INLINE_DATA, 4)
            .field("qp_type", QP_TYPE, 4)
            .field("sq_sig_all", SQ_SIG_ALL, 4);

    private IbvQpInitAttrDescriptor() {
    }
}
