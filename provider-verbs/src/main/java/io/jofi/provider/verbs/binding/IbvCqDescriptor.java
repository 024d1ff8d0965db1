package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_cq} (x86-64, rdma-core 44 headers): a completion queue: the handle passed to poll_cq / req_notify_cq.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 context
 *      8     8 channel
 *     16     8 cq_context
 *     28     4 cqe
 *   size  128</pre>
 */
public final class IbvCqDescriptor {
    /** {@code sizeof(struct ibv_cq)}. */
    public static final int SIZE = 128;
    /** {@code offsetof(struct ibv_cq, context)}, 8 bytes. */
    public static final int CONTEXT = 0;
    /** {@code offsetof(struct ibv_cq, channel)}, 8 bytes. */
    public static final int CHANNEL = 8;
    /** {@code offsetof(struct ibv_cq, cq_context)}, 8 bytes. */
    public static final int CQ_CONTEXT = 16;
    /** {@code offsetof(struct ibv_cq, cqe)}, 4 bytes. */
    public static final int CQE = 28;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_cq", SIZE)
            .field("context", CONTEXT, 8)
            .field("channel", CHANNEL, 8)
            .field("cq_context", CQ_CONTEXT, 8)
            .field("cqe", CQE, 4);

    private IbvCqDescriptor() {
    }
}
