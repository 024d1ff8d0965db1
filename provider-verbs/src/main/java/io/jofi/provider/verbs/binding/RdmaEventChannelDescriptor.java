package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct rdma_event_channel} (x86-64, rdma-core 44 headers): an rdma_cm event channel: its fd is readable while connection events wait.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     4 fd
 *   size    4</pre>
 */
public final class RdmaEventChannelDescriptor {
    /** {@code sizeof(struct rdma_event_channel)}. */
    public static final int SIZE = 4;
    /** {@code offsetof(struct rdma_event_channel, fd)}, 4 bytes. */
    public static final int FD = 0;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct rdma_event_channel", SIZE)
            .field("fd", FD, 4);

    private RdmaEventChannelDescriptor() {
    }
}
