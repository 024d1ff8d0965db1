package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_mr} (x86-64, rdma-core 44 headers): a memory registration: its keys (lkey for local SGEs, rkey for peers).
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 context
 *      8     8 pd
 *     16     8 addr
 *     24     8 length
 *     36     4 lkey
 *     40     4 rkey
 *   size   48</pre>
 */
public final class IbvMrDescriptor {
    /** {@code sizeof(struct ibv_mr)}. */
    public static final int SIZE = 48;
    /** {@code offsetof(struct ibv_mr, context)}, 8 bytes. */
    public static final int CONTEXT = 0;
    /** {@code offsetof(struct ibv_mr, pd)}, 8 bytes. */
    public static final int PD = 8;
    /** {@code offsetof(struct ibv_mr, addr)}, 8 bytes. */
    public static final int ADDR = 16;
    /** {@code offsetof(struct ibv_mr, length)}, 8 bytes. */
    public static final int LENGTH = 24;
    /** {@code offsetof(struct ibv_mr, lkey)}, 4 bytes. */
    public static final int LKEY = 36;
    /** {@code offsetof(struct ibv_mr, rkey)}, 4 bytes. */
    public static final int RKEY = 40;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_mr", SIZE)
            .field("context", CONTEXT, 8)
            .field("pd", PD, 8)
            .field("addr", ADDR, 8)
            .field("length", LENGTH, 8)
            .field("lkey", LKEY, 4)
            .field("rkey", RKEY, 4);

    private IbvMrDescriptor() {
    }
}
