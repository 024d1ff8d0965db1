package io.jofi.tools;

import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.ProviderState;
import io.jofi.spi.util.AbstractFabricProvider;
import java.util.List;

/**
 * The unavailable provider of the tools tests, {@value #NAME}: installed (so
 * {@code info -l} lists it) but {@link ProviderState#UNAVAILABLE} with the reason
 * {@value #REASON}, the way a verbs provider is on a host without an RDMA device. Found by
 * {@code Fabrics.standalone()} through {@code META-INF/services}.
 */
public final class DevicelessProvider extends AbstractFabricProvider {
    /** The provider name. */
    static final String NAME = "nodev";
    /** The provider version. */
    static final String VERSION = "2.0";
    /** Why it is unavailable. */
    static final String REASON = "no RDMA device";

    /** For {@link java.util.ServiceLoader}. */
    public DevicelessProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public ProviderState state() {
        return ProviderState.UNAVAILABLE;
    }

    @Override
    public String unavailableReason() {
        return REASON;
    }

    /** Nothing without a device (the registry does not ask an unavailable provider anyway). */
    @Override
    protected List<Info> offeredInfos(String node, String service, long flags) {
        return List.of();
    }

    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        throw new FabricException(Errno.ENODEV, NAME + ": " + REASON);
    }
}
