package io.jofi.provider.verbs;

import com.sun.jna.Pointer;
import io.jofi.provider.verbs.binding.Ibv;
import io.jofi.provider.verbs.binding.IbvAsyncEventDescriptor;
import io.jofi.provider.verbs.binding.IbvContextDescriptor;
import io.jofi.provider.verbs.binding.Libc;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.VerbsConstants;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The asynchronous events of the provider's device contexts ({@code ibv_get_async_event}):
 * what a device cannot put in a work completion. A queue pair that hits such an error
 * ({@code IBV_EVENT_QP_FATAL}, {@code QP_REQ_ERR}, {@code QP_ACCESS_ERR} — on iWARP a peer's
 * write to a key, range or region it may not touch arrives only this way, with a DDP
 * terminate, and the connection would otherwise hang) is handed to the {@link Listener} that
 * watches it, which disconnects: both sides then see {@code FI_SHUTDOWN} and every pending
 * operation completes with an error (R14) instead of waiting for ever.
 *
 * <p>The contexts are rdma_cm's (shared by every domain on a device), so one reader serves
 * them all: each context's {@code async_fd} is made non-blocking when a domain attaches it,
 * and the connection-management threads call {@link #drain} on every pass (at most 100 ms
 * apart, {@link CmChannel}). Events other than queue-pair errors are read and acknowledged
 * (an unacknowledged event would block the destruction of its object) and otherwise ignored;
 * a failed device reaches the endpoints as rdma_cm's {@code DEVICE_REMOVAL} ({@code ENODEV}).
 */
final class AsyncEvents implements AutoCloseable {
    /** Told of a fatal event of the queue pair it watches (on a connection-management thread). */
    interface Listener {
        /** @param eventType the {@code enum ibv_event_type} value */
        void onQueuePairError(long qp, int eventType);
    }

    /** Events taken per {@link #drain} before they are dispatched. */
    private static final int BATCH = 16;

    private final Map<Long, Integer> contexts = new ConcurrentHashMap<>();
    private final Map<Long, Listener> watchers = new ConcurrentHashMap<>();
    private final NativeBlock event = new NativeBlock(IbvAsyncEventDescriptor.SIZE);
    private final long[] batchQp = new long[BATCH];
    private final int[] batchType = new int[BATCH];
    /** Serialises {@link #drain} and {@link #close} (guards {@link #event} and the batch arrays). */
    private final Object drainLock = new Object();
    private boolean closed;

    /**
     * A domain uses {@code context}: its async fd becomes non-blocking (once) and it is
     * drained from now on, until the last domain on it detaches.
     *
     * @return 0, or the errno of a failed {@code fcntl} (the context is not watched then)
     */
    synchronized int attach(long context) {
        Integer n = contexts.get(context);
        if (n == null) {
            int fd = new Pointer(context).getInt(IbvContextDescriptor.ASYNC_FD);
            if (Libc.setNonBlocking(fd) != 0) {
                return com.sun.jna.Native.getLastError();
            }
            n = 0;
        }
        contexts.put(context, n + 1);
        return 0;
    }

    /** A domain no longer uses {@code context}. */
    synchronized void detach(long context) {
        Integer n = contexts.get(context);
        if (n == null) {
            return;
        }
        if (n <= 1) {
            contexts.remove(context);
        } else {
            contexts.put(context, n - 1);
        }
    }

    /** {@code listener} is told of fatal events of queue pair {@code qp} until {@link #unwatch}. */
    void watch(long qp, Listener listener) {
        if (qp != 0) {
            watchers.put(qp, listener);
        }
    }

    /** Before {@code qp} is destroyed (its address may be reused by the next queue pair). */
    void unwatch(long qp) {
        if (qp != 0) {
            watchers.remove(qp);
        }
    }

    /**
     * Reads the pending events of every attached context, acknowledges each, and hands the
     * queue-pair errors to their listeners. Non-blocking; allocation-free. One drain at a time
     * (the connection-management threads of several fabrics call it): the listeners run under
     * the drain lock, which nothing else takes, so a listener may take its endpoint's lock.
     *
     * @return the events read
     */
    int drain() {
        synchronized (drainLock) {
            if (closed) {
                return 0;
            }
            int n = 0;
            for (Long ctx : contexts.keySet()) {
                while (n < BATCH && Ibv.ibv_get_async_event(ctx, event.address()) == 0) {
                    int type = event.view().getInt(IbvAsyncEventDescriptor.EVENT_TYPE);
                    long element = event.view().getLong(IbvAsyncEventDescriptor.ELEMENT);
                    Ibv.ibv_ack_async_event(event.address());
                    batchQp[n] = element;
                    batchType[n] = type;
                    n++;
                }
            }
            for (int i = 0; i < n; i++) {
                Listener l = isQueuePairError(batchType[i]) ? watchers.get(batchQp[i]) : null;
                if (l != null) {
                    l.onQueuePairError(batchQp[i], batchType[i]);
                }
            }
            return n;
        }
    }

    /** Whether {@code type} ends a queue pair ({@code IBV_EVENT_QP_FATAL}, {@code QP_REQ_ERR}, {@code QP_ACCESS_ERR}). */
    static boolean isQueuePairError(int type) {
        return type == VerbsConstants.IBV_EVENT_QP_FATAL || type == VerbsConstants.IBV_EVENT_QP_REQ_ERR
                || type == VerbsConstants.IBV_EVENT_QP_ACCESS_ERR;
    }

    @Override
    public void close() {
        synchronized (drainLock) {
            if (!closed) {
                closed = true;
                contexts.clear();
                watchers.clear();
                event.close();
            }
        }
    }
}
