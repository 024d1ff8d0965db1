package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_context} (x86-64, rdma-core 44 headers): the device context: its operation table holds the data-path functions that verbs.h calls inline (ibv_post_send, ibv_post_recv, ibv_poll_cq, ibv_req_notify_cq).
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 device
 *     96     8 ops.poll_cq
 *    104     8 ops.req_notify_cq
 *    208     8 ops.post_send
 *    216     8 ops.post_recv
 *    264     4 cmd_fd
 *    268     4 async_fd
 *    272     4 num_comp_vectors
 *   size  328</pre>
 */
public final class IbvContextDescriptor {
    /** {@code sizeof(struct ibv_context)}. */
    public static final int SIZE = 328;
    /** {@code offsetof(struct ibv_context, device)}, 8 bytes. */
    public static final int DEVICE = 0;
    /** {@code offsetof(struct ibv_context, ops.poll_cq)}, 8 bytes. */
    public static final int OPS_POLL_CQ = 96;
    /** {@code offsetof(struct ibv_context, ops.req_notify_cq)}, 8 bytes. */
    public static final int OPS_REQ_NOTIFY_CQ = 104;
    /** {@code offsetof(struct ibv_context, ops.post_send)}, 8 bytes. */
    public static final int OPS_POST_SEND = 208;
    /** {@code offsetof(struct ibv_context, ops.post_recv)}, 8 bytes. */
    public static final int OPS_POST_RECV = 216;
    /** {@code offsetof(struct ibv_context, cmd_fd)}, 4 bytes. */
    public static final int CMD_FD = 264;
    /** {@code offsetof(struct ibv_context, async_fd)}, 4 bytes. */
    public static final int ASYNC_FD = 268;
    /** {@code offsetof(struct ibv_context, num_comp_vectors)}, 4 bytes. */
    public static final int NUM_COMP_VECTORS = 272;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_context", SIZE)
            .field("device", DEVICE, 8)
            .field("ops.poll_cq", OPS_POLL_CQ, 8)
            .field("ops.req_notify_cq", OPS_REQ_NOTIFY_CQ, 8)
            .field("ops.post_send", OPS_POST_SEND, 8)
            .field("ops.post_recv", OPS_POST_RECV, 8)
            .field("cmd_fd", CMD_FD, 4)
            .field("async_fd", ASYNC_FD, 4)
            .field("num_comp_vectors", NUM_COMP_VECTORS, 4);

    private IbvContextDescriptor() {
    }
}
