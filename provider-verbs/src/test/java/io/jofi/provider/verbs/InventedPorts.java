package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.rxm.RxmProvider;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.InfoMatcher;
import java.util.List;
import java.util.Map;

/**
 * A verbs core that answers {@code getInfo} for invented ports, as the verbs provider answers for
 * real ones ({@link VerbsInfos#offer}, {@link VerbsProvider#waiveRxCqData}), in a registry with the
 * {@code ofi_rxm} layer over it: the infos of {@code verbs} and {@code verbs;ofi_rxm} without a device.
 * It opens nothing.
 */
final class InventedPorts implements FabricProvider {
    private final List<ActivePort> ports;

    private InventedPorts(List<ActivePort> ports) {
        this.ports = ports;
    }

    /** A registry with these ports as the verbs core and ofi_rxm layered over it. */
    static FabricsRegistry registry(ActivePort... ports) {
        FabricsRegistry registry = new FabricsRegistry();
        registry.bindProvider(new RxmProvider(), Map.of());
        registry.bindProvider(new InventedPorts(List.of(ports)), Map.of());
        return registry;
    }

    @Override
    public String name() {
        return VerbsProvider.NAME;
    }

    @Override
    public String version() {
        return "invented";
    }

    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
        return InfoMatcher.filter(VerbsInfos.offer(ports, node, service, flags, 256, 64),
                VerbsProvider.waiveRxCqData(hints), VerbsProvider.NAME);
    }

    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "invented ports open nothing");
    }
}
