package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.rsa.channel.ChannelSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.aries.rsa.spi.Endpoint;
import org.junit.jupiter.api.Test;
import org.osgi.service.remoteserviceadmin.EndpointDescription;

/** Which provider an importer picks for an endpoint, and an export with no hint offering every provider. */
class TransportChoiceTest {
    private static final Map<String, String> BOTH = Map.of("tcp", "T", "shm", "S");

    @Test
    void sameHostPrefersShmOtherHostsNeverGetIt() {
        assertEquals("shm", TransportChoice.choose(BOTH, true, null, List.of("tcp", "shm")));
        assertEquals("tcp", TransportChoice.choose(BOTH, false, null, List.of("shm", "tcp")));
        assertNull(TransportChoice.choose(Map.of("shm", "S"), false, null, List.of("shm", "tcp")));
        assertEquals("tcp", TransportChoice.choose(BOTH, true, null, List.of("tcp")));
    }

    @Test
    void aForcedProviderIsTakenOrNothing() {
        assertEquals("tcp", TransportChoice.choose(BOTH, true, "tcp", List.of("tcp", "shm")));
        assertNull(TransportChoice.choose(BOTH, true, "verbs", List.of("tcp", "shm")));
        assertNull(TransportChoice.choose(BOTH, false, "shm", List.of("tcp", "shm")));
    }

    @Test
    void anExportWithoutHintOffersEveryProviderAndTheImporterTakesShmOnThisHost() {
        ChannelSettings settings = RsaPair.settings(30_000, null);
        try (RsaPair pair = new RsaPair(null, settings, settings)) {
            Endpoint endpoint = pair.export(Echo.class, new EchoImpl(), Map.of());
            Map<String, String> offered = TransportChoice.addresses(
                    endpoint.description().getProperties().get(EndpointProperties.ADDRESSES));
            assertTrue(offered.keySet().containsAll(List.of("tcp", "shm")), offered.toString());
            Echo echo = pair.importAs(Echo.class, endpoint);
            assertTrue(echo.toString().endsWith("over shm"), echo.toString());
            assertEquals("hello shm", echo.greet("shm"));

            Map<String, Object> elsewhere = new HashMap<>(endpoint.description().getProperties());
            elsewhere.put(EndpointProperties.HOST, "another-boot@another-host");
            Echo overTcp = (Echo) pair.importer.importEndpoint(Echo.class.getClassLoader(), null,
                    new Class[] {Echo.class}, new EndpointDescription(elsewhere));
            assertTrue(overTcp.toString().endsWith("over tcp"), overTcp.toString());
            assertEquals("hello tcp", overTcp.greet("tcp"));
        }
    }
}
