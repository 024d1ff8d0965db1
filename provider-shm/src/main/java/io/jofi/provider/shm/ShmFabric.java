package io.jofi.provider.shm;

import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.spi.util.Pollable;
import io.jofi.spi.util.ProviderResources;
import io.jofi.spi.util.UtilFabric;
import io.jofi.spi.util.WaitSupport;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The shm fabric: opens {@link ShmDomain}s; EQs and wait sets are the util layer's. shm has
 * RDM endpoints only, so there are no passive endpoints ({@code ENOSYS}).
 */
final class ShmFabric extends UtilFabric {
    private final ShmProvider provider;

    ShmFabric(FabricAttr attr, Object context, ProviderResources resources, ShmProvider provider) {
        super(attr, context, resources);
        this.provider = provider;
    }

    /** Open domains, for {@link #tryWait}. */
    private final CopyOnWriteArrayList<ShmDomain> domains = new CopyOnWriteArrayList<>();

    void addDomain(ShmDomain d) {
        domains.add(d);
    }

    void removeDomain(ShmDomain d) {
        domains.remove(d);
    }

    /**
     * {@code fi_trywait} (R4): the util answer (progress driven once; {@code -EAGAIN} when a
     * queue has something to read), then for each queue the FD falls silent unless it has
     * something to read (a spurious signal of the wait bridge is reset here, as fi_trywait
     * resets a provider's fd), and every MANUAL domain of this fabric answers {@code -EAGAIN}
     * when a ring holds a record, or arms its wait bridge so that a record from another
     * process signals the queues ({@link ShmDomain#armForWait}).
     */
    @Override
    public int tryWait(Fid... fids) {
        int rc = super.tryWait(fids);
        if (rc != 0 || domains.isEmpty()) {
            return rc;
        }
        WaitSupport[] waits = new WaitSupport[fids.length];
        for (int i = 0; i < fids.length; i++) {
            waits[i] = ((Pollable) fids[i]).waitSupport(); // super checked: Pollable, can block
            waits[i].afterRead();
        }
        for (ShmDomain d : domains) {
            rc = d.armForWait(waits);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }

    ShmProvider provider() {
        return provider;
    }

    /**
     * {@code fi_domain}: an shm domain for one of this provider's infos.
     *
     * @throws FabricException {@code EINVAL} for a null info or one that is not RDM;
     *         {@code EBADF}/{@code ENODEV}; {@code EIO} when the region directory is unusable
     */
    @Override
    public Domain domain(Info info, Object context) throws FabricException {
        ensureOpen("domain");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "domain: info is required (one of the shm provider's infos)");
        }
        EpType t = info.epAttr() == null ? EpType.UNSPEC : info.epAttr().type();
        if (t != EpType.RDM && t != EpType.UNSPEC) {
            throw new FabricException(Errno.EINVAL, "domain: shm offers RDM endpoints only, not " + t);
        }
        return new ShmDomain(this, info, context);
    }
}
