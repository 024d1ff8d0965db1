package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct rdma_conn_param} (x86-64, rdma-core 44 headers): the connection parameters of rdma_connect / rdma_accept: connection data and RDMA read depths.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 private_data
 *      8     1 private_data_len
 *      9     1 responder_resources
 *     10     1 initiator_depth
 *     11     1 flow_control
 *     12     1 retry_count
 *     13     1 rnr_retry_count
 *     14     1 srq
 *     16     4 qp_num
 *   size   24</pre>
 */
public final class RdmaConnParamDescriptor {
    /** {@code sizeof(struct rdma_conn_param)}. */
    public static final int SIZE = 24;
    /** {@code offsetof(struct rdma_conn_param, private_data)}, 8 bytes. */
    public static final int PRIVATE_DATA = 0;
    /** {@code offsetof(struct rdma_conn_param, private_data_len)}, 1 byte. */
    public static final int PRIVATE_DATA_LEN = 8;
    /** {@code offsetof(struct rdma_conn_param, responder_resources)}, 1 byte. */
    public static final int RESPONDER_RESOURCES = 9;
    /** {@code offsetof(struct rdma_conn_param, initiator_depth)}, 1 byte. */
    public static final int INITIATOR_DEPTH = 10;
    /** {@code offsetof(struct rdma_conn_param, flow_control)}, 1 byte. */
    public static final int FLOW_CONTROL = 11;
    /** {@code offsetof(struct rdma_conn_param, retry_count)}, 1 byte. */
    public static final int RETRY_COUNT = 12;
    /** {@code offsetof(struct rdma_conn_param, rnr_retry_count)}, 1 byte. */
    public static final int RNR_RETRY_COUNT = 13;
    /** {@code offsetof(struct rdma_conn_param, srq)}, 1 byte. */
    public static final int SRQ = 14;
    /** {@code offsetof(struct rdma_conn_param, qp_num)}, 4 bytes. */
    public static final int QP_NUM = 16;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct rdma_conn_param", SIZE)
            .field("private_data", PRIVATE_DATA, 8)
            .field("private_data_len", PRIVATE_DATA_LEN, 1)
            .field("responder_resources", RESPONDER_RESOURCES, 1)
            .field("initiator_depth", INITIATOR_DEPTH, 1)
            .field("flow_control", FLOW_CONTROL, 1)
            .field("retry_count", RETRY_COUNT, 1)
            .field("rnr_retry_count", RNR_RETRY_COUNT, 1)
            .field("srq", SRQ, 1)
            .field("qp_num", QP_NUM, 4);

    private RdmaConnParamDescriptor() {
    }
}
