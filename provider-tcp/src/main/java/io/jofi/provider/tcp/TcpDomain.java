package io.jofi.provider.tcp;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.EpType;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.AtomicTable;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.UtilDomain;
import io.jofi.spi.util.WaitBridge;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tcp domain: queues, counters, AVs and memory registration are the util layer's; it owns
 * one {@link NioLoop} and the {@link ProgressEngine} that runs it in the info's data-progress
 * mode ({@code AUTO}: thread {@code jofi-tcp-progress-N}; {@code MANUAL}: inside the
 * application's CQ/EQ/counter reads and endpoint calls). Every endpoint's sockets are
 * registered with this loop. In MANUAL progress it also owns a {@link WaitBridge} (thread
 * {@code jofi-tcp-fdwait-N}, started by the first {@code fi_trywait}) whose readiness wait
 * ({@link NioReadiness}) watches the loop's sockets without reading them, so that a message
 * arriving while the application sleeps on a queue's wait object signals it (R4).
 */
final class TcpDomain extends UtilDomain {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final AtomicInteger BRIDGES = new AtomicInteger();

    private final TcpFabric fabric;
    private final NioLoop loop;
    private final ProgressEngine engine;
    /** MANUAL only: wakes the wait objects armed by fi_trywait when a socket is ready; else null. */
    private final WaitBridge bridge;

    TcpDomain(TcpFabric fabric, Info info, Object context) throws FabricException {
        super(fabric, info, context);
        this.fabric = fabric;
        this.loop = new NioLoop();
        ProgressEngine e;
        try {
            Progress mode = info.domainAttr().dataProgress();
            e = fabric.provider().startEngine(mode, "jofi-tcp-progress-" + THREADS.incrementAndGet(), new Step(),
                    this::progressFailed); // a step that throws fails the domain with EIO (README "Failure model")
        } catch (FabricException ex) {
            loop.close();
            close();
            throw ex;
        }
        this.engine = e;
        int progressTimeout = fabric.provider().progressTimeoutMillis();
        if (progressTimeout > 0) {
            loop.addTicker(new ProgressWatchdog(loop, progressTimeout));
        }
        this.bridge = e.isManual() ? new WaitBridge("jofi-tcp-fdwait-" + BRIDGES.incrementAndGet(), loop.readiness()) : null;
        if (bridge != null) {
            fabric.addBridge(bridge);
        }
    }

    /**
     * {@code fi_endpoint}: an MSG endpoint — with {@code info.handle()} set (from an
     * {@code FI_CONNREQ} event) it takes over that connection request, to be accepted. RDM
     * endpoints over these are the {@code ofi_rxm} provider's ({@code tcp;ofi_rxm}).
     *
     * @throws FabricException {@code EINVAL} for a null info or a handle that is not a pending
     *         tcp connection request; {@code ENOSYS} for DGRAM and RDM
     */
    @Override
    public Endpoint endpoint(Info info, Object context) throws FabricException {
        ensureOpen("endpoint");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "endpoint: info is required");
        }
        EpType t = info.epAttr().type();
        if (t == EpType.DGRAM || t == EpType.RDM) {
            throw new FabricException(Errno.ENOSYS, "endpoint: tcp offers no " + t + " endpoints; use MSG (RDM: the"
                    + " provider tcp;ofi_rxm)");
        }
        if (info.handle() != null && !(info.handle() instanceof PendingConnection)) {
            throw new FabricException(Errno.EINVAL, "endpoint: info.handle() is not a tcp connection request");
        }
        return adopt(new TcpEndpoint(this, info, context));
    }

    /**
     * {@code fi_query_atomic}: a MSG domain's endpoints serve {@link AtomicTable}'s pairs up to
     * the 8 bytes a JOFI atomic frame carries (to JOFI peers only; a C peer's connection refuses
     * every atomic).
     */
    @Override
    public int queryAtomic(int datatype, int op, long flags) {
        return AtomicTable.count(datatype, op, flags, TcpWireDescriptor.ATOMIC_TYPED_BYTES);
    }

    /**
     * {@code fi_av_open}: a {@link TcpAddressVector} (the util layer's AV, whose inserts refresh
     * the connections' FI_SOURCE lookups).
     */
    @Override
    public AddressVector openAv(AvAttr attr, Object context) throws FabricException {
        ensureOpen("openAv");
        return adopt(new TcpAddressVector(attr, context, info().addrFormat(), addressResolver()));
    }

    /** The engine's step: the loop's, after the test fault hook. */
    private final class Step implements ProgressEngine.Step {
        @Override
        public int progress(long timeoutNanos) {
            runStepFault(); // tests only (UtilDomain.injectStepFault)
            return loop.progress(timeoutNanos);
        }

        @Override
        public void wakeup() {
            loop.wakeup();
        }

        /** A selector: any thread may wait in it, and {@code Selector.wakeup} reaches whichever does. */
        @Override
        public boolean waitsOnAnyThread() {
            return true;
        }
    }

    NioLoop loop() {
        return loop;
    }

    /**
     * The fabric's connection-management loop, where sockets live until connected.
     *
     * @throws FabricException {@code ENODEV} when the provider departs
     */
    /** The deadlines of this fabric's active connects ({@link TcpFabric#connectTimer}). */
    ConnectionSetupTimer connectTimer() {
        return fabric.connectTimer();
    }

    NioLoop cmLoop() throws FabricException {
        return fabric.cmLoop();
    }

    /** The fabric's connection-setup deadlines and accept back-off. */
    ConnectionSetupTimer setupTimer() {
        return fabric.setupTimer();
    }

    ProgressEngine engine() {
        return engine;
    }

    TcpProvider provider() {
        return fabric.provider();
    }

    private void stop() {
        if (bridge != null) {
            fabric.removeBridge(bridge);
        }
        if (engine != null) {
            fabric.provider().stopEngine(engine);
        }
        if (bridge != null) {
            bridge.close(); // before the selectors it waits on (R15: it never outlives the domain)
        }
        loop.close();
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
