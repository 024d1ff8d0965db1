package io.jofi.provider.shm;

import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.spi.util.ProviderResources;
import io.jofi.spi.util.UtilFabric;

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
