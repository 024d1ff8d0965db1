package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_sge} (x86-64, rdma-core 44 headers): one scatter-gather element of a work request.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 addr
 *      8     4 length
 *     12     4 lkey
 *   size   16</pre>
 */
public final class IbvSgeDescriptor {
    /** {@code sizeof(struct ibv_sge)}. */
    public static final int SIZE = 16;
    /** {@code offsetof(struct ibv_sge, addr)}, 8 bytes. */
    public static final int ADDR = 0;
    /** {@code offsetof(struct ibv_sge, length)}, 4 bytes. */
    public static final int LENGTH = 8;
    /** {@code offsetof(struct ibv_sge, lkey)}, 4 bytes. */
    public static final int LKEY = 12;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_sge", SIZE)
            .field("addr", ADDR, 8)
            .field("length", LENGTH, 4)
            .field("lkey", LKEY, 4);

    private IbvSgeDescriptor() {
    }
}
