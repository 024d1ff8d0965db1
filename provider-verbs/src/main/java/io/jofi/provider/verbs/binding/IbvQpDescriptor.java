package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_qp} (x86-64, rdma-core 44 headers): a queue pair: the handle passed to post_send / post_recv and its number.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 context
 *      8     8 qp_context
 *     16     8 pd
 *     24     8 send_cq
 *     32     8 recv_cq
 *     52     4 qp_num
 *     56     4 state
 *     60     4 qp_type
 *   size  160</pre>
 */
public final class IbvQpDescriptor {
    /** {@code sizeof(struct ibv_qp)}. */
    public static final int SIZE = 160;
    /** {@code offsetof(struct ibv_qp, context)}, 8 bytes. */
    public static final int CONTEXT = 0;
    /** {@code offsetof(struct ibv_qp, qp_context)}, 8 bytes. */
    public static final int QP_CONTEXT = 8;
    /** {@code offsetof(struct ibv_qp, pd)}, 8 bytes. */
    public static final int PD = 16;
    /** {@code offsetof(struct ibv_qp, send_cq)}, 8 bytes. */
    public static final int SEND_CQ = 24;
    /** {@code offsetof(struct ibv_qp, recv_cq)}, 8 bytes. */
    public static final int RECV_CQ = 32;
    /** {@code offsetof(struct ibv_qp, qp_num)}, 4 bytes. */
    public static final int QP_NUM = 52;
    /** {@code offsetof(struct ibv_qp, state)}, 4 bytes. */
    public static final int STATE = 56;
    /** {@code offsetof(struct ibv_qp, qp_type)}, 4 bytes. */
    public static final int QP_TYPE = 60;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_qp", SIZE)
            .field("context", CONTEXT, 8)
            .field("qp_context", QP_CONTEXT, 8)
            .field("pd", PD, 8)
            .field("send_cq", SEND_CQ, 8)
            .field("recv_cq", RECV_CQ, 8)
            .field("qp_num", QP_NUM, 4)
            .field("state", STATE, 4)
            .field("qp_type", QP_TYPE, 4);

    private IbvQpDescriptor() {
    }
}
