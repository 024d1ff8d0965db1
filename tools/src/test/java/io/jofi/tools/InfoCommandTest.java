package io.jofi.tools;

import static io.jofi.tools.FakeFabrics.available;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Fi;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import org.junit.jupiter.api.Test;

class InfoCommandTest {
    @Test
    void listWithoutProvidersSaysSoAndSucceeds() {
        Console console = new Console(new FakeFabrics());
        assertEquals(ExitStatus.OK, console.run("info", "-l"));
        assertTrue(console.out().startsWith("no providers installed"), console.out());
    }

    @Test
    void infoWithoutProvidersFailsWithOneLineReason() {
        Console console = new Console(new FakeFabrics());
        assertEquals(ExitStatus.FAILURE, console.run("info"));
        assertEquals("", console.out());
        assertEquals(1, console.err().lines().count(), console.err());
        assertTrue(console.err().contains("no provider bundle is installed and started"), console.err());
    }

    @Test
    void listShowsVersionStateAndReason() {
        Console console = new Console(new FakeFabrics(available("tcp"),
                new ProviderInfo("verbs", "2.0", ProviderState.UNAVAILABLE, "no RDMA device")));
        assertEquals(ExitStatus.OK, console.run("info", "-l"));
        assertAll(
                () -> assertTrue(console.out().contains("tcp:\n    version: 1.0\n    state: available\n"), console.out()),
                () -> assertTrue(console.out().contains("verbs:\n    version: 2.0\n    state: unavailable (no RDMA device)\n"),
                        console.out()));
    }

    @Test
    void withoutHintOptionsHintsAreNull() {
        FakeFabrics fabrics = new FakeFabrics(available("tcp"));
        Console console = new Console(fabrics);
        assertEquals(ExitStatus.OK, console.run("info", "-n", "10.0.0.1", "-s", "4711"));
        assertNull(fabrics.lastHints);
        assertEquals("10.0.0.1", fabrics.lastNode);
        assertEquals("4711", fabrics.lastService);
        assertEquals(0, fabrics.lastFlags);
        assertEquals(2, console.out().lines().count(), console.out());
    }

    @Test
    void hintOptionsBecomeHints() {
        FakeFabrics fabrics = new FakeFabrics(available("tcp"));
        Console console = new Console(fabrics);
        assertEquals(ExitStatus.OK, console.run("info", "-p", "tcp", "-e", "rdm", "-c", "FI_MSG|FI_TAGGED", "--source"));
        assertEquals("tcp", fabrics.lastHints.fabricAttr().provName());
        assertEquals(EpType.RDM, fabrics.lastHints.epAttr().type());
        assertEquals(Fi.FI_MSG | Fi.FI_TAGGED, fabrics.lastHints.caps());
        assertEquals(Fi.FI_SOURCE, fabrics.lastFlags);
        assertEquals(1, console.out().lines().count(), console.out());
    }

    @Test
    void endpointTypeAcceptsLibfabricNames() {
        FakeFabrics fabrics = new FakeFabrics(available("tcp"));
        assertEquals(ExitStatus.OK, new Console(fabrics).run("info", "-e", "FI_EP_MSG"));
        assertEquals(EpType.MSG, fabrics.lastHints.epAttr().type());
    }

    @Test
    void verbosePrintsEveryAttribute() {
        Console console = new Console(new FakeFabrics(available("tcp")));
        assertEquals(ExitStatus.OK, console.run("info", "-v", "-e", "msg"));
        assertTrue(console.out().lines().count() > 10, console.out());
    }

    @Test
    void getInfoFailureIsTheRegistrysMessage() {
        Console console = new Console(new FakeFabrics(new ProviderInfo("verbs", "2.0", ProviderState.UNAVAILABLE, "no device")));
        assertEquals(ExitStatus.FAILURE, console.run("info"));
        assertEquals("jofi info: no provider matched: fake: ep_type\n", console.err());
    }

    @Test
    void badOptionsAreUsageErrors() {
        Console console = new Console(new FakeFabrics(available("tcp")));
        assertAll(
                () -> assertEquals(ExitStatus.USAGE, console.run("info", "-c", "FI_NOT_A_CAP")),
                () -> assertEquals(ExitStatus.USAGE, console.run("info", "-e", "stream")),
                () -> assertEquals(ExitStatus.USAGE, console.run("info", "--bogus")));
        assertEquals(3, console.err().lines().count(), console.err());
    }

    @Test
    void helpPrintsUsage() {
        Console console = new Console(new FakeFabrics());
        assertEquals(ExitStatus.OK, console.run("info", "--help"));
        assertTrue(console.out().startsWith("Usage: jofi info"), console.out());
    }

    @Test
    void withoutRegistryTheReasonNamesTheApiBundle() {
        Console console = new Console(null);
        assertEquals(ExitStatus.FAILURE, console.run("info", "-l"));
        assertTrue(console.err().contains("io.jofi.api"), console.err());
    }
}
