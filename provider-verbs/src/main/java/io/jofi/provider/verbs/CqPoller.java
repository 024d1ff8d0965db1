package io.jofi.provider.verbs;

import com.sun.jna.Pointer;
import io.jofi.provider.verbs.binding.ContextOps;
import io.jofi.provider.verbs.binding.IbvWcDescriptor;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.spi.util.stats.StatsCounter;
import java.nio.ByteBuffer;

/**
 * Polls a native CQ in batches: one call of the context's {@code poll_cq} ({@link ContextOps},
 * the inline {@code ibv_poll_cq}) fills up to {@code batch} work
 * completions into a preallocated native array ({@link IbvWcDescriptor}), which the consumer
 * reads field by field. Nothing is allocated per poll: the argument array is made once and
 * the batch size is a small {@code Integer} from the boxing cache.
 */
final class CqPoller implements AutoCloseable {
    /** Receives each work completion of a poll. */
    interface Consumer {
        /** One work completion; {@code qpNum} is the queue pair it belongs to (RDM: which peer sent a receive). */
        void onCompletion(long wrId, int status, int opcode, int byteLen, int immData, int wcFlags, int vendorErr,
                          int qpNum);
    }

    private final NativeBlock wcs;
    private final ByteBuffer v;
    private final Object[] pollArgs;
    private final Object[] notifyArgs;
    private final int batch;
    private final long cq;
    /**
     * The polls that found nothing: its endpoint's counter, written by the one thread that
     * holds the endpoint's monitor while polling (one writer, a plain store).
     */
    private final StatsCounter emptyPolls;
    /** Set by {@link #close()}: a later poll throws instead of reading freed memory. */
    private boolean closed;

    /**
     * @param batch      completions per {@code poll_cq} call (1..64)
     * @param emptyPolls counts the {@code poll_cq} calls that found no completion
     */
    CqPoller(long cq, int batch, StatsCounter emptyPolls) {
        this.batch = batch;
        this.emptyPolls = emptyPolls;
        this.cq = cq;
        this.wcs = new NativeBlock((long) batch * IbvWcDescriptor.SIZE);
        this.v = wcs.view();
        Pointer cqp = new Pointer(cq);
        this.pollArgs = new Object[] {cqp, Integer.valueOf(batch), wcs.pointer()};
        this.notifyArgs = new Object[] {cqp, Integer.valueOf(0)};
    }

    /**
     * One {@code poll_cq} call; hands each completion to {@code consumer}.
     *
     * @return the completions read (0 when none), or a negative value when {@code poll_cq} failed
     */
    int poll(ContextOps ops, Consumer consumer) {
        ensureOpen();
        int n = ops.pollCq(pollArgs, cq, batch, wcs.address());
        if (n == 0) {
            emptyPolls.increment();
        }
        for (int i = 0; i < n; i++) {
            int at = i * IbvWcDescriptor.SIZE;
            consumer.onCompletion(v.getLong(at + IbvWcDescriptor.WR_ID), v.getInt(at + IbvWcDescriptor.STATUS),
                    v.getInt(at + IbvWcDescriptor.OPCODE), v.getInt(at + IbvWcDescriptor.BYTE_LEN),
                    v.getInt(at + IbvWcDescriptor.IMM_DATA), v.getInt(at + IbvWcDescriptor.WC_FLAGS),
                    v.getInt(at + IbvWcDescriptor.VENDOR_ERR), v.getInt(at + IbvWcDescriptor.QP_NUM));
        }
        return n;
    }

    /** Polls until the CQ is empty or {@code max} completions were read; returns how many. */
    int drain(ContextOps ops, Consumer consumer, int max) {
        int total = 0;
        while (total < max) {
            int n = poll(ops, consumer);
            if (n <= 0) {
                break;
            }
            total += n;
            if (n < batch) {
                break;
            }
        }
        return total;
    }

    /** Arms the completion channel for the next completion ({@code ibv_req_notify_cq(cq, 0)}); 0 or an errno. */
    int requestNotify(ContextOps ops) {
        ensureOpen();
        return ops.reqNotifyCq(notifyArgs, cq, 0);
    }

    /** Frees the work-completion array. Idempotent; the owner excludes every poll first. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        wcs.close();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the CQ poller is closed (its endpoint was torn down)");
        }
    }
}
