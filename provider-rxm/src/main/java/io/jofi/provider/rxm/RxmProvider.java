package io.jofi.provider.rxm;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.LayeredProvider;
import io.jofi.spi.util.InfoMatcher;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The {@code ofi_rxm} provider: RDM endpoints over the MSG endpoints of every core provider in the
 * registry ({@code tcp;ofi_rxm}, {@code verbs;ofi_rxm}), in libfabric's {@code ofi_rxm} wire, so that
 * JOFI and C libfabric programs interoperate (docs/RXM.md).
 *
 * <p>The registry asks it over each core ({@link LayeredProvider}); it asks that core for MSG infos
 * and offers one RDM info over each (a core without MSG endpoints, as shm, gets none). Its fabrics
 * open the core's fabrics under them and are booked by core, so that a departing core takes the
 * rxm objects over it along ({@code ENODEV}), and the layer's own deactivation departs all of them
 * and leaves the cores' MSG endpoints alone (R15). Found as a DS component in OSGi and through
 * {@link java.util.ServiceLoader} in a plain JVM.
 */
@Component(service = FabricProvider.class, immediate = true)
@ServiceProvider(value = FabricProvider.class, resolution = Resolution.OPTIONAL)
public final class RxmProvider implements LayeredProvider {
    /** The provider version ({@code fi_info -l}). */
    public static final String VERSION = "0.1";
    private static final int PROVIDER_VERSION = Fi.version(0, 1);

    /** The fabrics open over each core, guarded by itself. */
    private final Map<FabricProvider, List<RxmFabric>> fabrics = new IdentityHashMap<>();
    /** Set by the deactivation: nothing opens any more. Guarded by {@link #fabrics}. */
    private boolean departed;

    /** For DS and {@link java.util.ServiceLoader}. */
    public RxmProvider() {
    }

    @Override
    public String name() {
        return RxmInfos.NAME;
    }

    @Override
    public String version() {
        return VERSION;
    }

    /** Alone, without a core, a layer offers nothing. */
    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
        throw new FabricException(Errno.ENODATA, RxmInfos.NAME + ": a layered provider, offered over the core"
                + " providers of the Fabrics registry");
    }

    /** Alone, without a core, a layer opens nothing. */
    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        throw new FabricException(Errno.ENODATA, RxmInfos.NAME + ": open it through the Fabrics registry, named"
                + " core;" + RxmInfos.NAME);
    }

    /**
     * One RDM info over each MSG info of {@code core} that meets {@code hints}, in the core's order.
     *
     * @throws FabricException {@code ENODATA} for hints that ask for MSG or DGRAM, for a core without
     *         MSG endpoints that have what rxm needs ({@code FI_MSG}, RMA reads), or naming the first
     *         hint not met; {@code ENODEV} after the deactivation
     */
    @Override
    public List<Info> getInfo(FabricProvider core, String node, String service, long flags, Info hints)
            throws FabricException {
        String pairing = RxmInfos.pairing(core.name());
        synchronized (fabrics) {
            if (departed) {
                throw new FabricException(Errno.ENODEV, pairing + ": provider has departed");
            }
        }
        if ((flags & Fi.FI_PROV_ATTR_ONLY) != 0) {
            Info stub = new Info();
            stub.fabricAttr(new FabricAttr().provName(pairing).provVersion(PROVIDER_VERSION));
            return List.of(stub);
        }
        List<Info> rdm = new ArrayList<>();
        for (Info msg : core.getInfo(node, service, flags, RxmInfos.coreHints(hints))) {
            if (RxmInfos.layerable(msg)) {
                rdm.add(RxmInfos.rdm(msg, core.name(), RxmInfos.settings(core.name(), msg)));
            }
        }
        if (rdm.isEmpty()) {
            throw new FabricException(Errno.ENODATA, pairing + ": " + core.name() + " offers no MSG endpoints"
                    + " with FI_MSG and the RMA reads of rxm's rendezvous");
        }
        Info named = hints;
        if (hints != null && hints.fabricAttr() != null && hints.fabricAttr().provName() != null) {
            named = hints.copy(); // the registry matched the name (core, layer or pairing) already
            named.fabricAttr().provName(null);
        }
        List<Info> matches = InfoMatcher.filter(rdm, named, pairing);
        for (Info info : matches) {
            info.fabricAttr().provName(pairing).provVersion(PROVIDER_VERSION);
        }
        return matches;
    }

    /**
     * {@code fi_fabric} over {@code core}: the core's fabric of the same name, under an rxm fabric.
     *
     * @throws FabricException {@code ENODEV} after the deactivation; whatever the core's
     *         {@code fi_fabric} throws
     */
    @Override
    public Fabric fabric(FabricProvider core, FabricAttr attr, Object context) throws FabricException {
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "fabric attributes are required (take them from an Info of getInfo)");
        }
        Fabric coreFabric = core.fabric(attr.copy().provName(core.name()), null);
        RxmFabric fabric;
        synchronized (fabrics) {
            if (departed) {
                RxmFabric.closeQuietly(coreFabric, null);
                throw new FabricException(Errno.ENODEV, RxmInfos.pairing(core.name()) + ": provider has departed");
            }
            fabric = new RxmFabric(attr.copy().provName(RxmInfos.pairing(core.name())), context, core, coreFabric);
            fabrics.computeIfAbsent(core, c -> new ArrayList<>()).add(fabric);
        }
        fabric.whenClosed(() -> forget(fabric));
        return fabric;
    }

    private void forget(RxmFabric fabric) {
        synchronized (fabrics) {
            List<RxmFabric> over = fabrics.get(fabric.core());
            if (over != null) {
                over.remove(fabric);
                if (over.isEmpty()) {
                    fabrics.remove(fabric.core());
                }
            }
        }
    }

    /** Departs every rxm object over {@code core} (R15: pending operations ECANCELED, then ENODEV). */
    @Override
    public void coreDeparted(FabricProvider core) {
        List<RxmFabric> over;
        synchronized (fabrics) {
            over = fabrics.remove(core);
        }
        departAll(over);
    }

    /**
     * The component deactivates (the layer's bundle stops, or its service is unregistered): every rxm
     * object departs, the cores' fabrics under them are closed, and nothing opens any more. The
     * cores' own MSG endpoints are not touched.
     */
    @Deactivate
    public void deactivate() {
        List<RxmFabric> all = new ArrayList<>();
        synchronized (fabrics) {
            departed = true;
            for (List<RxmFabric> over : fabrics.values()) {
                all.addAll(over);
            }
            fabrics.clear();
        }
        departAll(all);
    }

    /**
     * Departs the fabrics: first every endpoint's progress stops, then everything departs, so that
     * an endpoint whose peer over the same core departed first ends its operations with
     * {@code ECANCELED}, not with the peer's reset (as a core stops its engines before it departs).
     */
    private static void departAll(List<RxmFabric> over) {
        if (over != null) {
            List<RxmFabric> all = List.copyOf(over);
            for (RxmFabric f : all) {
                f.stopProgress();
            }
            for (RxmFabric f : all) {
                f.resources().departAll();
            }
        }
    }
}
