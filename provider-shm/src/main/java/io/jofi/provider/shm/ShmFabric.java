package io.jofi.provider.shm;

import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.spi.util.ProviderResources;
import io.jofi.spi.util.TryWait;
import io.jofi.spi.util.UtilFabric;
import io.jofi.spi.util.WaitBridge;
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

    /** The wait bridges of the open MANUAL domains, for {@link #tryWait}. */
    private final CopyOnWriteArrayList<WaitBridge> bridges = new CopyOnWriteArrayList<>();

    void addBridge(WaitBridge b) {
        bridges.add(b);
    }

    void removeBridge(WaitBridge b) {
        bridges.remove(b);
    }

    /**
     * {@code fi_trywait} (R4): the util answer (progress driven once; {@code -EAGAIN} when a
     * queue has something to read); then each queue's FD falls silent unless it has something
     * to read, and every MANUAL domain of this fabric answers {@code -EAGAIN} when a ring
     * holds a record, or arms its {@link WaitBridge} so that a record from another process
     * signals the queues ({@link TryWait#tryWait(java.util.Collection, Fid...)}).
     */
    @Override
    public int tryWait(Fid... fids) {
        int rc = dataPathCheck();
        return rc != 0 ? rc : TryWait.tryWait(bridges, fids);
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
