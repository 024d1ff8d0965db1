package io.jofi.provider.tcp;

import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.ProviderResources;
import io.jofi.spi.util.UtilFabric;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tcp fabric: opens {@link TcpDomain}s and {@link TcpPassiveEndpoint}s. Passive endpoints
 * live on the fabric (fi_passive_ep(3)), so the fabric owns the connection-management loop
 * that accepts sockets and reads their connection requests: one auto-progress thread
 * ({@code jofi-tcp-cm-N}), started with the first {@code listen} and stopped on close or
 * departure. Should its step throw (a provider bug), every open passive endpoint gets an
 * {@code EIO} error event naming the cause on its EQ and fails (no more {@code FI_CONNREQ}
 * could come), rather than listen on unserved.
 */
final class TcpFabric extends UtilFabric {
    private static final AtomicInteger CM_THREADS = new AtomicInteger();

    private final TcpProvider provider;
    /** Guarded by this. */
    private NioLoop cmLoop;
    /** Guarded by this. */
    private ProgressEngine cmEngine;

    /** The passive endpoints opened on this fabric and not closed: what a CM failure reports to. */
    private final Set<TcpPassiveEndpoint> passiveEndpoints = Collections.newSetFromMap(new IdentityHashMap<>());

    /** Connection-setup deadlines and accept back-off, run after every pass of the CM loop. */
    private final ConnectionSetupTimer setupTimer;
    /**
     * The deadlines of active connects (the progress timeout: a peer that takes the socket but
     * never answers the connection request — stopped, hung — fails the connect with {@code ETIMEDOUT}).
     */
    private final ConnectionSetupTimer connectTimer;

    TcpFabric(FabricAttr attr, Object context, ProviderResources resources, TcpProvider provider) {
        super(attr, context, resources);
        this.provider = provider;
        this.setupTimer = new ConnectionSetupTimer(provider.connectionSetupTimeoutMillis());
        this.connectTimer = new ConnectionSetupTimer(provider.progressTimeoutMillis());
    }

    ConnectionSetupTimer setupTimer() {
        return setupTimer;
    }

    ConnectionSetupTimer connectTimer() {
        return connectTimer;
    }

    TcpProvider provider() {
        return provider;
    }

    /**
     * {@code fi_domain}: a tcp domain for one of this provider's infos.
     *
     * @throws FabricException {@code EINVAL} for a null info; {@code EBADF}/{@code ENODEV}
     */
    @Override
    public Domain domain(Info info, Object context) throws FabricException {
        ensureOpen("domain");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "domain: info is required (one of the tcp provider's infos)");
        }
        return new TcpDomain(this, info, context);
    }

    /**
     * {@code fi_passive_ep}: a listening endpoint for MSG connections.
     *
     * @throws FabricException {@code EINVAL} for a null info or one that is not MSG
     */
    @Override
    public PassiveEndpoint passiveEndpoint(Info info, Object context) throws FabricException {
        ensureOpen("passiveEndpoint");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "passiveEndpoint: info is required");
        }
        EpType t = info.epAttr().type();
        if (t != EpType.MSG && t != EpType.UNSPEC) {
            throw new FabricException(Errno.EINVAL, "passiveEndpoint: endpoint type " + t + " is not MSG");
        }
        TcpPassiveEndpoint pep = adopt(this, new TcpPassiveEndpoint(this, info, context));
        synchronized (passiveEndpoints) {
            passiveEndpoints.add(pep);
        }
        return pep;
    }

    /** {@code pep} closed: a CM failure has nothing to report to it. */
    void forget(TcpPassiveEndpoint pep) {
        synchronized (passiveEndpoints) {
            passiveEndpoints.remove(pep);
        }
    }

    /** The CM engine's step threw: nothing accepts or reads connection requests any more. */
    private void cmFailed(ProgressEngine engine, Throwable cause) {
        String why = "the connection management of the tcp fabric failed: " + cause;
        List<TcpPassiveEndpoint> all;
        synchronized (passiveEndpoints) {
            all = new ArrayList<>(passiveEndpoints);
        }
        for (TcpPassiveEndpoint pep : all) {
            pep.cmFailed(why);
        }
    }




    /**
     * The connection-management loop, started on first use.
     *
     * @throws FabricException {@code ENODEV} when the provider is departing
     */
    synchronized NioLoop cmLoop() throws FabricException {
        if (cmLoop == null) {
            NioLoop loop = new NioLoop();
            cmEngine = provider.startEngine(Progress.AUTO, "jofi-tcp-cm-" + CM_THREADS.incrementAndGet(), loop,
                    this::cmFailed);
            loop.addTicker(setupTimer);
            loop.addTicker(connectTimer);
            cmLoop = loop;
        }
        return cmLoop;
    }

    private void stopCm() {
        NioLoop loop;
        ProgressEngine engine;
        synchronized (this) {
            loop = cmLoop;
            engine = cmEngine;
            cmLoop = null;
            cmEngine = null;
        }
        if (engine != null) {
            provider.stopEngine(engine);
        }
        if (loop != null) {
            loop.close();
        }
    }

    @Override
    protected void onClose() throws FabricException {
        stopCm();
    }

    @Override
    protected void onDeparture() {
        stopCm();
    }
}
