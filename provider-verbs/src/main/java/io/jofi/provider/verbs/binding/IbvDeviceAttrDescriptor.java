package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_device_attr} (x86-64, rdma-core 44 headers): ibv_query_device: the limits the infos advertise (queue depths, SGEs, atomics).
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *     80     8 max_mr_size
 *    112     4 max_qp_wr
 *    120     4 max_sge
 *    132     4 max_cqe
 *    144     4 max_qp_rd_atom
 *    156     4 max_qp_init_rd_atom
 *    164     4 atomic_cap
 *    227     1 phys_port_cnt
 *   size  232</pre>
 */
public final class IbvDeviceAttrDescriptor {
    /** {@code sizeof(struct ibv_device_attr)}. */
    public static final int SIZE = 232;
    /** {@code offsetof(struct ibv_device_attr, max_mr_size)}, 8 bytes. */
    public static final int MAX_MR_SIZE = 80;
    /** {@code offsetof(struct ibv_device_attr, max_qp_wr)}, 4 bytes. */
    public static final int MAX_QP_WR = 112;
    /** {@code offsetof(struct ibv_device_attr, max_sge)}, 4 bytes. */
    public static final int MAX_SGE = 120;
    /** {@code offsetof(struct ibv_device_attr, max_cqe)}, 4 bytes. */
    public static final int MAX_CQE = 132;
    /** {@code offsetof(struct ibv_device_attr, max_qp_rd_atom)}, 4 bytes. */
    public static final int MAX_QP_RD_ATOM = 144;
    /** {@code offsetof(struct ibv_device_attr, max_qp_init_rd_atom)}, 4 bytes. */
    public static final int MAX_QP_INIT_RD_ATOM = 156;
    /** {@code offsetof(struct ibv_device_attr, atomic_cap)}, 4 bytes. */
    public static final int ATOMIC_CAP = 164;
    /** {@code offsetof(struct ibv_device_attr, phys_port_cnt)}, 1 byte. */
    public static final int PHYS_PORT_CNT = 227;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_device_attr", SIZE)
            .field("max_mr_size", MAX_MR_SIZE, 8)
            .field("max_qp_wr", MAX_QP_WR, 4)
            .field("max_sge", MAX_SGE, 4)
            .field("max_cqe", MAX_CQE, 4)
            .field("max_qp_rd_atom", MAX_QP_RD_ATOM, 4)
            .field("max_qp_init_rd_atom", MAX_QP_INIT_RD_ATOM, 4)
            .field("atomic_cap", ATOMIC_CAP, 4)
            .field("phys_port_cnt", PHYS_PORT_CNT, 1);

    private IbvDeviceAttrDescriptor() {
    }
}
