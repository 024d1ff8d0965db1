package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.spi.util.InfoMatcher;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The infos an active port offers meet the hints applications (and the conformance kit) give:
 * a bare provider name, {@code FI_MSG} on MSG endpoints, RMA with the mr_mode bits verbs needs.
 * Uses an invented port, so it runs without a device.
 */
class VerbsInfosTest {
    private static final ActivePort PORT = new ActivePort("rxe0", 1, false, true, 16384, 32, 65536, 1L << 31, 16, true);

    private static List<Info> match(Info hints) throws FabricException {
        return InfoMatcher.filter(VerbsInfos.offer(List.of(PORT), null, null, 0, 256, 64), hints, "verbs");
    }

    @Test
    void aBareProviderNameMatches() throws FabricException {
        Info hints = new Info();
        hints.fabricAttr().provName("verbs");
        assertFalse(match(hints).isEmpty());
    }

    @Test
    void msgOnMsgEndpointsMatches() throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName("verbs");
        List<Info> infos = match(hints);
        assertFalse(infos.isEmpty());
        assertEquals("rxe0", infos.get(0).domainAttr().name());
    }

    @Test
    void rmaMatchesWithTheMrModeVerbsNeeds() throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        assertFalse(match(hints).isEmpty());
    }
}
