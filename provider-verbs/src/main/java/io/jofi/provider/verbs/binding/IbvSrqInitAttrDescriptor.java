package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_srq_init_attr} (x86-64, rdma-core 44 headers): the argument of
 * {@code ibv_create_srq}, a shared receive queue's context and sizes ({@code struct ibv_srq_attr}
 * inline); the device writes the sizes it granted back into it.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 srq_context
 *      8     4 attr.max_wr
 *     12     4 attr.max_sge
 *     16     4 attr.srq_limit
 *   size   24</pre>
 */
public final class IbvSrqInitAttrDescriptor {
    /** {@code sizeof(struct ibv_srq_init_attr)}. */
    public static final int SIZE = 24;
    /** {@code offsetof(struct ibv_srq_init_attr, srq_context)}, 8 bytes. */
    public static final int SRQ_CONTEXT = 0;
    /** {@code offsetof(struct ibv_srq_init_attr, attr.max_wr)}, 4 bytes. */
    public static final int ATTR_MAX_WR = 8;
    /** {@code offsetof(struct ibv_srq_init_attr, attr.max_sge)}, 4 bytes. */
    public static final int ATTR_MAX_SGE = 12;
    /** {@code offsetof(struct ibv_srq_init_attr, attr.srq_limit)}, 4 bytes. */
    public static final int ATTR_SRQ_LIMIT = 16;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_srq_init_attr", SIZE)
            .field("srq_context", SRQ_CONTEXT, 8)
            .field("attr.max_wr", ATTR_MAX_WR, 4)
            .field("attr.max_sge", ATTR_MAX_SGE, 4)
            .field("attr.srq_limit", ATTR_SRQ_LIMIT, 4);

    private IbvSrqInitAttrDescriptor() {
    }
}
