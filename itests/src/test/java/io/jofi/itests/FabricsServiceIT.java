package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * The {@code Fabrics} registry in a real framework: a service of the api bundle that sees
 * the fixture provider's service (docs/API.md "Discovery", R15). Read-only tests: one framework for all.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class FabricsServiceIT {

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.all()};
    }

    @Test
    public void fabricsIsAServiceOfTheApiBundle() {
        ServiceReference<Fabrics> ref = context.getServiceReference(Fabrics.class);
        assertNotNull("no Fabrics service", ref);
        assertEquals(JofiContainer.API_BSN, ref.getBundle().getSymbolicName());
    }

    @Test
    public void getInfoReturnsTheFixtureInfos() throws FabricException {
        List<Info> infos = fabrics.getInfo(null, null, 0, fixtureHints());
        Set<EpType> types = EnumSet.noneOf(EpType.class);
        for (Info info : infos) {
            assertEquals(JofiContainer.FIXTURE_NAME, info.fabricAttr().provName());
            assertEquals("fixture-fabric", info.fabricAttr().name());
            assertEquals("fixture-domain", info.domainAttr().name());
            assertEquals(Fi.FI_MSG, info.caps() & Fi.FI_MSG);
            types.add(info.epAttr().type());
        }
        assertEquals(EnumSet.of(EpType.MSG, EpType.RDM), types);
        assertEquals(2, infos.size());
    }

    @Test
    public void getInfoWithoutHintsIncludesTheFixture() throws FabricException {
        long fixtureInfos = fabrics.getInfo(null, null, 0, null).stream()
                .filter(i -> JofiContainer.FIXTURE_NAME.equals(i.fabricAttr().provName()))
                .count();
        assertEquals(2, fixtureInfos);
    }

    @Test
    public void provAttrOnlyGivesOneStubForTheFixture() throws FabricException {
        long stubs = fabrics.getInfo(null, null, Fi.FI_PROV_ATTR_ONLY, null).stream()
                .filter(i -> JofiContainer.FIXTURE_NAME.equals(i.fabricAttr().provName()))
                .count();
        assertEquals(1, stubs);
    }

    @Test
    public void unmetHintIsEnodataNamingTheProvider() {
        Info hints = fixtureHints();
        hints.epAttr().type(EpType.DGRAM);
        try {
            List<Info> infos = fabrics.getInfo(null, null, 0, hints);
            fail("the fixture offers no DGRAM endpoint, yet getInfo returned " + infos);
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno());
            assertTrue("message does not name the provider: " + e.getMessage(),
                    e.getMessage().contains(JofiContainer.FIXTURE_NAME));
        }
    }

    @Test
    public void providersListsTheFixtureAsAvailable() {
        ProviderInfo fixture = null;
        for (ProviderInfo p : fabrics.providers()) {
            if (JofiContainer.FIXTURE_NAME.equals(p.name())) {
                fixture = p;
            }
        }
        assertNotNull("fixture not in " + fabrics.providers(), fixture);
        assertEquals(ProviderState.AVAILABLE, fixture.state());
        assertEquals("1.0", fixture.version());
    }

    static Info fixtureHints() {
        Info hints = new Info();
        hints.fabricAttr().provName(JofiContainer.FIXTURE_NAME);
        return hints;
    }
}
