package io.jofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Info;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registry's layering, as libfabric's {@code fi_getinfo} layers utility providers: a core name
 * selects the core and every layer over it, the layer's name the layer over every core, the
 * pairing {@code core;layer} that pairing only; the layer is asked over cores only, its infos
 * follow its core's, and a departing core is reported to the layer.
 */
class LayeredProviderRegistryTest {
    private static final Map<String, Object> NO_PROPS = Map.of();

    private final FabricsRegistry registry = new FabricsRegistry();
    private final TestLayer layer = new TestLayer();
    private final TestProvider tcp = new TestProvider("tcp", EpType.MSG);
    private final TestProvider verbs = new TestProvider("verbs", EpType.MSG);
    private final TestProvider shm = new TestProvider("shm", EpType.RDM);
    private String savedFilter;

    @BeforeEach
    void bind() {
        savedFilter = System.getProperty(ProviderFilter.PROPERTY);
        System.setProperty(ProviderFilter.PROPERTY, "");
        registry.bindProvider(layer, NO_PROPS);
        registry.bindProvider(tcp, NO_PROPS);
        registry.bindProvider(verbs, NO_PROPS);
        registry.bindProvider(shm, NO_PROPS);
    }

    @AfterEach
    void restoreFilter() {
        if (savedFilter == null) {
            System.clearProperty(ProviderFilter.PROPERTY);
        } else {
            System.setProperty(ProviderFilter.PROPERTY, savedFilter);
        }
    }

    private static List<String> order(List<Info> infos) {
        List<String> out = new ArrayList<>();
        for (Info i : infos) {
            out.add(i.fabricAttr().provName() + "/" + i.epAttr().type());
        }
        return out;
    }

    private List<String> ask(String provName, EpType type) throws FabricException {
        Info hints = new Info();
        hints.epAttr().type(type);
        hints.fabricAttr().provName(provName);
        return order(registry.getInfo(null, null, 0, hints));
    }

    @Test
    void eachLayeredPairingFollowsItsCoreAndTheLayerIsNeverAskedOverItself() throws FabricException {
        assertEquals(List.of("verbs/MSG", "verbs;ofi_layer/RDM", "shm/RDM", "tcp/MSG", "tcp;ofi_layer/RDM"),
                order(registry.getInfo(null, null, 0, null)));
        assertEquals(List.of("verbs", "shm", "tcp"), layer.asked);
    }

    @Test
    void theCoresNameSelectsTheCoreAndItsLayers() throws FabricException {
        assertEquals(List.of("tcp/MSG", "tcp;ofi_layer/RDM"), ask("tcp", EpType.UNSPEC));
        assertEquals(List.of("tcp;ofi_layer/RDM"), ask("tcp", EpType.RDM));
        assertEquals(List.of("tcp/MSG"), ask("tcp", EpType.MSG));
    }

    @Test
    void thePairingSelectsThePairingOnly() throws FabricException {
        assertEquals(List.of("tcp;ofi_layer/RDM"), ask("tcp;ofi_layer", EpType.UNSPEC));
        assertEquals(List.of("tcp;ofi_layer/RDM"), ask("TCP;OFI_LAYER", EpType.RDM));
        FabricException e = assertThrows(FabricException.class, () -> ask("tcp;ofi_layer", EpType.MSG));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("tcp;ofi_layer: ep_type MSG"), e.getMessage());
    }

    @Test
    void theLayersNameSelectsItOverEveryCore() throws FabricException {
        assertEquals(List.of("verbs;ofi_layer/RDM", "tcp;ofi_layer/RDM"), ask("ofi_layer", EpType.UNSPEC));
    }

    @Test
    void theProviderFilterSelectsPairingsAsTheHintsDo() throws FabricException {
        System.setProperty(ProviderFilter.PROPERTY, "tcp");
        assertEquals(List.of("tcp/MSG", "tcp;ofi_layer/RDM"), order(registry.getInfo(null, null, 0, null)));
        System.setProperty(ProviderFilter.PROPERTY, "tcp;ofi_layer");
        assertEquals(List.of("tcp;ofi_layer/RDM"), order(registry.getInfo(null, null, 0, null)));
        System.setProperty(ProviderFilter.PROPERTY, "^ofi_layer");
        assertEquals(List.of("verbs/MSG", "shm/RDM", "tcp/MSG"), order(registry.getInfo(null, null, 0, null)));
        System.setProperty(ProviderFilter.PROPERTY, "^tcp");
        assertEquals(List.of("verbs/MSG", "verbs;ofi_layer/RDM", "shm/RDM"),
                order(registry.getInfo(null, null, 0, null)));
    }

    @Test
    void aPairingOpensThroughTheLayerHandedItsCore() throws FabricException {
        Info rdm = registry.getInfo(null, null, 0, hints("tcp;ofi_layer")).get(0);
        assertInstanceOf(TestProvider.TestFabric.class, registry.fabric(rdm.fabricAttr(), null));
        FabricException alone = assertThrows(FabricException.class,
                () -> registry.fabric(rdm.fabricAttr().copy().provName("ofi_layer"), null));
        assertEquals(Errno.EINVAL, alone.errno());
        FabricException noCore = assertThrows(FabricException.class,
                () -> registry.fabric(rdm.fabricAttr().copy().provName("psm3;ofi_layer"), null));
        assertEquals(Errno.ENODATA, noCore.errno());
    }

    @Test
    void aDepartingCoreIsReportedToTheLayerAndItsPairingsGo() throws FabricException {
        registry.unbindProvider(tcp, NO_PROPS);
        assertEquals(List.of("tcp"), layer.departed);
        assertEquals(List.of("verbs/MSG", "verbs;ofi_layer/RDM", "shm/RDM"), order(registry.getInfo(null, null, 0, null)));
        FabricException e = assertThrows(FabricException.class, () -> ask("tcp", EpType.RDM));
        assertEquals(Errno.ENODATA, e.errno());
        registry.unbindProvider(layer, NO_PROPS);
        assertEquals(List.of("verbs/MSG", "shm/RDM"), order(registry.getInfo(null, null, 0, null)));
        assertEquals(List.of("tcp"), layer.departed, "a layer's own departure is no core's");
    }

    private static Info hints(String provName) {
        Info hints = new Info();
        hints.fabricAttr().provName(provName);
        return hints;
    }
}
