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
    /**
     * Whether {@link DataPath}'s direct-mapped methods call this context's functions (no
     * allocation per call); false for a second driver, which then goes through the {@code Function}s.
     */
    public final boolean direct;

    private ContextOps(Function postSend, Function postRecv, Function pollCq, Function reqNotifyCq,
                       boolean direct) {
        this.postSend = postSend;
        this.postRecv = postRecv;
        this.pollCq = pollCq;
        this.reqNotifyCq = reqNotifyCq;
        this.direct = direct;
    }

    /**
     * Reads the operation table of {@code context} (a {@code struct ibv_context *}).
     *
     * @throws IllegalStateException when a pointer the data path needs is NULL (a driver
     *         without it cannot run RC endpoints)
     */
    public static ContextOps of(long context) {
        Pointer ctx = new Pointer(context);
        boolean direct = !Boolean.getBoolean("jofi.verbs.functionCalls") && DataPath.bind(
                ctx.getLong(IbvContextDescriptor.OPS_POST_SEND), ctx.getLong(IbvContextDescriptor.OPS_POST_RECV),
                ctx.getLong(IbvContextDescriptor.OPS_POLL_CQ), ctx.getLong(IbvContextDescriptor.OPS_REQ_NOTIFY_CQ));
        return new ContextOps(
                function(ctx, IbvContextDescriptor.OPS_POST_SEND, "post_send"),
                function(ctx, IbvContextDescriptor.OPS_POST_RECV, "post_recv"),
                function(ctx, IbvContextDescriptor.OPS_POLL_CQ, "poll_cq"),
                function(ctx, IbvContextDescriptor.OPS_REQ_NOTIFY_CQ, "req_notify_cq"),
                direct);
    }

    /** {@code post_send(qp, wr, bad)}: direct-mapped when {@link #direct}, else through the {@code Function} with {@code args}. */
    public int postSend(Object[] args, long qp, long wr, long badWr) {
        return direct ? DataPath.post_send(qp, wr, badWr) : postSend.invokeInt(args);
    }

    /** {@code post_recv(qp, wr, bad)}, as {@link #postSend}. */
    public int postRecv(Object[] args, long qp, long wr, long badWr) {
        return direct ? DataPath.post_recv(qp, wr, badWr) : postRecv.invokeInt(args);
    }

    /** {@code poll_cq(cq, n, wc)}, as {@link #postSend}. */
    public int pollCq(Object[] args, long cq, int n, long wc) {
        return direct ? DataPath.poll_cq(cq, n, wc) : pollCq.invokeInt(args);
    }

    /** {@code req_notify_cq(cq, solicited_only)}, as {@link #postSend}. */
    public int reqNotifyCq(Object[] args, long cq, int solicitedOnly) {
        return direct ? DataPath.req_notify_cq(cq, solicitedOnly) : reqNotifyCq.invokeInt(args);
    }

    private static Function function(Pointer ctx, int offset, String name) {
        long fp = ctx.getLong(offset);
        if (fp == 0) {
            throw new IllegalStateException("the device context has no ops." + name);
        }
        return Function.getFunction(new Pointer(fp));
    }
}
