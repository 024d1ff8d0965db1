package io.jofi.provider.verbs.binding;

/**
 * The exported functions of {@code libibverbs.so.1}, bound by JNA direct mapping
 * ({@code Native.register}, see {@link VerbsLibraries}): every pointer is a {@code long}
 * address, out-parameters are addresses of preallocated native memory, so a call allocates
 * nothing on the Java heap. Failures are reported as C does (NULL / non-zero, with
 * {@code errno} in {@code Native.getLastError()}).
 *
 * <p>The data-path functions of {@code verbs.h} ({@code ibv_post_send}, {@code ibv_post_recv},
 * {@code ibv_poll_cq}, {@code ibv_req_notify_cq}) are inline and not exported: they are called
 * through the device context's operation table, see {@link ContextOps}.
 *
 * <p>Call only after {@link VerbsLibraries#load()} succeeded.
 */
public final class Ibv {
    private Ibv() {
    }

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}; NULL with errno on failure. */
    public static native long ibv_get_device_list(long numDevicesOut);

    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    public static native void ibv_free_device_list(long list);

    /** {@code const char *ibv_get_device_name(struct ibv_device *device)}. */
    public static native String ibv_get_device_name(long device);

    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *device)}. */
    public static native long ibv_open_device(long device);

    /** {@code int ibv_close_device(struct ibv_context *context)}. */
    public static native int ibv_close_device(long context);

    /** {@code int ibv_query_device(struct ibv_context *, struct ibv_device_attr *)}. */
    public static native int ibv_query_device(long context, long deviceAttrOut);

    /**
     * The exported {@code ibv_query_port} (the compat entry point the header's inline
     * {@code ___ibv_query_port} falls back to): fills the leading fields of
     * {@code struct ibv_port_attr} that {@link IbvPortAttrDescriptor} names; clear the
     * buffer first.
     */
    public static native int ibv_query_port(long context, byte portNum, long portAttrOut);

    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *)}. */
    public static native long ibv_alloc_pd(long context);

    /** {@code int ibv_dealloc_pd(struct ibv_pd *)}. */
    public static native int ibv_dealloc_pd(long pd);

    /** {@code struct ibv_mr *ibv_reg_mr(struct ibv_pd *, void *addr, size_t length, int access)}. */
    public static native long ibv_reg_mr(long pd, long addr, long length, int access);

    /** {@code int ibv_dereg_mr(struct ibv_mr *)}. */
    public static native int ibv_dereg_mr(long mr);

    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *)}. */
    public static native long ibv_create_comp_channel(long context);

    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *)}. */
    public static native int ibv_destroy_comp_channel(long channel);

    /** {@code struct ibv_cq *ibv_create_cq(context, int cqe, void *cq_context, channel, int comp_vector)}. */
    public static native long ibv_create_cq(long context, int cqe, long cqContext, long channel, int compVector);

    /** {@code int ibv_destroy_cq(struct ibv_cq *)}. */
    public static native int ibv_destroy_cq(long cq);

    /** {@code int ibv_get_cq_event(channel, struct ibv_cq **cq, void **cq_context)}: blocks unless the fd is non-blocking. */
    public static native int ibv_get_cq_event(long channel, long cqOut, long cqContextOut);

    /** {@code void ibv_ack_cq_events(struct ibv_cq *, unsigned int nevents)}. */
    public static native void ibv_ack_cq_events(long cq, int nevents);

    /** {@code const char *ibv_wc_status_str(enum ibv_wc_status)}: the status's name, for strerror. */
    public static native String ibv_wc_status_str(int status);

    /**
     * {@code int ibv_get_async_event(struct ibv_context *, struct ibv_async_event *)}: the next
     * asynchronous event of the device context; blocks unless the context's {@code async_fd}
     * is non-blocking (then -1 with errno {@code EAGAIN} when there is none). Every event
     * returned must be acknowledged with {@link #ibv_ack_async_event}.
     */
    public static native int ibv_get_async_event(long context, long eventOut);

    /** {@code void ibv_ack_async_event(struct ibv_async_event *)}. */
    public static native void ibv_ack_async_event(long event);
}
