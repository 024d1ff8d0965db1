package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_send_wr} (x86-64, rdma-core 44 headers): a send-queue work request (send, send with immediate, RDMA read/write, atomics), built in preallocated native memory.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 wr_id
 *      8     8 next
 *     16     8 sg_list
 *     24     4 num_sge
 *     28     4 opcode
 *     32     4 send_flags
 *     36     4 imm_data
 *     40     8 wr.rdma.remote_addr
 *     40     8 wr.atomic.remote_addr
 *     48     4 wr.rdma.rkey
 *     48     8 wr.atomic.compare_add
 *     56     8 wr.atomic.swap
 *     64     4 wr.atomic.rkey
 *   size  128</pre>
 */
public final class IbvSendWrDescriptor {
    /** {@code sizeof(struct ibv_send_wr)}. */
    public static final int SIZE = 128;
    /** {@code offsetof(struct ibv_send_wr, wr_id)}, 8 bytes. */
    public static final int WR_ID = 0;
    /** {@code offsetof(struct ibv_send_wr, next)}, 8 bytes. */
    public static final int NEXT = 8;
    /** {@code offsetof(struct ibv_send_wr, sg_list)}, 8 bytes. */
    public static final int SG_LIST = 16;
    /** {@code offsetof(struct ibv_send_wr, num_sge)}, 4 bytes. */
    public static final int NUM_SGE = 24;
    /** {@code offsetof(struct ibv_send_wr, opcode)}, 4 bytes. */
    public static final int OPCODE = 28;
    /** {@code offsetof(struct ibv_send_wr, send_flags)}, 4 bytes. */
    public static final int SEND_FLAGS = 32;
    /** {@code offsetof(struct ibv_send_wr, imm_data)}, 4 bytes. */
    public static final int IMM_DATA = 36;
    /** {@code offsetof(struct ibv_send_wr, wr.rdma.remote_addr)}, 8 bytes. */
    public static final int WR_RDMA_REMOTE_ADDR = 40;
    /** {@code offsetof(struct ibv_send_wr, wr.rdma.rkey)}, 4 bytes. */
    public static final int WR_RDMA_RKEY = 48;
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.remote_addr)}, 8 bytes. */
    public static final int WR_ATOMIC_REMOTE_ADDR = 40;
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.compare_add)}, 8 bytes. */
    public static final int WR_ATOMIC_COMPARE_ADD = 48;
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.swap)}, 8 bytes. */
    public static final int WR_ATOMIC_SWAP = 56;
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.rkey)}, 4 bytes. */
    public static final int WR_ATOMIC_RKEY = 64;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_send_wr", SIZE)
            .field("wr_id", WR_ID, 8)
            .field("next", NEXT, 8)
            .field("sg_list", SG_LIST, 8)
            .field("num_sge", NUM_SGE, 4)
            .field("opcode", OPCODE, 4)
            .field("send_flags", SEND_FLAGS, 4)
            .field("imm_data", IMM_DATA, 4)
            .field("wr.rdma.remote_addr", WR_RDMA_REMOTE_ADDR, 8)
            .field("wr.rdma.rkey", WR_RDMA_RKEY, 4)
            .field("wr.atomic.remote_addr", WR_ATOMIC_REMOTE_ADDR, 8)
            .field("wr.atomic.compare_add", WR_ATOMIC_COMPARE_ADD, 8)
            .field("wr.atomic.swap", WR_ATOMIC_SWAP, 8)
            .field("wr.atomic.rkey", WR_ATOMIC_RKEY, 4);

    private IbvSendWrDescriptor() {
    }
}
