package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct ibv_async_event} (x86-64, rdma-core 44 headers): what
 * {@code ibv_get_async_event} fills — the object the event is about (a union of
 * {@code struct ibv_cq *}, {@code struct ibv_qp *}, {@code struct ibv_srq *},
 * {@code struct ibv_wq *} and the port number) and the event type. The ABI check test
 * compares the offsets, widths and the size with what gcc says of the real headers.
 *
 * <pre>
 * offset width field
 *      0     8 element      (union: cq, qp, srq, wq pointer, or port_num)
 *      8     4 event_type   (enum ibv_event_type)
 *   size   16</pre>
 */
public final class IbvAsyncEventDescriptor {
    /** {@code sizeof(struct ibv_async_event)}. */
    public static final int SIZE = 16;
    /** {@code offsetof(struct ibv_async_event, element)}, 8 bytes: the pointer of the object (the QP for QP events). */
    public static final int ELEMENT = 0;
    /** {@code offsetof(struct ibv_async_event, event_type)}, 4 bytes. */
    public static final int EVENT_TYPE = 8;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct ibv_async_event", SIZE)
            .field("element", ELEMENT, 8)
            .field("event_type", EVENT_TYPE, 4);

    private IbvAsyncEventDescriptor() {
    }
}
