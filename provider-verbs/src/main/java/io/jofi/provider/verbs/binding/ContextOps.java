package io.jofi.provider.verbs.binding;

import com.sun.jna.Function;
import com.sun.jna.Pointer;

/**
 * The data-path functions of one device context: {@code verbs.h} makes {@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_poll_cq} and {@code ibv_req_notify_cq} inline functions
 * that call {@code context->ops.post_send} etc., so the binding reads those function pointers
 * from {@code struct ibv_context} ({@link IbvContextDescriptor}) and calls them through JNA
 * {@link Function}. Each call costs a few hundred nanoseconds: callers post chains of work
 * requests and poll many completions per call.
 *
 * <p>Callers keep one argument array per queue (handles and native blocks as {@link Pointer}s
 * made once, counts as small {@code Integer}s from the boxing cache) so that a call builds no
 * argument of its own.
 */
public final class ContextOps {
    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad)}. */
    public final Function postSend;
    /** {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **bad)}. */
    public final Function postRecv;
    /** {@code int (*poll_cq)(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    public final Function pollCq;
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    public final Function reqNotifyCq;

    private ContextOps(Function postSend, Function postRecv, Function pollCq, Function reqNotifyCq) {
        this.postSend = postSend;
        this.postRecv = postRecv;
        this.pollCq = pollCq;
        this.reqNotifyCq = reqNotifyCq;
    }

    /**
     * Reads the operation table of {@code context} (a {@code struct ibv_context *}).
     *
     * @throws IllegalStateException when a pointer the data path needs is NULL (a driver
     *         without it cannot run RC endpoints)
     */
    public static ContextOps of(long context) {
        Pointer ctx = new Pointer(context);
        return new ContextOps(
                function(ctx, IbvContextDescriptor.OPS_POST_SEND, "post_send"),
                function(ctx, IbvContextDescriptor.OPS_POST_RECV, "post_recv"),
                function(ctx, IbvContextDescriptor.OPS_POLL_CQ, "poll_cq"),
                function(ctx, IbvContextDescriptor.OPS_REQ_NOTIFY_CQ, "req_notify_cq"));
    }

    private static Function function(Pointer ctx, int offset, String name) {
        long fp = ctx.getLong(offset);
        if (fp == 0) {
            throw new IllegalStateException("the device context has no ops." + name);
        }
        return Function.getFunction(new Pointer(fp));
    }
}
