package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_recv_wr} (x86-64, rdma-core 44 headers): a receive-queue work request, built in preallocated native memory.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 wr_id
 *      8     8 next
 *     16     8 sg_list
 *     24     4 num_sge
 *   size   32</pre>
 */
public final class IbvRecvWrDescriptor {
    /** {@code sizeof(struct ibv_recv_wr)}. */
    public static final int SIZE = 32;
    /** {@code offsetof(struct ibv_recv_wr, wr_id)}, 8 bytes. */
    public static final int WR_ID = 0;
    /** {@code offsetof(struct ibv_recv_wr, next)}, 8 bytes. */
    public static final int NEXT = 8;
    /** {@code offsetof(struct ibv_recv_wr, sg_list)}, 8 bytes. */
    public static final int SG_LIST = 16;
    /** {@code offsetof(struct ibv_recv_wr, num_sge)}, 4 bytes. */
    public static final int NUM_SGE = 24;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_recv_wr", SIZE)
            .field("wr_id", WR_ID, 8)
            .field("next", NEXT, 8)
            .field("sg_list", SG_LIST, 8)
            .field("num_sge", NUM_SGE, 4);

    private IbvRecvWrDescriptor() {
    }
}
