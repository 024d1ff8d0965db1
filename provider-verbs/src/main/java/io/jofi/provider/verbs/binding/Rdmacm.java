package io.jofi.provider.verbs.binding;

/**
 * The functions of {@code librdmacm.so.1}, bound by JNA direct mapping as {@link Ibv} is:
 * pointers are {@code long} addresses, out-parameters addresses of preallocated native memory.
 * Calls return 0 on success and -1 with {@code errno} in {@code Native.getLastError()}.
 *
 * <p>Call only after {@link VerbsLibraries#load()} succeeded.
 */
public final class Rdmacm {
    private Rdmacm() {
    }

    /** {@code struct rdma_event_channel *rdma_create_event_channel(void)}. */
    public static native long rdma_create_event_channel();

    /** {@code void rdma_destroy_event_channel(struct rdma_event_channel *)}. */
    public static native void rdma_destroy_event_channel(long channel);

    /** {@code int rdma_create_id(channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps)}; channel NULL = synchronous id. */
    public static native int rdma_create_id(long channel, long idOut, long context, int ps);

    /** {@code int rdma_destroy_id(struct rdma_cm_id *)}. */
    public static native int rdma_destroy_id(long id);

    /** {@code int rdma_bind_addr(struct rdma_cm_id *, struct sockaddr *)}. */
    public static native int rdma_bind_addr(long id, long sockaddr);

    /** {@code int rdma_resolve_addr(id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms)}. */
    public static native int rdma_resolve_addr(long id, long src, long dst, int timeoutMs);

    /** {@code int rdma_resolve_route(struct rdma_cm_id *, int timeout_ms)}. */
    public static native int rdma_resolve_route(long id, int timeoutMs);

    /** {@code int rdma_create_qp(struct rdma_cm_id *, struct ibv_pd *, struct ibv_qp_init_attr *)}. */
    public static native int rdma_create_qp(long id, long pd, long qpInitAttr);

    /** {@code void rdma_destroy_qp(struct rdma_cm_id *)}. */
    public static native void rdma_destroy_qp(long id);

    /** {@code int rdma_connect(struct rdma_cm_id *, struct rdma_conn_param *)}. */
    public static native int rdma_connect(long id, long connParam);

    /** {@code int rdma_listen(struct rdma_cm_id *, int backlog)}. */
    public static native int rdma_listen(long id, int backlog);

    /** {@code int rdma_accept(struct rdma_cm_id *, struct rdma_conn_param *)}. */
    public static native int rdma_accept(long id, long connParam);

    /** {@code int rdma_reject(struct rdma_cm_id *, const void *private_data, uint8_t len)}. */
    public static native int rdma_reject(long id, long privateData, byte length);

    /** {@code int rdma_disconnect(struct rdma_cm_id *)}. */
    public static native int rdma_disconnect(long id);

    /** {@code int rdma_get_cm_event(channel, struct rdma_cm_event **event)}: blocks unless the fd is non-blocking. */
    public static native int rdma_get_cm_event(long channel, long eventOut);

    /** {@code int rdma_ack_cm_event(struct rdma_cm_event *)}: frees the event (its private data too). */
    public static native int rdma_ack_cm_event(long event);

    /** {@code const char *rdma_event_str(enum rdma_cm_event_type)}. */
    public static native String rdma_event_str(int event);

    /** {@code struct ibv_context **rdma_get_devices(int *num)}: the device contexts librdmacm's ids use (PDs, CQs and MRs must come from these). */
    public static native long rdma_get_devices(long numOut);

    /** {@code void rdma_free_devices(struct ibv_context **list)}. */
    public static native void rdma_free_devices(long list);
}
