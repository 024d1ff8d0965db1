package io.jofi.provider.verbs;

import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.spi.util.UtilFabric;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The verbs fabric: opens {@link VerbsDomain}s and {@link VerbsPassiveEndpoint}s and owns the
 * rdma_cm event channel with its connection-management thread ({@code jofi-verbs-cm-N}),
 * started with the first endpoint that needs it and stopped on close or departure.
 */
final class VerbsFabric extends UtilFabric {
    private static final AtomicInteger CM_THREADS = new AtomicInteger();

    private final VerbsProvider provider;
    /** Guarded by this. */
    private CmChannel cm;

    private VerbsFabric(FabricAttr attr, Object context, VerbsProvider provider) {
        super(attr, context, provider.resources());
        this.provider = provider;
    }

    static Fabric open(FabricAttr attr, Object context, VerbsProvider provider) throws FabricException {
        try {
            return new VerbsFabric(attr, context, provider);
        } catch (IllegalStateException departedMeanwhile) {
            throw new FabricException(Errno.ENODEV, "the verbs provider has departed");
        }
    }

    VerbsProvider provider() {
        return provider;
    }

    /**
     * {@code fi_domain}: the device named by {@code info.domainAttr().name()}.
     *
     * @throws FabricException {@code EINVAL} for a null info; {@code ENODEV} when the device is not there
     */
    @Override
    public Domain domain(Info info, Object context) throws FabricException {
        ensureOpen("domain");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "domain: info is required (one of the verbs provider's infos)");
        }
        return new VerbsDomain(this, info, context);
    }

    /**
     * {@code fi_passive_ep}: a listening rdma_cm id.
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
        return adopt(this, new VerbsPassiveEndpoint(this, info, context));
    }

    /** The rdma_cm channel, started on first use. */
    synchronized CmChannel cm() throws FabricException {
        if (cm == null) {
            ensureOpen("connection management");
            cm = new CmChannel(provider, "jofi-verbs-cm-" + CM_THREADS.incrementAndGet());
        }
        return cm;
    }

    private synchronized void stopCm() {
        if (cm != null) {
            cm.close();
            cm = null;
        }
    }

    @Override
    protected void onClose() throws FabricException {
        try {
            super.onClose();
        } finally {
            stopCm();
        }
    }

    @Override
    protected void onDeparture() {
        try {
            super.onDeparture();
        } finally {
            stopCm();
        }
    }
}
