package io.jofi.internal;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.LayeredProvider;
import java.util.ArrayList;
import java.util.List;

/**
 * A real (if tiny) layered provider for the registry tests: offers one RDM info over each MSG info
 * of its core (as rxm does), opens the core's fabric for its own, and records the cores that
 * departed.
 */
final class TestLayer implements LayeredProvider {
    static final String NAME = "ofi_layer";
    final List<String> departed = new ArrayList<>();
    final List<String> asked = new ArrayList<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String version() {
        return "0.9";
    }

    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
        throw new FabricException(Errno.ENODATA, NAME + ": a layer offers nothing without a core");
    }

    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        throw new FabricException(Errno.ENODATA, NAME + ": a layer opens nothing without a core");
    }

    @Override
    public List<Info> getInfo(FabricProvider core, String node, String service, long flags, Info hints)
            throws FabricException {
        asked.add(core.name());
        if (hints != null && hints.epAttr().type() != EpType.UNSPEC && hints.epAttr().type() != EpType.RDM) {
            throw new FabricException(Errno.ENODATA, "ep_type " + hints.epAttr().type() + ": RDM only");
        }
        Info coreHints = new Info();
        coreHints.epAttr().type(EpType.MSG);
        List<Info> out = new ArrayList<>();
        for (Info msg : core.getInfo(node, service, flags, coreHints)) {
            Info rdm = msg.copy();
            rdm.epAttr().type(EpType.RDM);
            rdm.fabricAttr().provName(core.name() + ";" + NAME);
            out.add(rdm);
        }
        return out;
    }

    @Override
    public Fabric fabric(FabricProvider core, FabricAttr attr, Object context) throws FabricException {
        FabricAttr coreAttr = attr.copy().provName(core.name());
        return core.fabric(coreAttr, context);
    }

    @Override
    public void coreDeparted(FabricProvider core) {
        departed.add(core.name());
    }
}
