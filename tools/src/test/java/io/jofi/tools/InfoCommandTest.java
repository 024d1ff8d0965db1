package io.jofi.tools;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code jofi info} against the real registry: {@code Fabrics.standalone()} with this module's
 * test providers ({@link SampleProvider} available, {@link DevicelessProvider} not), or a
 * registry without providers.
 */
class InfoCommandTest {
    private static final String SAMPLE = SampleProvider.NAME;

    @BeforeEach
    void forgetEarlierRequests() {
        SampleProvider.forgetRequests();
    }

    @Test
    void listWithoutProvidersSaysSoAndSucceeds() {
        Console console = Console.withoutProviders();
        assertEquals(ExitStatus.OK, console.run("info", "-l"));
        assertEquals("no providers installed (no provider bundle is installed and started)\n", console.out());
        assertEquals("", console.err());
    }

    @Test
    void infoWithoutProvidersFailsWithOneLineReason() {
        Console console = Console.withoutProviders();
        assertEquals(ExitStatus.FAILURE, console.run("info"));
        assertEquals("", console.out());
        assertEquals(1, console.err().lines().count(), console.err());
        assertTrue(console.err().contains("no provider bundle is installed and started"), console.err());
    }

    @Test
    void listShowsVersionStateAndReason() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.OK, console.run("info", "-l"));
        // registry order: neither is a default-order provider, so by name
        assertEquals(DevicelessProvider.NAME + ":\n"
                        + "    version: " + DevicelessProvider.VERSION + "\n"
                        + "    state: unavailable (" + DevicelessProvider.REASON + ")\n"
                        + SAMPLE + ":\n"
                        + "    version: " + SampleProvider.VERSION + "\n"
                        + "    state: available\n",
                console.out());
    }

    @Test
    void withoutHintOptionsHintsAreNull() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.OK, console.run("info", "-n", "10.0.0.1", "-P", "4711"));
        SampleProvider.Request asked = SampleProvider.lastRequest();
        assertNotNull(asked, "the registry did not ask the sample provider");
        assertNull(asked.hints());
        assertEquals("10.0.0.1", asked.node());
        assertEquals("4711", asked.service());
        assertEquals(0, asked.flags());
        // both infos of the available provider, a block each
        List<String> lines = console.out().lines().toList();
        assertEquals(14, lines.size(), console.out());
        assertEquals("provider: " + SAMPLE, lines.get(0));
        assertEquals("    type: FI_EP_MSG", lines.get(4));
        assertEquals("provider: " + SAMPLE, lines.get(7));
        assertEquals("    type: FI_EP_RDM", lines.get(11));
    }

    @Test
    void hintOptionsBecomeHints() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.OK, console.run("info", "-p", SAMPLE, "-t", "rdm", "-c", "FI_MSG|FI_TAGGED", "--source"));
        Info hints = SampleProvider.lastRequest().hints();
        assertEquals(SAMPLE, hints.fabricAttr().provName());
        assertEquals(EpType.RDM, hints.epAttr().type());
        assertEquals(Fi.FI_MSG | Fi.FI_TAGGED, hints.caps());
        assertEquals(Fi.FI_SOURCE, SampleProvider.lastRequest().flags());
        assertEquals(1, console.out().lines().filter(l -> l.startsWith("provider: ")).count(), console.out());
        assertTrue(console.out().contains("    type: FI_EP_RDM\n"), console.out());
    }

    @Test
    void nodeAndServiceAreTheDestinationOrWithSourceTheSource() {
        String address = SampleProvider.address("10.0.0.1", "4711");
        Console destination = Console.withTestProviders();
        assertEquals(ExitStatus.OK, destination.run("info", "-v", "-t", "msg", "-n", "10.0.0.1", "-P", "4711"));
        assertTrue(destination.out().contains("dest_addr: " + address + "\n"), destination.out());
        assertTrue(destination.out().contains("src_addr: (null)\n"), destination.out());

        Console source = Console.withTestProviders();
        assertEquals(ExitStatus.OK, source.run("info", "-v", "-t", "msg", "-s", "10.0.0.1", "-P", "4711"));
        assertTrue(source.out().contains("src_addr: " + address + "\n"), source.out());
        assertTrue(source.out().contains("dest_addr: (null)\n"), source.out());
    }

    @Test
    void endpointTypeAcceptsLibfabricNames() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.OK, console.run("info", "-t", "FI_EP_MSG"));
        assertEquals(EpType.MSG, SampleProvider.lastRequest().hints().epAttr().type());
        assertEquals(1, console.out().lines().filter(l -> l.startsWith("provider: ")).count(), console.out());
        assertTrue(console.out().contains("type: FI_EP_MSG"), console.out());
    }

    @Test
    void verbosePrintsEveryAttribute() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.OK, console.run("info", "-v", "-t", "msg"));
        assertTrue(console.out().startsWith("fi_info:\n"), console.out());
        assertTrue(console.out().lines().count() > 10, console.out());
        assertTrue(console.out().contains("prov_name: " + SAMPLE + "\n"), console.out());
        assertTrue(console.out().contains("name: sample-fabric\n"), console.out());
    }

    @Test
    void getInfoFailureIsTheRegistrysMessage() {
        Info hints = new Info();
        hints.fabricAttr().provName(DevicelessProvider.NAME);
        FabricException refused = assertThrows(FabricException.class,
                () -> Fabrics.standalone().getInfo(null, null, 0, hints));
        assertEquals(Errno.ENODATA, refused.errno());
        assertTrue(refused.getMessage().contains(DevicelessProvider.REASON), refused.getMessage());

        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.FAILURE, console.run("info", "-p", DevicelessProvider.NAME));
        assertEquals("", console.out());
        assertEquals("jofi info: " + refused.getMessage() + "\n", console.err());
    }

    @Test
    void unmetHintFailsNamingTheHint() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.FAILURE, console.run("info", "-p", SAMPLE, "-t", "dgram"));
        assertEquals(1, console.err().lines().count(), console.err());
        assertTrue(console.err().startsWith("jofi info: ") && console.err().contains(SAMPLE + ": "), console.err());
    }

    @Test
    void badOptionsAreUsageErrors() {
        Console console = Console.withTestProviders();
        assertAll(
                () -> assertEquals(ExitStatus.USAGE, console.run("info", "-c", "FI_NOT_A_CAP")),
                () -> assertEquals(ExitStatus.USAGE, console.run("info", "-t", "stream")),
                () -> assertEquals(ExitStatus.USAGE, console.run("info", "--bogus")));
        assertEquals(3, console.err().lines().count(), console.err());
        assertNull(SampleProvider.lastRequest(), "a usage error reached the registry");
    }

    @Test
    void helpPrintsUsage() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.OK, console.run("info", "--help"));
        assertTrue(console.out().startsWith("Usage: jofi info"), console.out());
    }

    /** fi_info's default block: provider, then fabric, domain, version, type, protocol indented; and caps. */
    @Test
    void defaultOutputIsFiInfosBlockForm() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.OK, console.run("info", "-t", "msg"));
        assertEquals("provider: " + SAMPLE + "\n"
                        + "    fabric: sample-fabric\n"
                        + "    domain: sample-domain\n"
                        + "    version: 1.0\n"
                        + "    type: FI_EP_MSG\n"
                        + "    protocol: FI_PROTO_UNSPEC\n"
                        + "    caps: FI_MSG|FI_TAGGED|FI_RECV|FI_SEND\n",
                console.out());
    }

    /** Infos that differ only in their caps (shm's two RDM infos) print differently. */
    @Test
    void noTwoInfosPrintAlike() {
        Info plain = new Info().caps(Fi.FI_MSG);
        plain.epAttr().type(EpType.RDM);
        plain.fabricAttr().provName("shm").name("shm");
        plain.domainAttr().name("shm");
        Info sourceErr = plain.copy().caps(Fi.FI_MSG | Fi.FI_SOURCE_ERR);
        assertEquals(plain.toShortString(), sourceErr.toShortString(), "the fi_info lines alone are alike");
        assertTrue(!InfoBlock.of(plain).equals(InfoBlock.of(sourceErr)), InfoBlock.of(plain));
    }

    /** {@code -e} as fi_info's: the settings, one line each, with default, current value and description. */
    @Test
    void envListsEverySettingOfEveryProvider() {
        System.setProperty("jofi.sample.depth", "32");
        try {
            Console console = Console.withTestProviders();
            assertEquals(ExitStatus.OK, console.run("info", "-e"));
            assertEquals("# jofi.sample.depth: Integer (default: 8; current: 32): Queue depth of the sample. Applies to new domains.\n"
                            + "# jofi.sample.label: String (default: \"\"; current: \"\"): A label.\n"
                            + "# to set one: -Djofi.sample.depth=8 in the JVM (./jofi: JOFI_JAVA_OPTS='-Djofi.sample.depth=8' ./jofi ...),"
                            + " or in OSGi Configuration Admin's PID io.jofi.provider.sample, property depth\n",
                    console.out());
            assertNull(SampleProvider.lastRequest(), "-e asks no provider for infos");

            Console filtered = Console.withTestProviders();
            assertEquals(ExitStatus.OK, filtered.run("info", "-g", "LABEL"));
            assertEquals(2, filtered.out().lines().count(), filtered.out());
            assertTrue(filtered.out().startsWith("# jofi.sample.label: "), filtered.out());

            Console none = Console.withoutProviders();
            assertEquals(ExitStatus.OK, none.run("info", "-e"));
            assertEquals("", none.out());
        } finally {
            System.clearProperty("jofi.sample.depth");
        }
    }

    @Test
    void versionPrintsTheVersions() {
        Console console = new Console(null);
        assertEquals(ExitStatus.OK, console.run("info", "--version"));
        List<String> lines = console.out().lines().toList();
        assertEquals(2, lines.size(), console.out());
        assertTrue(lines.get(0).startsWith("jofi: "), lines.get(0));
        assertEquals("libfabric api: 1.17", lines.get(1));
    }

    @Test
    void theVersionIsSpelledAsMavenSpellsIt() {
        assertEquals("0.1.0-SNAPSHOT", ProductVersion.maven(new org.osgi.framework.Version("0.1.0.SNAPSHOT")));
        assertEquals("1.2.3", ProductVersion.maven(new org.osgi.framework.Version("1.2.3")));
    }

    @Test
    void withoutRegistryTheReasonNamesTheApiBundle() {
        Console console = new Console(null);
        assertEquals(ExitStatus.FAILURE, console.run("info", "-l"));
        assertTrue(console.err().contains("io.jofi.api"), console.err());
    }
}
