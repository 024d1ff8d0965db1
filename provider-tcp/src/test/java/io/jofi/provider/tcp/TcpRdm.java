package io.jofi.provider.tcp;

import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.rxm.RxmProvider;
import java.util.Map;

/**
 * RDM over tcp in a test that holds its own tcp provider: a registry of its own with that
 * provider and the {@code ofi_rxm} layer over it, as the tcp and rxm bundles are in a container.
 * The RDM infos are {@code tcp;ofi_rxm}'s; their fabrics open through {@link FabricsRegistry#fabric}.
 */
public final class TcpRdm {
    private TcpRdm() {
    }

    /** A registry with {@code tcp} and, layered over it, {@code ofi_rxm} bound. */
    public static FabricsRegistry registry(TcpProvider tcp) {
        FabricsRegistry registry = new FabricsRegistry();
        registry.bindProvider(new RxmProvider(), Map.of());
        registry.bindProvider(tcp, Map.of());
        return registry;
    }

    /** A registry with only {@code ofi_rxm} bound, for a test that binds (and unbinds) tcp itself. */
    public static FabricsRegistry layerOnly() {
        FabricsRegistry registry = new FabricsRegistry();
        registry.bindProvider(new RxmProvider(), Map.of());
        return registry;
    }

    /** The first RDM info over tcp for {@code hints} (their endpoint type and prov_name are set here). */
    public static Info info(FabricsRegistry registry, String node, String service, long flags, Info hints)
            throws FabricException {
        Info h = hints == null ? new Info() : hints.copy();
        h.epAttr().type(EpType.RDM);
        h.fabricAttr().provName(TcpProvider.NAME);
        return registry.getInfo(node, service, flags, h).get(0);
    }
}
