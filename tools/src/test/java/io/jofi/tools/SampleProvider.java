package io.jofi.tools;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.spi.util.AbstractFabricProvider;
import io.jofi.spi.util.ProviderSetting;
import io.jofi.spi.util.ProviderSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The available provider of the tools tests, {@value #NAME}: a real {@code FabricProvider}
 * (the util layer's {@link AbstractFabricProvider}, so {@code InfoMatcher} applies the hints)
 * that {@code Fabrics.standalone()} finds through {@code META-INF/services}. It offers one
 * {@link EpType#MSG} and one {@link EpType#RDM} info with {@code FI_MSG|FI_TAGGED}; a node or
 * service becomes the info's address ({@code fi_sample://NODE:SERVICE}, the source one with
 * {@code FI_SOURCE}, else the destination), as a real provider resolves them.
 *
 * <p>It remembers the last request the registry passed on ({@link #lastRequest()}), so a test
 * can check what the command asked for where the output cannot show it (no hints at all).
 */
public final class SampleProvider extends AbstractFabricProvider {
    /** The provider name. */
    static final String NAME = "sample";
    /** The provider version. */
    static final String VERSION = "1.0";
    /** The caps of every info. */
    static final long CAPS = Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_SEND | Fi.FI_RECV;

    /** What {@code getInfo} was called with. */
    record Request(String node, String service, long flags, Info hints) {
    }

    private static final AtomicReference<Request> LAST = new AtomicReference<>();

    /** For {@link java.util.ServiceLoader}. */
    public SampleProvider() {
    }

    /** The last request any instance was asked; {@code null} after {@link #forgetRequests()}. */
    static Request lastRequest() {
        return LAST.get();
    }

    static void forgetRequests() {
        LAST.set(null);
    }

    /** Its settings, {@code jofi.sample.depth} and {@code jofi.sample.label} ({@link SampleSettings}). */
    @Override
    public List<ProviderSetting> settings() {
        ProviderSettings<SampleSettings> reader = new ProviderSettings<>(SampleSettings.class, "jofi.sample.");
        return reader.describe(reader.fromSystemProperties());
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
    public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
        LAST.set(new Request(node, service, flags, hints));
        return super.getInfo(node, service, flags, hints);
    }

    @Override
    protected List<Info> offeredInfos(String node, String service, long flags) {
        List<Info> offered = new ArrayList<>(2);
        for (EpType type : List.of(EpType.MSG, EpType.RDM)) {
            Info info = new Info().caps(CAPS).addrFormat(AddrFormat.ADDR_STR);
            info.epAttr().type(type);
            info.domainAttr().name("sample-domain");
            info.fabricAttr().name("sample-fabric");
            if (node != null || service != null) {
                byte[] addr = Addresses.parse(address(node, service), AddrFormat.ADDR_STR);
                if ((flags & Fi.FI_SOURCE) != 0) {
                    info.srcAddr(addr);
                } else {
                    info.destAddr(addr);
                }
            }
            offered.add(info);
        }
        return offered;
    }

    /** {@code fi_sample://NODE:SERVICE}, an empty part for a missing one. */
    static String address(String node, String service) {
        return "fi_sample://" + (node == null ? "" : node) + ":" + (service == null ? "" : service);
    }

    /** The tools only discover; opening a fabric is not what they test. */
    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        throw new FabricException(Errno.ENOSYS, NAME + ": opens no fabric (a test provider for discovery only)");
    }
}
