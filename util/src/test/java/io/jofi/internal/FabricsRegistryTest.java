package io.jofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderListener;
import io.jofi.ProviderState;
import io.jofi.spi.FabricProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The registry through the methods DS calls, with real test providers. */
class FabricsRegistryTest {
    private static final Map<String, Object> NO_PROPS = Map.of();

    private final FabricsRegistry registry = new FabricsRegistry();
    private String savedFilter;

    @BeforeEach
    void noFilter() {
        savedFilter = System.getProperty(ProviderFilter.PROPERTY);
        // An empty property filters nothing and shadows any FI_PROVIDER of the environment.
        System.setProperty(ProviderFilter.PROPERTY, "");
    }

    @AfterEach
    void restoreFilter() {
        if (savedFilter == null) {
            System.clearProperty(ProviderFilter.PROPERTY);
        } else {
            System.setProperty(ProviderFilter.PROPERTY, savedFilter);
        }
    }

    private static Map<String, Object> ranking(int r) {
        return Map.of(FabricsRegistry.SERVICE_RANKING, r);
    }

    private static List<String> order(List<Info> infos) {
        List<String> out = new ArrayList<>();
        for (Info i : infos) {
            out.add(i.fabricAttr().provName() + "/" + i.epAttr().type());
        }
        return out;
    }

    private static List<String> names(List<ProviderInfo> providers) {
        List<String> out = new ArrayList<>();
        for (ProviderInfo p : providers) {
            out.add(p.name());
        }
        return out;
    }

    private void bindFive() {
        registry.bindProvider(new TestProvider("zeta", EpType.RDM), NO_PROPS);
        registry.bindProvider(new TestProvider("tcp", EpType.MSG, EpType.RDM), NO_PROPS);
        registry.bindProvider(new TestProvider("alpha", EpType.RDM), NO_PROPS);
        registry.bindProvider(new TestProvider("shm", EpType.RDM), NO_PROPS);
        registry.bindProvider(new TestProvider("verbs", EpType.MSG), NO_PROPS);
    }

    @Test
    void defaultOrderIsVerbsShmTcpThenOthersByNameThenEachProvidersOwn() throws FabricException {
        bindFive();
        assertEquals(List.of("verbs/MSG", "shm/RDM", "tcp/MSG", "tcp/RDM", "alpha/RDM", "zeta/RDM"),
                order(registry.getInfo(null, null, 0, null)));
        assertEquals(List.of("verbs", "shm", "tcp", "alpha", "zeta"), names(registry.providers()));
    }

    @Test
    void eachAnswerCarriesTheApiVersionAskedFor() throws FabricException {
        bindFive();
        for (Info info : registry.getInfo(null, null, 0, null)) {
            assertEquals(Fi.FI_API_VERSION, info.fabricAttr().apiVersion(), info.toString());
        }
        Info hints = new Info();
        hints.fabricAttr().apiVersion(Fi.version(1, 5));
        for (Info info : registry.getInfo(null, null, 0, hints)) {
            assertEquals(Fi.version(1, 5), info.fabricAttr().apiVersion(), info.toString());
        }
    }

    @Test
    void serviceRankingComesFirst() throws FabricException {
        registry.bindProvider(new TestProvider("verbs", EpType.MSG), NO_PROPS);
        TestProvider zeta = new TestProvider("zeta", EpType.RDM);
        registry.bindProvider(zeta, ranking(5));
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), ranking(10));
        assertEquals(List.of("tcp/MSG", "zeta/RDM", "verbs/MSG"),
                order(registry.getInfo(null, null, 0, null)));
        registry.updatedProvider(zeta, ranking(20));
        assertEquals(List.of("zeta/RDM", "tcp/MSG", "verbs/MSG"),
                order(registry.getInfo(null, null, 0, null)));
        assertEquals(List.of("zeta", "tcp", "verbs"), names(registry.providers()));
    }

    @Test
    void providerFilterFromTheSystemProperty() throws FabricException {
        bindFive();
        System.setProperty(ProviderFilter.PROPERTY, "tcp");
        assertEquals(List.of("tcp/MSG", "tcp/RDM"), order(registry.getInfo(null, null, 0, null)));
        System.setProperty(ProviderFilter.PROPERTY, "tcp,shm");
        assertEquals(List.of("shm/RDM", "tcp/MSG", "tcp/RDM"),
                order(registry.getInfo(null, null, 0, null)));
        System.setProperty(ProviderFilter.PROPERTY, "^tcp");
        assertEquals(List.of("verbs/MSG", "shm/RDM", "alpha/RDM", "zeta/RDM"),
                order(registry.getInfo(null, null, 0, null)));
        System.setProperty(ProviderFilter.PROPERTY, "^tcp,shm");
        assertEquals(List.of("verbs/MSG", "alpha/RDM", "zeta/RDM"),
                order(registry.getInfo(null, null, 0, null)));
        System.setProperty(ProviderFilter.PROPERTY, " TCP , Shm ");
        assertEquals(List.of("shm/RDM", "tcp/MSG", "tcp/RDM"),
                order(registry.getInfo(null, null, 0, null)));
    }

    @Test
    void excludedProvidersAreNamedInTheMessage() {
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        System.setProperty(ProviderFilter.PROPERTY, "^tcp");
        FabricException e = assertThrows(FabricException.class,
                () -> registry.getInfo(null, null, 0, null));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("tcp: excluded by jofi.provider=^tcp"), e.getMessage());
        FabricException f = assertThrows(FabricException.class,
                () -> registry.fabric(new FabricAttr().provName("tcp").name("tcp-fabric"), null));
        assertEquals(Errno.ENODATA, f.errno());
        assertTrue(f.getMessage().contains("excluded by jofi.provider=^tcp"), f.getMessage());
    }

    @Test
    void hintedProviderNameRestricts() throws FabricException {
        bindFive();
        Info hints = new Info();
        hints.fabricAttr().provName("tcp");
        assertEquals(List.of("tcp/MSG", "tcp/RDM"), order(registry.getInfo(null, null, 0, hints)));
        hints.fabricAttr().provName("nosuch");
        FabricException e = assertThrows(FabricException.class,
                () -> registry.getInfo(null, null, 0, hints));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("tcp: not the hinted provider (prov_name nosuch)"),
                e.getMessage());
    }

    @Test
    void noMatchNamesEachProvidersFirstUnmetHint() {
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        registry.bindProvider(new TestProvider("shm", EpType.RDM), NO_PROPS);
        registry.bindProvider(new TestProvider("verbs", EpType.MSG).unavailable("no RDMA device"),
                NO_PROPS);
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA);
        hints.epAttr().type(EpType.RDM);
        FabricException e = assertThrows(FabricException.class,
                () -> registry.getInfo(null, null, 0, hints));
        assertEquals(Errno.ENODATA, e.errno());
        assertEquals("no fabric provider matches: verbs: unavailable: no RDMA device; "
                + "shm: caps FI_RMA not supported; tcp: ep_type FI_EP_RDM not offered (FI_EP_MSG); "
                + "no layered provider is installed to offer FI_EP_RDM over a MSG provider "
                + "(ofi_rxm: add the bundle or jar io.jofi.provider.rxm)",
                e.getMessage());
    }

    /** A plain JVM with tcp's jar but not rxm's: the RDM miss says which jar is missing, once. */
    @Test
    void anRdmMissWithoutALayeredProviderNamesTheMissingLayer() {
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        Info rdm = new Info().caps(Fi.FI_MSG);
        rdm.epAttr().type(EpType.RDM);
        FabricException e = assertThrows(FabricException.class, () -> registry.getInfo(null, null, 0, rdm));
        assertEquals("no fabric provider matches: tcp: ep_type FI_EP_RDM not offered (FI_EP_MSG); "
                + "no layered provider is installed to offer FI_EP_RDM over a MSG provider "
                + "(ofi_rxm: add the bundle or jar io.jofi.provider.rxm)", e.getMessage());
        Info msg = new Info().caps(Fi.FI_RMA);
        msg.epAttr().type(EpType.MSG);
        FabricException m = assertThrows(FabricException.class, () -> registry.getInfo(null, null, 0, msg));
        assertFalse(m.getMessage().contains("layered"), m.getMessage()); // only an RDM hint gets the note
    }

    @Test
    void noProvidersAtAll() {
        FabricException e = assertThrows(FabricException.class,
                () -> registry.getInfo(null, null, 0, null));
        assertEquals(Errno.ENODATA, e.errno());
        assertEquals("no fabric providers are installed", e.getMessage());
    }

    @Test
    void returnedCapsAreHintedPrimaryPlusSecondary() throws FabricException {
        registry.bindProvider(new TestProvider("tcp", EpType.RDM), NO_PROPS);
        List<Info> r = registry.getInfo(null, null, 0, new Info().caps(Fi.FI_MSG | Fi.FI_RECV));
        assertEquals(Fi.FI_MSG | Fi.FI_RECV | Fi.FI_MULTI_RECV, r.get(0).caps());
        r = registry.getInfo(null, null, 0, null);
        assertEquals(Fi.FI_MSG | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_MULTI_RECV, r.get(0).caps());
    }

    @Test
    void unavailableProvidersAreListedButNeverReturned() throws FabricException {
        registry.bindProvider(new TestProvider("verbs", EpType.MSG).unavailable("no RDMA device"),
                NO_PROPS);
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        assertEquals(List.of("tcp/MSG"), order(registry.getInfo(null, null, 0, null)));
        List<Info> stubs = registry.getInfo(null, null, Fi.FI_PROV_ATTR_ONLY, null);
        assertEquals(1, stubs.size(), "no stub for an unavailable provider either");
        assertEquals("tcp", stubs.get(0).fabricAttr().provName());
        List<ProviderInfo> providers = registry.providers();
        assertEquals(new ProviderInfo("verbs", "1.4.2", ProviderState.UNAVAILABLE, "no RDMA device"),
                providers.get(0));
        assertEquals(new ProviderInfo("tcp", "1.4.2", ProviderState.AVAILABLE, null), providers.get(1));
        FabricException e = assertThrows(FabricException.class,
                () -> registry.fabric(new FabricAttr().provName("verbs"), null));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("unavailable: no RDMA device"), e.getMessage());
    }

    @Test
    void listenersHearBindAndUnbindUntilRemoved() {
        List<String> heard = new ArrayList<>();
        ProviderListener l = new ProviderListener() {
            @Override
            public void providerAdded(ProviderInfo p) {
                heard.add("+" + p.name());
            }

            @Override
            public void providerRemoved(ProviderInfo p) {
                heard.add("-" + p.name());
            }
        };
        registry.addListener(l);
        registry.addListener(l); // once, however often added
        TestProvider tcp = new TestProvider("tcp", EpType.MSG);
        TestProvider shm = new TestProvider("shm", EpType.RDM);
        registry.bindProvider(tcp, NO_PROPS);
        registry.bindProvider(shm, NO_PROPS);
        registry.unbindProvider(tcp, NO_PROPS);
        assertEquals(List.of("+tcp", "+shm", "-tcp"), heard);
        registry.removeListener(l);
        registry.unbindProvider(shm, NO_PROPS);
        registry.bindProvider(tcp, NO_PROPS);
        assertEquals(List.of("+tcp", "+shm", "-tcp"), heard);
    }

    @Test
    void aFailingListenerDoesNotStopTheOthersNorTheBinding() throws FabricException {
        List<String> heard = new ArrayList<>();
        registry.addListener(new ProviderListener() {
            @Override
            public void providerAdded(ProviderInfo p) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void providerRemoved(ProviderInfo p) {
                throw new IllegalStateException("listener bug");
            }
        });
        registry.addListener(new ProviderListener() {
            @Override
            public void providerAdded(ProviderInfo p) {
                heard.add("+" + p.name());
            }

            @Override
            public void providerRemoved(ProviderInfo p) {
                heard.add("-" + p.name());
            }
        });
        TestProvider tcp = new TestProvider("tcp", EpType.MSG);
        registry.bindProvider(tcp, NO_PROPS);
        assertEquals(1, registry.getInfo(null, null, 0, null).size());
        registry.unbindProvider(tcp, NO_PROPS);
        assertEquals(List.of("+tcp", "-tcp"), heard);
    }

    @Test
    void unboundProvidersAreNoLongerAskedAndReboundOnesAre() throws FabricException {
        TestProvider tcp = new TestProvider("tcp", EpType.MSG);
        TestProvider shm = new TestProvider("shm", EpType.RDM);
        registry.bindProvider(tcp, NO_PROPS);
        registry.bindProvider(shm, NO_PROPS);
        registry.bindProvider(shm, NO_PROPS); // a second bind of the same service changes nothing
        assertEquals(List.of("shm/RDM", "tcp/MSG"), order(registry.getInfo(null, null, 0, null)));
        registry.unbindProvider(shm, NO_PROPS);
        registry.unbindProvider(shm, NO_PROPS); // unknown: ignored
        assertEquals(List.of("tcp/MSG"), order(registry.getInfo(null, null, 0, null)));
        assertEquals(List.of("tcp"), names(registry.providers()));
        registry.bindProvider(shm, NO_PROPS);
        assertEquals(List.of("shm/RDM", "tcp/MSG"), order(registry.getInfo(null, null, 0, null)));
    }

    @Test
    void aProviderThrowingRuntimeExceptionDoesNotBreakGetInfo() throws FabricException {
        TestProvider broken = new TestProvider("shm", EpType.RDM);
        broken.failure = new IllegalStateException("boom");
        registry.bindProvider(broken, NO_PROPS);
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        assertEquals(List.of("tcp/MSG"), order(registry.getInfo(null, null, 0, null)));
        Info hints = new Info();
        hints.epAttr().type(EpType.DGRAM);
        FabricException e = assertThrows(FabricException.class,
                () -> registry.getInfo(null, null, 0, hints));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("shm: failed: java.lang.IllegalStateException: boom"),
                e.getMessage());
        assertTrue(e.getMessage().contains("tcp: ep_type FI_EP_DGRAM not offered (FI_EP_MSG)"),
                e.getMessage());
    }

    @Test
    void aProviderWithBrokenMetadataIsStillListed() throws FabricException {
        FabricProvider odd = new FabricProvider() {
            @Override
            public String name() {
                throw new IllegalStateException("no name");
            }

            @Override
            public String version() {
                throw new IllegalStateException("no version");
            }

            @Override
            public ProviderState state() {
                throw new IllegalStateException("no state");
            }

            @Override
            public List<Info> getInfo(String node, String service, long flags, Info hints) {
                throw new AssertionError("never asked: its state is unknown");
            }

            @Override
            public Fabric fabric(FabricAttr attr, Object context) {
                throw new AssertionError("never opened");
            }
        };
        registry.bindProvider(odd, NO_PROPS);
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        assertEquals(List.of("tcp/MSG"), order(registry.getInfo(null, null, 0, null)));
        ProviderInfo p = registry.providers().get(1);
        assertEquals(odd.getClass().getName(), p.name());
        assertEquals(ProviderState.UNAVAILABLE, p.state());
        assertTrue(p.reason().contains("no state"), p.reason());
    }

    @Test
    void aCommonErrorOtherThanEnodataIsKept() {
        TestProvider tcp = new TestProvider("tcp", EpType.MSG);
        tcp.refusal = new FabricException(Errno.EINVAL, "tcp: node 'bad host' is no address");
        registry.bindProvider(tcp, NO_PROPS);
        FabricException e = assertThrows(FabricException.class,
                () -> registry.getInfo("bad host", "1", 0, null));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("tcp: node 'bad host' is no address"), e.getMessage());
        registry.bindProvider(new TestProvider("shm", EpType.RDM).unavailable("off"), NO_PROPS);
        TestProvider verbs = new TestProvider("verbs", EpType.MSG);
        verbs.refusal = new FabricException(Errno.ENODATA, "verbs: no such host");
        registry.bindProvider(verbs, NO_PROPS);
        e = assertThrows(FabricException.class, () -> registry.getInfo("bad host", "1", 0, null));
        assertEquals(Errno.ENODATA, e.errno(), "providers disagree: ENODATA");
    }

    @Test
    void provAttrOnlyGivesOneStubPerProviderWhateverTheHints() throws FabricException {
        registry.bindProvider(new TestProvider("tcp", EpType.MSG, EpType.RDM), NO_PROPS);
        registry.bindProvider(new TestProvider("shm", EpType.RDM), NO_PROPS);
        Info impossible = new Info().caps(Fi.FI_ATOMIC);
        impossible.epAttr().type(EpType.DGRAM);
        List<Info> r = registry.getInfo(null, null, Fi.FI_PROV_ATTR_ONLY, impossible);
        assertEquals(2, r.size());
        assertEquals("shm", r.get(0).fabricAttr().provName());
        assertEquals("tcp", r.get(1).fabricAttr().provName());
        assertEquals(Fi.version(1, 4), r.get(1).fabricAttr().provVersion());
        Info expected = new Info();
        expected.fabricAttr().provName("tcp").provVersion(Fi.version(1, 4));
        assertEquals(expected, r.get(1), "nothing but prov_name and prov_version is set");
    }

    @Test
    void fabricOpensThroughTheNamedProvider() throws FabricException {
        TestProvider tcp = new TestProvider("tcp", EpType.MSG);
        registry.bindProvider(tcp, NO_PROPS);
        registry.bindProvider(new TestProvider("shm", EpType.RDM), NO_PROPS);
        Info info = registry.getInfo(null, null, 0, null).get(1);
        Object ctx = new Object();
        Fabric f = registry.fabric(info.fabricAttr(), ctx);
        assertSame(tcp, assertInstanceOf(TestProvider.TestFabric.class, f).provider);
        assertSame(ctx, f.context());
    }

    @Test
    void fabricRefusesWhatItCannotOpen() {
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        FabricException e = assertThrows(FabricException.class, () -> registry.fabric(null, null));
        assertEquals(Errno.EINVAL, e.errno());
        e = assertThrows(FabricException.class, () -> registry.fabric(new FabricAttr(), null));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("provName() is not set"), e.getMessage());
        e = assertThrows(FabricException.class,
                () -> registry.fabric(new FabricAttr().provName("psm3"), null));
        assertEquals(Errno.ENODATA, e.errno());
        assertEquals("fabric: no provider named psm3 is installed (installed: tcp)", e.getMessage());
        e = assertThrows(FabricException.class,
                () -> registry.fabric(new FabricAttr().provName("tcp").name("other"), null));
        assertEquals(Errno.EINVAL, e.errno(), "the provider's own refusal comes through");
    }

    @Test
    void aProviderThrowingInFabricIsReportedNotPropagated() {
        TestProvider tcp = new TestProvider("tcp", EpType.MSG) {
            @Override
            public Fabric fabric(FabricAttr attr, Object context) {
                throw new IllegalStateException("boom");
            }
        };
        registry.bindProvider(tcp, NO_PROPS);
        FabricException e = assertThrows(FabricException.class,
                () -> registry.fabric(new FabricAttr().provName("tcp"), null));
        assertEquals(Errno.FI_EOTHER, e.errno());
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
    }

    @Test
    void departedAbstractProviderAnswersEnodev() throws FabricException {
        TestProvider tcp = new TestProvider("tcp", EpType.MSG);
        assertEquals(1, tcp.getInfo(null, null, 0, null).size());
        tcp.departAll();
        FabricException e = assertThrows(FabricException.class, () -> tcp.getInfo(null, null, 0, null));
        assertEquals(Errno.ENODEV, e.errno());
        assertTrue(tcp.resources().isDeparted());
    }

    @Test
    void providerInfoReasonIsNullWhenAvailable() {
        registry.bindProvider(new TestProvider("tcp", EpType.MSG), NO_PROPS);
        assertNull(registry.providers().get(0).reason());
    }
}
