package io.jofi.provider.rxm;

import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.spi.util.UtilDomain;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A domain of the rxm layer over one domain of its core: its queues, counters and AVs are the util
 * layer's; its RDM endpoints are {@link RxmEndpoint}s over the core domain's MSG endpoints; its
 * memory registrations are the core domain's (RMA passes through to the core's connections, and
 * rxm's atomics find their targets in the core domain's registry). Closing or departing it closes
 * the core domain.
 */
final class RxmDomain extends UtilDomain {
    private final Fabric coreFabric;
    private final Domain coreDomain;
    private final Info coreMsg;
    private final RxmSettings settings;
    /** The endpoints open now, for {@link #stopProgress}; guarded by itself. */
    private final java.util.List<RxmEndpoint> endpoints = new java.util.ArrayList<>();

    RxmDomain(RxmFabric fabric, Info info, Fabric coreFabric, Domain coreDomain, Info coreMsg, RxmSettings settings,
              Object context) throws FabricException {
        super(fabric, info, context);
        this.coreFabric = coreFabric;
        this.coreDomain = coreDomain;
        this.coreMsg = coreMsg;
        this.settings = settings;
    }

    /**
     * {@code fi_endpoint}: an RDM endpoint over this domain's core MSG endpoints (one connection
     * per peer, made on first use, in {@code ofi_rxm}'s wire).
     *
     * @throws FabricException {@code EINVAL} for a null info, another endpoint type or a
     *         connection request
     */
    @Override
    public Endpoint endpoint(Info info, Object context) throws FabricException {
        ensureOpen("endpoint");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "endpoint: info is required");
        }
        if (info.epAttr().type() != EpType.RDM) {
            throw new FabricException(Errno.EINVAL, "endpoint: " + fabric().providerName() + " opens RDM endpoints, not "
                    + info.epAttr().type() + " (ask the core provider for those)");
        }
        if (info.handle() != null) {
            throw new FabricException(Errno.EINVAL, "endpoint: an RDM endpoint is not opened from a connection request");
        }
        RxmEndpoint ep = adopt(RxmEndpoint.open(coreFabric, coreDomain, RxmInfos.msgInfo(info, coreMsg), info.caps(),
                settings, context));
        synchronized (endpoints) {
            endpoints.add(ep);
        }
        ep.whenClosed(() -> {
            synchronized (endpoints) {
                endpoints.remove(ep);
            }
        });
        return ep;
    }

    /** Stops every endpoint's progress: the first step of a departure ({@link RxmEndpoint#stopProgress}). */
    void stopProgress() {
        List<RxmEndpoint> all;
        synchronized (endpoints) {
            all = List.copyOf(endpoints);
        }
        for (RxmEndpoint ep : all) {
            ep.stopProgress();
        }
    }

    /** {@code fi_query_atomic}: rxm's software atomics ({@link RxmEndpoint#typedAtomicCount}). */
    @Override
    public int queryAtomic(int datatype, int op, long flags) {
        return RxmEndpoint.typedAtomicCount(datatype, op, flags, settings);
    }

    /** {@code fi_mr_reg}: the core domain's registration, which its connections' RMA and rxm's atomics use. */
    @Override
    public MemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey, long flags,
                                 Object context) throws FabricException {
        ensureOpen("register");
        return coreDomain.register(buf, access, offset, requestedKey, flags, context);
    }

    @Override
    protected void onClose() throws FabricException {
        try {
            super.onClose();
        } finally {
            coreDomain.close();
        }
    }

    @Override
    protected void onDeparture() {
        try {
            super.onDeparture();
        } finally {
            RxmFabric.closeQuietly(coreDomain, null);
        }
    }
}
