package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct rdma_cm_event} (x86-64, rdma-core 44 headers): an rdma_cm event: which id, which event, its status and the connection data.
 * Only the fields the binding touches are named; the ABI check test compares every one of
 * them (offset and width) and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 id
 *      8     8 listen_id
 *     16     4 event
 *     20     4 status
 *     24     8 param.conn.private_data
 *     32     1 param.conn.private_data_len
 *     33     1 param.conn.responder_resources
 *     34     1 param.conn.initiator_depth
 *   size   80</pre>
 */
public final class RdmaCmEventDescriptor {
    /** {@code sizeof(struct rdma_cm_event)}. */
    public static final int SIZE = 80;
    /** {@code offsetof(struct rdma_cm_event, id)}, 8 bytes. */
    public static final int ID = 0;
    /** {@code offsetof(struct rdma_cm_event, listen_id)}, 8 bytes. */
    public static final int LISTEN_ID = 8;
    /** {@code offsetof(struct rdma_cm_event, event)}, 4 bytes. */
    public static final int EVENT = 16;
    /** {@code offsetof(struct rdma_cm_event, status)}, 4 bytes. */
    public static final int STATUS = 20;
    /** {@code offsetof(struct rdma_cm_event, param.conn.private_data)}, 8 bytes. */
    public static final int PARAM_CONN_PRIVATE_DATA = 24;
    /** {@code offsetof(struct rdma_cm_event, param.conn.private_data_len)}, 1 byte. */
    public static final int PARAM_CONN_PRIVATE_DATA_LEN = 32;
    /** {@code offsetof(struct rdma_cm_event, param.conn.responder_resources)}, 1 byte. */
    public static final int PARAM_CONN_RESPONDER_RESOURCES = 33;
    /** {@code offsetof(struct rdma_cm_event, param.conn.initiator_depth)}, 1 byte. */
    public static final int PARAM_CONN_INITIATOR_DEPTH = 34;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct rdma_cm_event", SIZE)
            .field("id", ID, 8)
            .field("listen_id", LISTEN_ID, 8)
            .field("event", EVENT, 4)
            .field("status", STATUS, 4)
            .field("param.conn.private_data", PARAM_CONN_PRIVATE_DATA, 8)
            .field("param.conn.private_data_len", PARAM_CONN_PRIVATE_DATA_LEN, 1)
            .field("param.conn.responder_resources", PARAM_CONN_RESPONDER_RESOURCES, 1)
            .field("param.conn.initiator_depth", PARAM_CONN_INITIATOR_DEPTH, 1);

    private RdmaCmEventDescriptor() {
    }
}
