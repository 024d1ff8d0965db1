package io.jofi.provider.verbs;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.EpType;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.provider.verbs.binding.ContextOps;
import io.jofi.provider.verbs.binding.Ibv;
import io.jofi.provider.verbs.binding.IbvCompChannelDescriptor;
import io.jofi.provider.verbs.binding.IbvContextDescriptor;
import io.jofi.provider.verbs.binding.IbvMrDescriptor;
import io.jofi.provider.verbs.binding.Libc;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.PollFdDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.SnapshotArrays;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilDomain;
import io.jofi.spi.util.UtilEventQueue;
import io.jofi.spi.util.UtilMemoryRegion;
import io.jofi.spi.util.WaitBridge;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The verbs domain: one device context (librdmacm's own, so that rdma_cm ids, queue pairs,
 * CQs and registrations agree), a protection domain, a completion channel and the progress
 * engine that moves completions from every endpoint's native CQ into the util CQs — on a
 * thread woken by the completion channel ({@code AUTO}, {@code jofi-verbs-progress-N}) or
 * inside the application's reads ({@code MANUAL}).
 *
 * <p>Memory registration is {@code ibv_reg_mr} of the buffer's {@code [position, limit)}:
 * {@code MemoryRegion.address()} is its virtual address and {@code key()} its rkey, what
 * peers target (docs/API.md); the lkey stays here for the data path.
 */
final class VerbsDomain extends UtilDomain implements ProgressEngine.Step {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final AtomicInteger BRIDGES = new AtomicInteger();
    /** How long the wait bridge leaves the step to an application thread that is running it. */
    private static final long BRIDGE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Bytes of the receive overflow area: how much of a truncated message may be discarded. */
    static final int OVERFLOW = 4 << 20;

    private final VerbsFabric fabric;
    private final long context;
    private final long pd;
    private final long compChannel;
    private final int compFd;
    private final ContextOps ops;
    private final NativeBlock pollFd = new NativeBlock(PollFdDescriptor.SIZE);
    private final NativeBlock cqOut = new NativeBlock(16);
    /**
     * The endpoints whose native CQs a pass drains ({@link SnapshotArrays}: replaced whole on
     * attach and detach under {@link #endpointsLock}, walked by index). Not a
     * {@code CopyOnWriteArrayList}: its iterator is an object per pass, which only escape
     * analysis removed, and not in every JVM (24 B per RMA operation in a fresh one).
     */
    private volatile CompletionSource[] endpoints = new CompletionSource[0];
    private final Object endpointsLock = new Object();
    private final Map<MemoryRegion, long[]> registrations = new ConcurrentHashMap<>();
    private final ActivePort port;
    private final ProgressEngine engine;
    /** MANUAL only: wakes the wait objects armed by fi_trywait when a completion arrives; else null. */
    private WaitBridge bridge;
    private volatile UtilEventQueue mrEq;
    /**
     * The overflow area every receive ends with (a second SGE): a message longer than the
     * posted buffer spills into it instead of failing the RC queue pair with a length error,
     * so truncation is an {@code ETRUNC} completion with {@code olen} and the connection lives
     * on (R12). Shared, never read.
     */
    private NativeBlock overflow;
    private long overflowMr;
    private int overflowLkey;

    VerbsDomain(VerbsFabric fabric, Info info, Object context) throws FabricException {
        super(fabric, info, context);
        this.fabric = fabric;
        String name = info.domainAttr().name();
        ActivePort found = null;
        for (ActivePort p : fabric.provider().ports()) {
            if (name == null || p.device().equals(name)) {
                found = p;
                break;
            }
        }
        if (found == null) {
            close();
            throw new FabricException(Errno.ENODEV, "domain: no active verbs device named " + name);
        }
        this.port = found;
        long ctx = librdmacmContext(found.device());
        if (ctx == 0) {
            close();
            throw new FabricException(Errno.ENODEV, "domain: librdmacm does not know device " + found.device());
        }
        int asyncRc = fabric.provider().asyncEvents().attach(ctx);
        if (asyncRc != 0) {
            close();
            throw new FabricException(Errno.EIO, "domain: the async event fd of " + found.device()
                    + " cannot be made non-blocking (errno " + asyncRc + ")");
        }
        this.context = ctx;
        fabric.provider().deviceCounters().attach(found.device(), found.port());
        this.ops = ContextOps.of(ctx);
        this.pd = Ibv.ibv_alloc_pd(ctx);
        if (pd == 0) {
            int errno = Native.getLastError();
            close();
            throw new FabricException(Errno.ENOMEM, "domain: ibv_alloc_pd failed (errno " + errno + ")");
        }
        this.compChannel = Ibv.ibv_create_comp_channel(ctx);
        if (compChannel == 0) {
            int errno = Native.getLastError();
            close(); // stop() deallocates the PD
            throw new FabricException(Errno.ENOMEM, "domain: ibv_create_comp_channel failed (errno " + errno + ")");
        }
        this.overflow = new NativeBlock(OVERFLOW);
        this.overflowMr = Ibv.ibv_reg_mr(pd, overflow.address(), OVERFLOW, VerbsConstants.IBV_ACCESS_LOCAL_WRITE);
        if (overflowMr == 0) {
            int errno = Native.getLastError();
            close();
            throw new FabricException(Errno.ENOMEM, "domain: ibv_reg_mr of the receive overflow area failed (errno "
                    + errno + ")");
        }
        this.overflowLkey = new Pointer(overflowMr).getInt(IbvMrDescriptor.LKEY);
        this.compFd = new Pointer(compChannel).getInt(IbvCompChannelDescriptor.FD);
        Libc.setNonBlocking(compFd);
        pollFd.view().putInt(PollFdDescriptor.FD, compFd);
        pollFd.view().putShort(PollFdDescriptor.EVENTS, (short) VerbsConstants.POLLIN);
        Progress mode = info.domainAttr().dataProgress();
        // A step that throws fails the domain with EIO (README "Failure model").
        this.engine = ProgressEngine.start(mode, "jofi-verbs-progress-" + THREADS.incrementAndGet(), this,
                this::progressFailed);
        this.bridge = engine.isManual()
                ? new WaitBridge("jofi-verbs-fdwait-" + BRIDGES.incrementAndGet(), new CompletionWait())
                : null;
        if (bridge != null) {
            fabric.addBridge(bridge);
        }
    }

    private static long librdmacmContext(String device) {
        try (NativeBlock n = new NativeBlock(8)) {
            long list = Rdmacm.rdma_get_devices(n.address());
            if (list == 0) {
                return 0;
            }
            try {
                int count = n.view().getInt(0);
                Pointer l = new Pointer(list);
                for (int i = 0; i < count; i++) {
                    long ctx = l.getLong(8L * i);
                    long dev = new Pointer(ctx).getLong(IbvContextDescriptor.DEVICE);
                    if (device.equals(Ibv.ibv_get_device_name(dev))) {
                        return ctx;
                    }
                }
                return 0;
            } finally {
                Rdmacm.rdma_free_devices(list);
            }
        }
    }

    /**
     * {@code fi_query_atomic}: the MSG endpoints' native atomics ({@link VerbsNativeAtomics}: one
     * 64-bit element, where the device has atomics; RDM atomics are {@code verbs;ofi_rxm}'s).
     */
    @Override
    public int queryAtomic(int datatype, int op, long flags) {
        return VerbsNativeAtomics.count(port.atomics(), datatype, op, flags);
    }

    /**
     * {@code fi_endpoint}: an MSG endpoint over an RC queue pair; with {@code info.handle()}
     * set (from {@code FI_CONNREQ}) it takes over that connect request, to be accepted. RDM
     * endpoints over these are the {@code ofi_rxm} provider's ({@code verbs;ofi_rxm}).
     *
     * @throws FabricException {@code EINVAL} for a null info or a foreign handle;
     *         {@code ENOSYS} for DGRAM and RDM
     */
    @Override
    public Endpoint endpoint(Info info, Object context) throws FabricException {
        ensureOpen("endpoint");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "endpoint: info is required");
        }
        EpType t = info.epAttr().type();
        if (t == EpType.DGRAM || t == EpType.RDM) {
            throw new FabricException(Errno.ENOSYS, "endpoint: verbs offers no " + t + " endpoints; use MSG (RDM: the"
                    + " provider verbs;ofi_rxm)");
        }
        if (info.handle() != null && !(info.handle() instanceof VerbsConnReq)) {
            throw new FabricException(Errno.EINVAL, "endpoint: info.handle() is not a verbs connection request");
        }
        return adopt(new VerbsEndpoint(this, info, context));
    }

    /**
     * {@code fi_av_open}: the util layer's AV.
     */
    @Override
    public AddressVector openAv(AvAttr attr, Object context) throws FabricException {
        ensureOpen("openAv");
        return adopt(new UtilAddressVector(attr, context, info().addrFormat(), addressResolver()));
    }

    /** {@code fi_cq_open} with the verbs strerror (work completion status names). */
    @Override
    public CompletionQueue openCq(CqAttr attr, Object context) throws FabricException {
        ensureOpen("openCq");
        return adopt(new UtilCompletionQueue(attr, context,
                (provErrno, errData, size) -> WcErrors.describe(provErrno, Ibv.ibv_wc_status_str(provErrno))));
    }

    /**
     * {@code fi_mr_reg}: {@code ibv_reg_mr} of {@code [position, limit)} of a direct buffer;
     * {@code address()} = its virtual address, {@code key()} = the rkey.
     *
     * @throws FabricException {@code EINVAL} for a heap buffer (the device needs pinned
     *         native memory) or what the registry refuses; {@code ENOMEM} when the device refuses
     */
    @Override
    public MemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey, long flags,
                                 Object context) throws FabricException {
        ensureOpen("register");
        if (buf == null || !buf.isDirect()) {
            throw new FabricException(Errno.EINVAL, "register: verbs registers direct buffers only (the device needs"
                    + " native memory); got " + (buf == null ? "null" : "a heap buffer"));
        }
        if (buf.remaining() == 0) {
            throw new FabricException(Errno.EINVAL, "register: the buffer is empty");
        }
        long va = Pointer.nativeValue(Native.getDirectBufferPointer(buf)) + buf.position();
        int ibvAccess = buf.isReadOnly() ? 0 : VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
        if ((access & Fi.FI_REMOTE_WRITE) != 0) {
            ibvAccess |= VerbsConstants.IBV_ACCESS_REMOTE_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC;
        }
        if ((access & Fi.FI_REMOTE_READ) != 0) {
            ibvAccess |= VerbsConstants.IBV_ACCESS_REMOTE_READ | VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC;
        }
        long mr = Ibv.ibv_reg_mr(pd, va, buf.remaining(), ibvAccess);
        if (mr == 0) {
            int errno = Native.getLastError();
            throw new FabricException(Errno.ENOMEM, "register: ibv_reg_mr of " + buf.remaining() + " bytes failed (errno "
                    + errno + "; is the memlock limit high enough?)");
        }
        Pointer m = new Pointer(mr);
        long lkey = m.getInt(IbvMrDescriptor.LKEY) & 0xFFFFFFFFL;
        long rkey = m.getInt(IbvMrDescriptor.RKEY) & 0xFFFFFFFFL;
        // without remote access a device may answer rkey 0 for every region (soft-RoCE does):
        // key() is then the lkey, unique per device, so that registrations never collide
        long key = rkey != 0 ? rkey : lkey;
        UtilMemoryRegion region;
        try {
            region = adopt(memoryRegistry().register(buf, access, offset, key, flags, context, false, va));
        } catch (FabricException e) {
            Ibv.ibv_dereg_mr(mr);
            throw e;
        }
        registrations.put(region, new long[] {mr, lkey, va});
        region.whenClosed(() -> {
            long[] r = registrations.remove(region);
            if (r != null) {
                Ibv.ibv_dereg_mr(r[0]);
            }
        });
        UtilEventQueue q = mrEq;
        if (q != null) {
            int rc = q.post(Fi.FI_MR_COMPLETE, region, context, 0, null, null, 0);
            if (rc < 0) {
                region.close();
                throw new FabricException(-rc, "register: the FI_MR_COMPLETE event could not be queued ("
                        + Errno.strerror(-rc) + "); the registration was undone");
            }
        }
        return region;
    }

    /** {@code fi_domain_bind}: as the util domain; with {@code FI_REG_MR} registrations complete with events. */
    @Override
    public void bind(EventQueue eq, long flags) throws FabricException {
        super.bind(eq, flags);
        if ((flags & Fi.FI_REG_MR) != 0 && eq instanceof UtilEventQueue q) {
            mrEq = q;
        }
    }

    /** {@code {mr, lkey, va}} of a region registered here, or {@code null}. Allocation-free. */
    long[] registration(MemoryRegion desc) {
        return desc == null ? null : registrations.get(desc);
    }

    long deviceContext() {
        return context;
    }

    long pd() {
        return pd;
    }

    long overflowAddress() {
        return overflow.address();
    }

    int overflowLkey() {
        return overflowLkey;
    }

    long compChannel() {
        return compChannel;
    }

    ContextOps ops() {
        return ops;
    }

    ActivePort port() {
        return port;
    }

    ProgressEngine engine() {
        return engine;
    }

    VerbsFabric verbsFabric() {
        return fabric;
    }

    VerbsProvider provider() {
        return fabric.provider();
    }

    void attach(CompletionSource ep) {
        synchronized (endpointsLock) {
            endpoints = SnapshotArrays.with(endpoints, ep);
        }
    }

    void detach(CompletionSource ep) {
        synchronized (endpointsLock) {
            endpoints = SnapshotArrays.without(endpoints, ep);
        }
    }

    /**
     * One progress pass: drain every endpoint's native CQ into the util CQs; when idle and
     * allowed to block, arm the CQs, drain once more (a completion may have arrived before
     * arming) and sleep in {@code poll} on the completion channel (at most 100 ms).
     */
    @Override
    public int progress(long timeoutNanos) {
        CompletionSource[] eps = endpoints;
        int work = pollAll(eps);
        if (work > 0 || timeoutNanos <= 0) {
            return work;
        }
        for (int i = 0; i < eps.length; i++) {
            eps[i].armCompletions();
        }
        work = pollAll(eps);
        if (work > 0) {
            return work;
        }
        int ms = (int) Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        if (Libc.poll(pollFd.address(), 1, ms) > 0) {
            // consume the channel's events (non-blocking fd: -1/EAGAIN ends the loop) and ack each
            while (Ibv.ibv_get_cq_event(compChannel, cqOut.address(), cqOut.address(8)) == 0) {
                Ibv.ibv_ack_cq_events(cqOut.view().getLong(0), 1);
            }
            work += pollAll(endpoints);
        }
        return work;
    }

    private static int pollAll(CompletionSource[] eps) {
        int work = 0;
        for (int i = 0; i < eps.length; i++) {
            work += eps[i].pollCompletions();
        }
        return work;
    }

    @Override
    public void wakeup() {
        // poll() sleeps at most 100 ms
    }

    /**
     * The readiness wait of the MANUAL domain's {@link WaitBridge}: one pass of this domain's
     * step through the engine's single-runner slot ({@link ProgressEngine#await}), which arms the
     * native CQs and sleeps in {@code poll} on the completion channel. A native CQ cannot be
     * looked at without polling it, and a completion that arrived before the CQ was armed raises
     * no channel event, so waiting on the channel alone could sleep through it; the pass drains
     * what the device already placed into the util CQs, which signal their own wait objects —
     * the application's next read finds it, as MANUAL progress wants. While an application
     * thread runs the step, the bridge leaves it the slot.
     */
    private final class CompletionWait implements WaitBridge.Transport {
        @Override
        public boolean awaitReadiness(long timeoutNanos) {
            int work = engine.await(timeoutNanos);
            if (work < 0) {
                LockSupport.parkNanos(BRIDGE_PAUSE_NANOS);
                return false;
            }
            return work > 0;
        }

        @Override
        public void wakeup() {
            // the pass sleeps in poll() at most 100 ms
        }
    }

    private void stop() {
        if (bridge != null) {
            fabric.removeBridge(bridge);
            bridge.close(); // before the engine and the channel it sleeps on (R15)
            bridge = null;
        }
        if (engine != null) {
            engine.close();
        }
        if (context != 0) {
            fabric.provider().asyncEvents().detach(context);
            fabric.provider().deviceCounters().detach(port.device(), port.port());
        }
        if (compChannel != 0) {
            Ibv.ibv_destroy_comp_channel(compChannel);
        }
        if (overflowMr != 0) {
            Ibv.ibv_dereg_mr(overflowMr);
            overflowMr = 0;
        }
        if (overflow != null) {
            overflow.close();
            overflow = null;
        }
        if (pd != 0) {
            Ibv.ibv_dealloc_pd(pd);
        }
        pollFd.close();
        cqOut.close();
    }

    @Override
    protected void onClose() throws FabricException {
        try {
            super.onClose();
        } finally {
            stop();
        }
    }

    @Override
    protected void onDeparture() {
        try {
            super.onDeparture();
        } finally {
            stop();
        }
    }
}
