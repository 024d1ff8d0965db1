package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.aries.rsa.spi.Endpoint;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Calls through an exported and imported service over real tcp and shm endpoints. */
class CallEngineTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void syncCallsReturnTheirResults(String provider) {
        try (RsaPair pair = new RsaPair(provider)) {
            Endpoint endpoint = pair.export(Echo.class, new EchoImpl(), Map.of());
            assertEquals(provider, endpoint.description().getProperties().get(EndpointProperties.PROVIDER));
            Echo echo = pair.importAs(Echo.class, endpoint);
            assertEquals("hello world", echo.greet("world"));
            assertEquals(5, echo.add(2, 3));
            assertArrayEquals(new byte[] {1, 2, 3}, echo.echo(new byte[] {1, 2, 3}));
            assertEquals(ByteBuffer.wrap(new byte[] {9, 8}), echo.echoBuffer(ByteBuffer.wrap(new byte[] {9, 8})));
            assertEquals(List.of(new Point(0, 0), new Point(1, -1)), echo.points(2));
        }
    }

    @org.junit.jupiter.api.Test
    void tcpBindsTheConfiguredNode() {
        io.jofi.rsa.channel.ChannelSettings onLoopback = new io.jofi.rsa.channel.ChannelSettings(30_000, null, 65_536, 8,
                100, "127.0.0.1");
        try (RsaPair pair = new RsaPair("tcp", onLoopback, onLoopback)) {
            Endpoint endpoint = pair.export(Echo.class, new EchoImpl(), Map.of());
            byte[] address = java.util.Base64.getUrlDecoder().decode(
                    (String) endpoint.description().getProperties().get(EndpointProperties.ADDRESS));
            assertEquals("/127.0.0.1", io.jofi.Addresses.fromSockaddr(address).getAddress().toString());
            assertEquals("hello node", pair.importAs(Echo.class, endpoint).greet("node"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void asyncMethodsComplete(String provider) throws Exception {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals("ABC", echo.later("abc").getValue());
            assertEquals(49, echo.square(7).get(10, TimeUnit.SECONDS));
            assertEquals("x!", echo.future("x").get(10, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void serviceExceptionsArriveAsThemselves(String provider) {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            EchoProblem checked = assertThrows(EchoProblem.class, () -> echo.fail("bad"));
            assertEquals("bad", checked.getMessage());
            IllegalArgumentException unchecked = assertThrows(IllegalArgumentException.class, () -> echo.failUnchecked("worse"));
            assertEquals("worse", unchecked.getMessage());
            assertTrue(unchecked.getStackTrace().length > 0);
        }
    }
}
