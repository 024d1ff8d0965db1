package io.jofi.provider.rxm;

import io.jofi.Domain;
import io.jofi.EpType;
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
        try {
            return new RxmDomain(this, info, coreFabric, coreDomain, coreMsg,
                    RxmInfos.settings(core.name(), coreMsg), context);
        } catch (FabricException | RuntimeException e) {
            closeQuietly(coreDomain, e);
            throw e;
        }
    }

    /** The core's MSG info of {@code rdm}'s domain and fabric, in its address format. */
    private Info coreInfo(Info rdm) throws FabricException {
        Info hints = new Info();
        hints.epAttr().type(EpType.MSG);
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
