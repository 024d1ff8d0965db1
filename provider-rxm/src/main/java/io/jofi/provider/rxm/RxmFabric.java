package io.jofi.provider.rxm;

import io.jofi.Domain;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.ProviderResources;
import io.jofi.spi.util.SafeLog;
import io.jofi.spi.util.UtilFabric;
import java.util.List;

/**
 * A fabric of the rxm layer over one core: the core's fabric, opened with it and closed with it,
 * under the layer's queues and domains. Its objects are its own book ({@link #resources()}), so
 * that the departure of its core, or of the layer, departs them and nothing else.
 */
final class RxmFabric extends UtilFabric {
    private static final System.Logger LOG = System.getLogger(RxmFabric.class.getName());

    private final FabricProvider core;
    private final Fabric coreFabric;
    /** The domains open now, for {@link #stopProgress}; guarded by itself. */
    private final List<RxmDomain> domains = new java.util.ArrayList<>();

    RxmFabric(FabricAttr attr, Object context, FabricProvider core, Fabric coreFabric) {
        super(attr, context, new ProviderResources());
        this.core = core;
        this.coreFabric = coreFabric;
    }

    /** The core provider under it. */
    FabricProvider core() {
        return core;
    }

    /**
     * {@code fi_domain}: an rxm domain over a domain of the core's fabric, opened for the core's
     * MSG info of the same domain and fabric (asked again, as libfabric's rxm asks its core).
     *
     * @throws FabricException {@code EINVAL} for a null info; {@code ENODATA} when the core no
     *         longer offers that domain; whatever the core's {@code fi_domain} throws
     */
    @Override
    public Domain domain(Info info, Object context) throws FabricException {
        ensureOpen("domain");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "domain: info is required");
        }
        Info coreMsg = coreInfo(info);
        Domain coreDomain = coreFabric.domain(RxmInfos.msgInfo(info, coreMsg), null);
        RxmDomain domain;
        try {
            domain = new RxmDomain(this, info, coreFabric, coreDomain, coreMsg,
                    RxmInfos.settings(core.name(), coreMsg), context);
        } catch (FabricException | RuntimeException e) {
            closeQuietly(coreDomain, e);
            throw e;
        }
        synchronized (domains) {
            domains.add(domain);
        }
        domain.whenClosed(() -> {
            synchronized (domains) {
                domains.remove(domain);
            }
        });
        return domain;
    }

    /**
     * Stops the progress of every endpoint of this fabric, so that none takes a peer's departure
     * over the same core for a peer's error before it departs itself.
     */
    void stopProgress() {
        List<RxmDomain> all;
        synchronized (domains) {
            all = List.copyOf(domains);
        }
        for (RxmDomain d : all) {
            d.stopProgress();
        }
    }

    /** The core's MSG info of {@code rdm}'s domain and fabric, in its address format. */
    private Info coreInfo(Info rdm) throws FabricException {
        Info hints = RxmInfos.coreHints(null);
        hints.addrFormat(rdm.addrFormat());
        hints.domainAttr().name(rdm.domainAttr() == null ? null : rdm.domainAttr().name());
        hints.fabricAttr().name(rdm.fabricAttr() == null ? null : rdm.fabricAttr().name());
        List<Info> infos = core.getInfo(null, null, 0, hints);
        if (infos == null || infos.isEmpty()) {
            throw new FabricException(Errno.ENODATA, "domain: " + core.name() + " offers no MSG endpoints in "
                    + hints.domainAttr().name());
        }
        return infos.get(0);
    }

    /** {@code fi_trywait}: the core fabric's, whose MANUAL domains' bridges watch the connections. */
    @Override
    public int tryWait(Fid... fids) {
        int rc = dataPathCheck();
        return rc != 0 ? rc : coreFabric.tryWait(fids);
    }

    @Override
    protected void onClose() throws FabricException {
        coreFabric.close();
    }

    /** Departed (its core or the layer went): the core's fabric is closed, quietly. */
    @Override
    protected void onDeparture() {
        closeQuietly(coreFabric, null);
    }

    static void closeQuietly(Fid fid, Throwable cause) {
        try {
            fid.close();
        } catch (FabricException | RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            } else if (!(e instanceof FabricException f && (f.errno() == Errno.ENODEV || f.errno() == Errno.EBADF))) {
                SafeLog.log(LOG, System.Logger.Level.WARNING, "rxm: closing " + fid + " failed", e);
            }
        }
    }
}
