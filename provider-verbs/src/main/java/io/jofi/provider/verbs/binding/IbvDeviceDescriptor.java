package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_device} (x86-64, rdma-core 44 headers): a device of ibv_get_device_list: its transport (IB/RoCE vs iWARP).
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *     16     4 node_type
 *     20     4 transport_type
 *     24    64 name
 *   size  664</pre>
 */
public final class IbvDeviceDescriptor {
    /** {@code sizeof(struct ibv_device)}. */
    public static final int SIZE = 664;
    /** {@code offsetof(struct ibv_device, node_type)}, 4 bytes. */
    public static final int NODE_TYPE = 16;
    /** {@code offsetof(struct ibv_device, transport_type)}, 4 bytes. */
    public static final int TRANSPORT_TYPE = 20;
    /** {@code offsetof(struct ibv_device, name)}, 64 bytes. */
    public static final int NAME = 24;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_device", SIZE)
            .field("node_type", NODE_TYPE, 4)
            .field("transport_type", TRANSPORT_TYPE, 4)
            .field("name", NAME, 64);

    private IbvDeviceDescriptor() {
    }
}
