package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Info;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The jofi commands as the Gogo shell runs them ({@code jofi:info}, {@code jofi:providers}),
 * through Gogo's {@link CommandProcessor} in a real Felix, with the session's output captured:
 * the listing and the hinted infos of the fixture provider, and a hot swap of its bundle by
 * command (stop, start, update), checked both in what the command prints and in the framework
 * (bundle state, what {@code Fabrics.getInfo} returns). Each test gets a fresh framework,
 * since most change the fixture bundle.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ToolsCommandsIT {
    private static final String FIXTURE = JofiContainer.FIXTURE_NAME;
    /** What the hot-swap commands print for getInfo while the fixture is the only provider. */
    private static final String FIXTURE_INFOS = "    fixture FI_EP_MSG\n    fixture FI_EP_RDM\n";
    private static final String NO_INFOS = "    none\n";

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    @Inject
    private CommandProcessor processor;

    private Bundle fixture;

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.all()};
    }

    @Before
    public void fixtureIsActive() {
        fixture = Osgi.bundle(context, JofiContainer.FIXTURE_BSN);
        assertEquals(Bundle.ACTIVE, fixture.getState());
    }

    @Test
    public void infoListShowsTheFixtureAvailable() throws Exception {
        Output output = gogo("jofi:info -l");

        assertEquals("", output.err);
        assertEquals("fixture:\n    version: 1.0\n    state: available\n", output.out);
    }

    @Test
    public void infoWithHintsPrintsTheMatchingInfo() throws Exception {
        Output output = gogo("jofi:info -p fixture -t rdm");

        assertEquals("", output.err);
        List<String> lines = output.out.lines().toList();
        // fi_info's block: provider, then fabric, domain, version, type, protocol (and caps) indented
        assertEquals(output.out, 1, lines.stream().filter(l -> l.startsWith("provider: ")).count());
        assertEquals(output.out, List.of("provider: fixture", "    fabric: fixture-fabric", "    domain: fixture-domain"),
                lines.subList(0, 3));
        assertTrue(output.out, lines.contains("    type: FI_EP_RDM"));
    }

    @Test
    public void infoVerbosePrintsEveryAttribute() throws Exception {
        Output output = gogo("jofi:info -p fixture -t rdm -v");

        assertEquals("", output.err);
        assertTrue(output.out, output.out.startsWith("fi_info:\n"));
        // one info: a single fi_info block, with the nested attribute blocks
        assertEquals(output.out, 1, output.out.lines().filter("fi_info:"::equals).count());
        for (String line : List.of("type: FI_EP_RDM", "name: fixture-domain", "name: fixture-fabric", "prov_name: fixture",
                "addr_format: FI_ADDR_STR")) {
            assertTrue("no '" + line + "' in\n" + output.out, output.out.lines().anyMatch(l -> l.trim().equals(line)));
        }
    }

    @Test
    public void stopRemovesTheFixtureAndStartBringsItBack() throws Exception {
        Output stopped = gogo("jofi:providers stop fixture");

        assertEquals("", stopped.err);
        assertEquals("before:\n" + FIXTURE_INFOS + "stop: " + describe(fixture) + "\nafter:\n" + NO_INFOS, stopped.out);
        assertEquals(Bundle.RESOLVED, fixture.getState());
        assertNoFixtureInfo();

        Output started = gogo("jofi:providers start fixture");

        assertEquals("", started.err);
        assertEquals("before:\n" + NO_INFOS + "start: " + describe(fixture) + "\nafter:\n" + FIXTURE_INFOS, started.out);
        assertEquals(Bundle.ACTIVE, fixture.getState());
        assertEquals(2, fixtureInfos().size());
    }

    @Test
    public void updateReplacesTheFixtureRevisionAndKeepsItActive() throws Exception {
        BundleRevision before = fixture.adapt(BundleRevision.class);
        BundleWiring apiWiring = Osgi.bundle(context, JofiContainer.API_BSN).adapt(BundleWiring.class);

        Output updated = gogo("jofi:providers update fixture");

        assertEquals("", updated.err);
        assertEquals("before:\n" + FIXTURE_INFOS + "update: " + describe(fixture) + "\nafter:\n" + FIXTURE_INFOS,
                updated.out);
        assertEquals(Bundle.ACTIVE, fixture.getState());
        assertNotSame("update installed no new revision", before, fixture.adapt(BundleRevision.class));
        assertEquals(2, fixtureInfos().size());
        // The refresh after the update took only the fixture: the api bundle (and so the
        // registry, the tools and any other provider) kept its wiring.
        assertSame("refreshing the fixture refreshed the api bundle", apiWiring,
                Osgi.bundle(context, JofiContainer.API_BSN).adapt(BundleWiring.class));
        assertTrue(apiWiring.isCurrent());
    }

    @Test
    public void stopOfAnUnknownProviderFailsAndChangesNothing() throws Exception {
        Output output = gogo("jofi:providers stop nosuch");

        assertEquals("", output.out);
        assertEquals(output.err, 1, output.err.lines().count());
        assertTrue(output.err, output.err.startsWith("jofi providers: no provider 'nosuch': "));
        assertEquals(Bundle.ACTIVE, fixture.getState());
        assertEquals(2, fixtureInfos().size());
    }

    /** What a Gogo session printed. */
    private record Output(String out, String err) {
    }

    /** Runs {@code commandLine} in a new Gogo session with no input and captured output. */
    private Output gogo(String commandLine) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, err)) {
            Object result = session.execute(commandLine);
            assertEquals("the jofi commands print, they return nothing", null, result);
        }
        return new Output(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** How the providers command names the bundle it swapped. */
    /** As the command names a bundle: its version spelled as Maven does (0.1.0-SNAPSHOT), as everywhere in jofi. */
    private static String describe(Bundle bundle) {
        org.osgi.framework.Version v = bundle.getVersion();
        String version = v.getMajor() + "." + v.getMinor() + "." + v.getMicro()
                + (v.getQualifier().isEmpty() ? "" : "-" + v.getQualifier());
        return bundle.getSymbolicName() + " " + version + " (bundle " + bundle.getBundleId() + ")";
    }

    private List<Info> fixtureInfos() throws FabricException {
        return fabrics.getInfo(null, null, 0, FabricsServiceIT.fixtureHints());
    }

    private void assertNoFixtureInfo() {
        try {
            List<Info> infos = fixtureInfos();
            fail("getInfo still returns the stopped " + FIXTURE + " provider's infos: " + infos);
        } catch (FabricException e) {
            assertEquals(e.getMessage(), Errno.ENODATA, e.errno());
        }
    }
}
