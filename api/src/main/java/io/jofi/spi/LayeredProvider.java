package io.jofi.spi;

import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A provider layered over core providers, as libfabric's utility providers ({@code ofi_rxm}): it
 * offers its endpoints over the endpoints of every core provider the registry holds, one pairing
 * per core, named {@code <core>;<layer>} ({@code tcp;ofi_rxm}) in {@code fabric_attr.prov_name}.
 *
 * <p>The registry does the naming and the choosing, as libfabric's {@code fi_getinfo} does for its
 * utility providers: a hinted (or {@code FI_PROVIDER}) name {@code tcp} selects the core and every
 * layer over it, {@code ofi_rxm} the layer over every core, {@code tcp;ofi_rxm} that pairing only.
 * It asks the layer once per admitted core, handing it that core, never another layered provider;
 * the layer asks the core for the infos it builds on ({@link FabricProvider#getInfo}) and opens the
 * core's fabrics ({@link FabricProvider#fabric}) under its own. When a core departs, the registry
 * tells every layer ({@link #coreDeparted}) before the core's own deactivation departs the core's
 * objects: what the layer opened over that core departs with it (R15, {@code ENODEV}).
 *
 * <p>The {@link FabricProvider} methods without a core are not called by the registry: a layered
 * provider alone has nothing to offer ({@code getInfo} answers {@code ENODATA}).
 */
@ConsumerType
public interface LayeredProvider extends FabricProvider {
    /**
     * This layer's part of {@code fi_getinfo} over one core: the infos that meet {@code hints},
     * best first, each with {@code fabricAttr().provName()} {@code <core>;<layer>}.
     *
     * @param core  the core provider to layer over; available and admitted by the provider filter
     * @param hints the application's hints, {@code null} for none; their {@code prov_name} may
     *              name the core, the layer or the pairing
     * @throws FabricException {@code ENODATA} naming the first hint that could not be met
     */
    List<Info> getInfo(FabricProvider core, String node, String service, long flags, Info hints)
            throws FabricException;

    /**
     * {@code fi_fabric} for one of this layer's infos over {@code core}: this layer's fabric,
     * over a fabric of the core it opens and closes with it.
     */
    Fabric fabric(FabricProvider core, FabricAttr attr, Object context) throws FabricException;

    /**
     * {@code core} departed from the registry: everything this layer opened over it departs
     * before this returns (R15: pending operations {@code ECANCELED}, further calls {@code ENODEV}).
     */
    void coreDeparted(FabricProvider core);
}
