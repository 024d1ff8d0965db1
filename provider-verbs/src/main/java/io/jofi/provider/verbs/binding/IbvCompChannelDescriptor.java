package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_comp_channel} (x86-64, rdma-core 44 headers): a completion channel: its fd becomes readable when a CQ it serves has an event.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 context
 *      8     4 fd
 *   size   16</pre>
 */
public final class IbvCompChannelDescriptor {
    /** {@code sizeof(struct ibv_comp_channel)}. */
    public static final int SIZE = 16;
    /** {@code offsetof(struct ibv_comp_channel, context)}, 8 bytes. */
    public static final int CONTEXT = 0;
    /** {@code offsetof(struct ibv_comp_channel, fd)}, 4 bytes. */
    public static final int FD = 8;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_comp_channel", SIZE)
            .field("context", CONTEXT, 8)
            .field("fd", FD, 4);

    private IbvCompChannelDescriptor() {
    }
}
