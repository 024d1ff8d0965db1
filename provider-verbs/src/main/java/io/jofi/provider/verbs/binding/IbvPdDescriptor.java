package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_pd} (x86-64, rdma-core 44 headers): a protection domain.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 context
 *      8     4 handle
 *   size   16</pre>
 */
public final class IbvPdDescriptor {
    /** {@code sizeof(struct ibv_pd)}. */
    public static final int SIZE = 16;
    /** {@code offsetof(struct ibv_pd, context)}, 8 bytes. */
    public static final int CONTEXT = 0;
    /** {@code offsetof(struct ibv_pd, handle)}, 4 bytes. */
    public static final int HANDLE = 8;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_pd", SIZE)
            .field("context", CONTEXT, 8)
            .field("handle", HANDLE, 4);

    private IbvPdDescriptor() {
    }
}
