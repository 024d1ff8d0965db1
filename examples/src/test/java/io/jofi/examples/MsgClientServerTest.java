package io.jofi.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Fi;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Runs {@link MsgClientServer} on every provider with MSG endpoints (required: tcp). */
class MsgClientServerTest {
    @ParameterizedTest
    @MethodSource("io.jofi.examples.ExampleProviders#providers")
    void clientAndServerExchangeAMessageAndShutDown(String provider) throws Exception {
        ExampleProviders.assumeOffers(provider, EpType.MSG, Fi.FI_MSG, Set.of("tcp"));
        ExampleProviders.Output o = new ExampleProviders.Output();

        String answer = MsgClientServer.run(ExampleProviders.FABRICS, provider, o.out);

        assertEquals("pong", answer);
        String text = o.text();
        for (String line : new String[] {"server: FI_CONNREQ, greeting 'hello'", "server: FI_CONNECTED",
                "client: FI_CONNECTED", "server: received 'ping'", "client: received 'pong'", "server: FI_SHUTDOWN"}) {
            assertTrue(text.contains(line + System.lineSeparator()), "missing '" + line + "' in:\n" + text);
        }
    }
}
