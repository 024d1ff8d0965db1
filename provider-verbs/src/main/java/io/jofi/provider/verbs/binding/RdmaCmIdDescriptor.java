package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct rdma_cm_id} (x86-64, rdma-core 44 headers): an rdma_cm identifier: the device context, the queue pair and the protection domain it carries.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 verbs
 *      8     8 channel
 *     16     8 context
 *     24     8 qp
 *     32    16 route.addr.src_addr (what rdma_get_local_addr returns)
 *    160    16 route.addr.dst_addr (what rdma_get_peer_addr returns)
 *    344     4 ps
 *    348     1 port_num
 *    400     8 pd
 *   size  416</pre>
 */
public final class RdmaCmIdDescriptor {
    /** {@code sizeof(struct rdma_cm_id)}. */
    public static final int SIZE = 416;
    /** {@code offsetof(struct rdma_cm_id, verbs)}, 8 bytes. */
    public static final int VERBS = 0;
    /** {@code offsetof(struct rdma_cm_id, channel)}, 8 bytes. */
    public static final int CHANNEL = 8;
    /** {@code offsetof(struct rdma_cm_id, context)}, 8 bytes. */
    public static final int CONTEXT = 16;
    /** {@code offsetof(struct rdma_cm_id, qp)}, 8 bytes. */
    public static final int QP = 24;
    /** {@code offsetof(struct rdma_cm_id, route.addr.src_addr)}, 16 bytes (a sockaddr_in; rdma_get_local_addr is inline). */
    public static final int ROUTE_ADDR_SRC_ADDR = 32;
    /** {@code offsetof(struct rdma_cm_id, route.addr.dst_addr)}, 16 bytes (a sockaddr_in; rdma_get_peer_addr is inline). */
    public static final int ROUTE_ADDR_DST_ADDR = 160;
    /** {@code offsetof(struct rdma_cm_id, ps)}, 4 bytes. */
    public static final int PS = 344;
    /** {@code offsetof(struct rdma_cm_id, port_num)}, 1 byte. */
    public static final int PORT_NUM = 348;
    /** {@code offsetof(struct rdma_cm_id, pd)}, 8 bytes. */
    public static final int PD = 400;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct rdma_cm_id", SIZE)
            .field("verbs", VERBS, 8)
            .field("channel", CHANNEL, 8)
            .field("context", CONTEXT, 8)
            .field("qp", QP, 8)
            .field("route.addr.src_addr", ROUTE_ADDR_SRC_ADDR, 16)
            .field("route.addr.dst_addr", ROUTE_ADDR_DST_ADDR, 16)
            .field("ps", PS, 4)
            .field("port_num", PORT_NUM, 1)
            .field("pd", PD, 8);

    private RdmaCmIdDescriptor() {
    }
}
