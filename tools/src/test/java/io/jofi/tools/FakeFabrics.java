package io.jofi.tools;

import io.jofi.Errno;
import io.jofi.EpType;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderListener;
import io.jofi.ProviderState;
import java.util.ArrayList;
import java.util.List;

/** A registry with a fixed list of providers, each offering one MSG and one RDM info. */
final class FakeFabrics implements Fabrics {
    private final List<ProviderInfo> providers;
    Info lastHints;
    String lastNode;
    String lastService;
    long lastFlags;

    FakeFabrics(ProviderInfo... providers) {
        this.providers = List.of(providers);
    }

    static ProviderInfo available(String name) {
        return new ProviderInfo(name, "1.0", ProviderState.AVAILABLE, null);
    }

    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
        lastNode = node;
        lastService = service;
        lastFlags = flags;
        lastHints = hints;
        List<Info> infos = new ArrayList<>();
        for (ProviderInfo p : providers) {
            if (p.state() != ProviderState.AVAILABLE) {
                continue;
            }
            for (EpType type : List.of(EpType.MSG, EpType.RDM)) {
                if (hints != null && hints.epAttr().type() != EpType.UNSPEC && hints.epAttr().type() != type) {
                    continue;
                }
                Info info = new Info();
                info.fabricAttr().provName(p.name());
                info.epAttr().type(type);
                infos.add(info);
            }
        }
        if (infos.isEmpty()) {
            throw new FabricException(Errno.ENODATA, "no provider matched: fake: ep_type");
        }
        return infos;
    }

    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "fake");
    }

    @Override
    public List<ProviderInfo> providers() {
        return providers;
    }

    @Override
    public void addListener(ProviderListener listener) {
    }

    @Override
    public void removeListener(ProviderListener listener) {
    }
}
