package io.jofi.provider.verbs;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Progress;
import io.jofi.provider.verbs.binding.Libc;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.PollFdDescriptor;
import io.jofi.provider.verbs.binding.RdmaCmEventDescriptor;
import io.jofi.provider.verbs.binding.RdmaCmIdDescriptor;
import io.jofi.provider.verbs.binding.RdmaEventChannelDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.ProgressEngine;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fabric's rdma_cm event channel and the connection-management thread that drains it
 * (control progress is always {@code AUTO}): the channel's fd is made non-blocking, the
 * thread sleeps in {@code poll} (bounded, so that close is prompt) and hands each event to the
 * {@link CmHandler} whose token is the event's id's {@code context}. Each event is copied and
 * acknowledged before it is handed over, so a handler may destroy ids freely.
 */
final class CmChannel implements ProgressEngine.Step, AutoCloseable {
    private static final AtomicLong TOKENS = new AtomicLong(1);

    private final long channel;
    private final int fd;
    private final NativeBlock pollFd = new NativeBlock(PollFdDescriptor.SIZE);
    private final NativeBlock eventOut = new NativeBlock(8);
    private final NativeBlock idOut = new NativeBlock(8);
    private final Map<Long, CmHandler> handlers = new ConcurrentHashMap<>();
    /**
     * Held while {@code rdma_get_cm_event} runs and while a queue pair of one of this channel's
     * ids is destroyed: librdmacm's event read works on the event's id's queue pair without a
     * lock of its own (a {@code REJECTED} moves it to the error state; on InfiniBand and RoCE
     * the active side's {@code CONNECT_RESPONSE} moves it to RTR and RTS), so a queue pair an
     * endpoint's close destroyed meanwhile was used after it was freed: the JVM crashed in
     * libibverbs (rxm's crossed connects close the losing connect while the peer's reject of it
     * arrives). The read never blocks (the fd is non-blocking), so a close waits microseconds.
     */
    private final Object eventReadLock = new Object();
    private final ProgressEngine engine;
    private final AsyncEvents asyncEvents;
    private final DeviceCounters deviceCounters;

    CmChannel(VerbsProvider provider, String threadName) throws FabricException {
        asyncEvents = provider.asyncEvents();
        deviceCounters = provider.deviceCounters();
        channel = Rdmacm.rdma_create_event_channel();
        if (channel == 0) {
            throw new FabricException(Errno.ENODEV, "rdma_create_event_channel failed (errno " + Native.getLastError() + ")");
        }
        fd = new Pointer(channel).getInt(RdmaEventChannelDescriptor.FD);
        if (Libc.setNonBlocking(fd) != 0) {
            int errno = Native.getLastError();
            Rdmacm.rdma_destroy_event_channel(channel);
            throw new FabricException(Errno.EIO, "cannot make the rdma_cm channel non-blocking (errno " + errno + ")");
        }
        pollFd.view().putInt(PollFdDescriptor.FD, fd);
        pollFd.view().putShort(PollFdDescriptor.EVENTS, (short) VerbsConstants.POLLIN);
        engine = ProgressEngine.start(Progress.AUTO, threadName, this);
    }

    /**
     * Creates an rdma_cm id on this channel for {@code handler}.
     *
     * @return the {@code struct rdma_cm_id *}
     * @throws FabricException when rdma_create_id fails
     */
    long createId(CmHandler handler) throws FabricException {
        long token = TOKENS.getAndIncrement();
        handlers.put(token, handler);
        synchronized (idOut) {
            if (Rdmacm.rdma_create_id(channel, idOut.address(), token, VerbsConstants.RDMA_PS_TCP) != 0) {
                handlers.remove(token);
                throw new FabricException(Errno.EIO, "rdma_create_id failed (errno " + Native.getLastError() + ")");
            }
            return idOut.view().getLong(0);
        }
    }

    /**
     * Hands the events of {@code id} (e.g. the id of a connect request) to {@code handler} from now on.
     *
     * @return the id's new token ({@link #tokenOf})
     */
    long adopt(long id, CmHandler handler) {
        long token = TOKENS.getAndIncrement();
        handlers.put(token, handler);
        new Pointer(id).setLong(RdmaCmIdDescriptor.CONTEXT, token);
        return token;
    }

    /**
     * The token of a live {@code id} made or adopted here: unique for the channel's life (ids'
     * addresses are not: the allocator hands a destroyed id's memory to the next one).
     */
    static long tokenOf(long id) {
        return new Pointer(id).getLong(RdmaCmIdDescriptor.CONTEXT);
    }

    /**
     * Destroys the queue pair of {@code id} ({@code rdma_destroy_qp}), never while an event is
     * being read ({@link #eventReadLock}).
     */
    void destroyQueuePair(long id) {
        synchronized (eventReadLock) {
            Rdmacm.rdma_destroy_qp(id);
        }
    }

    /** Forgets the handler of {@code id} and destroys the id (its queue pair must be gone). */
    void destroyId(long id) {
        if (id == 0) {
            return;
        }
        handlers.remove(new Pointer(id).getLong(RdmaCmIdDescriptor.CONTEXT));
        Rdmacm.rdma_destroy_id(id);
    }

    @Override
    public int progress(long timeoutNanos) {
        // the device contexts' async events (queue-pair errors) ride on this thread's passes,
        // at most 100 ms apart (the poll bound below)
        int work = asyncEvents.drain() + drain();
        deviceCounters.refreshIfDue(System.nanoTime()); // sysfs, at most once a second: off the data path
        if (work == 0 && timeoutNanos > 0) {
            int ms = (int) Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
            if (Libc.poll(pollFd.address(), 1, ms) > 0) {
                work = drain();
            }
        }
        return work;
    }

    private int drain() {
        int n = 0;
        while (readEvent() == 0) {
            long event = eventOut.view().getLong(0);
            Pointer e = new Pointer(event);
            long id = e.getLong(RdmaCmEventDescriptor.ID);
            long listenId = e.getLong(RdmaCmEventDescriptor.LISTEN_ID);
            int type = e.getInt(RdmaCmEventDescriptor.EVENT);
            int status = e.getInt(RdmaCmEventDescriptor.STATUS);
            byte[] data = new byte[0];
            long pd = e.getLong(RdmaCmEventDescriptor.PARAM_CONN_PRIVATE_DATA);
            int len = e.getByte(RdmaCmEventDescriptor.PARAM_CONN_PRIVATE_DATA_LEN) & 0xFF;
            if (pd != 0 && len > 0) {
                data = new Pointer(pd).getByteArray(0, len);
            }
            // the connect request's new id inherits the listening id's context
            long owner = new Pointer(type == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST && listenId != 0 ? listenId : id)
                    .getLong(RdmaCmIdDescriptor.CONTEXT);
            Rdmacm.rdma_ack_cm_event(event);
            CmHandler h = handlers.get(owner);
            if (h != null) {
                h.onCmEvent(id, owner, type, status, data);
            } else if (type == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
                Rdmacm.rdma_reject(id, 0, (byte) 0);
                Rdmacm.rdma_destroy_id(id);
            }
            n++;
        }
        return n;
    }

    private int readEvent() {
        synchronized (eventReadLock) {
            return Rdmacm.rdma_get_cm_event(channel, eventOut.address());
        }
    }

    @Override
    public void wakeup() {
        // poll() sleeps at most 100 ms: close waits for that, no wake-up descriptor needed
    }

    @Override
    public void close() {
        engine.close();
        Rdmacm.rdma_destroy_event_channel(channel);
        pollFd.close();
        eventOut.close();
        idOut.close();
    }
}
