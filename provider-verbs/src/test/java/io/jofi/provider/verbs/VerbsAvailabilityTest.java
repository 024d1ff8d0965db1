package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import io.jofi.provider.verbs.binding.VerbsLibraries;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Availability (docs/VERBS.md "Availability"): the provider always registers; where no RDMA device has an active
 * port (this machine, CI) it is {@code UNAVAILABLE} with the reason, offers nothing and
 * throws nothing. Where a device is active (the soft-RoCE VM) it is {@code AVAILABLE} and
 * offers one MSG info per active port. The test checks whichever state the machine is in,
 * against the device scan's own verdict.
 */
class VerbsAvailabilityTest {
    @Test
    void stateAndReasonFollowTheDeviceScan() {
        VerbsProvider p = new VerbsProvider();
        DeviceScan scan = DeviceScan.scan();
        if (scan.available()) {
            assertEquals(ProviderState.AVAILABLE, p.state());
            assertNull(p.unavailableReason());
        } else {
            assertEquals(ProviderState.UNAVAILABLE, p.state());
            assertEquals(scan.reason(), p.unavailableReason());
            assertFalse(scan.reason().isBlank());
        }
    }

    /** Where rdma-core's runtime libraries are installed, every bound function exists in them. */
    @Test
    void whereTheLibrariesAreInstalledTheBindingLoads() {
        boolean installed = java.nio.file.Files.exists(java.nio.file.Path.of("/usr/lib/x86_64-linux-gnu", VerbsLibraries.IBVERBS))
                && java.nio.file.Files.exists(java.nio.file.Path.of("/usr/lib/x86_64-linux-gnu", VerbsLibraries.RDMACM));
        org.junit.jupiter.api.Assumptions.assumeTrue(installed,
                "libibverbs.so.1/librdmacm.so.1 are not installed here (apt-get install -y libibverbs1 librdmacm1)");
        assertNull(VerbsLibraries.load(), "every direct-mapped function resolves");
        assertFalse(new VerbsProvider().unavailableReason() != null
                && new VerbsProvider().unavailableReason().contains("cannot be loaded"));
    }

    @Test
    void theRegistryListsVerbsWithItsStateAndReason() {
        VerbsProvider direct = new VerbsProvider();
        ProviderInfo row = Fabrics.standalone().providers().stream()
                .filter(i -> i.name().equals("verbs")).findFirst().orElseThrow();
        assertEquals(VerbsProvider.VERSION, row.version());
        assertEquals(direct.state(), row.state());
        assertEquals(direct.unavailableReason(), row.reason());
    }

    @Test
    void unavailableOffersNothingAndThrowsNothing() throws FabricException {
        VerbsProvider p = new VerbsProvider();
        if (p.state() == ProviderState.AVAILABLE) {
            assertFalse(p.getInfo(null, null, 0, null).isEmpty(), "an active port offers an MSG info");
            return;
        }
        assertEquals(List.of(), p.getInfo(null, null, 0, null));
        assertEquals(List.of(), p.getInfo(null, null, 0, new Info().caps(io.jofi.Fi.FI_MSG)));
        FabricException e = assertThrows(FabricException.class,
                () -> Fabrics.standalone().getInfo(null, null, 0, verbsHints()));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("verbs: unavailable: " + p.unavailableReason()), e.getMessage());
        FabricException f = assertThrows(FabricException.class,
                () -> p.fabric(new FabricAttr().provName("verbs").name("IB-rxe0"), null));
        assertEquals(Errno.ENODATA, f.errno());
        assertTrue(f.getMessage().startsWith("verbs unavailable: "), f.getMessage());
    }

    @Test
    void aConfiguredDeviceThatIsNotThereIsTheReason() {
        System.setProperty("jofi.verbs.device", "nosuch9");
        try {
            VerbsProvider p = new VerbsProvider();
            assertEquals(ProviderState.UNAVAILABLE, p.state());
            assertNotNull(p.unavailableReason());
            if (DeviceScan.scan().available()) {
                assertTrue(p.unavailableReason().contains("'nosuch9'"), p.unavailableReason());
            }
        } finally {
            System.clearProperty("jofi.verbs.device");
        }
    }

    private static Info verbsHints() {
        Info hints = new Info();
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName("verbs");
        return hints;
    }
}
