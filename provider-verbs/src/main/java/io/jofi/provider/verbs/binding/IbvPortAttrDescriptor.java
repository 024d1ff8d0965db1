package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_port_attr} (x86-64, rdma-core 44 headers): ibv_query_port (the exported, compat-sized call fills the fields below): port state, MTU, link layer.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     4 state
 *      4     4 max_mtu
 *      8     4 active_mtu
 *     12     4 gid_tbl_len
 *     20     4 max_msg_sz
 *     46     1 link_layer
 *   size   52</pre>
 */
public final class IbvPortAttrDescriptor {
    /** {@code sizeof(struct ibv_port_attr)}. */
    public static final int SIZE = 52;
    /** {@code offsetof(struct ibv_port_attr, state)}, 4 bytes. */
    public static final int STATE = 0;
    /** {@code offsetof(struct ibv_port_attr, max_mtu)}, 4 bytes. */
    public static final int MAX_MTU = 4;
    /** {@code offsetof(struct ibv_port_attr, active_mtu)}, 4 bytes. */
    public static final int ACTIVE_MTU = 8;
    /** {@code offsetof(struct ibv_port_attr, gid_tbl_len)}, 4 bytes. */
    public static final int GID_TBL_LEN = 12;
    /** {@code offsetof(struct ibv_port_attr, max_msg_sz)}, 4 bytes. */
    public static final int MAX_MSG_SZ = 20;
    /** {@code offsetof(struct ibv_port_attr, link_layer)}, 1 byte. */
    public static final int LINK_LAYER = 46;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_port_attr", SIZE)
            .field("state", STATE, 4)
            .field("max_mtu", MAX_MTU, 4)
            .field("active_mtu", ACTIVE_MTU, 4)
            .field("gid_tbl_len", GID_TBL_LEN, 4)
            .field("max_msg_sz", MAX_MSG_SZ, 4)
            .field("link_layer", LINK_LAYER, 1);

    private IbvPortAttrDescriptor() {
    }
}
