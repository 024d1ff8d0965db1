package io.jofi.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Fi;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Runs the README's {@link HelloWorld} as a user would (its main) on every RDM provider (required: tcp, shm). */
class HelloWorldTest {
    @ParameterizedTest
    @MethodSource("io.jofi.examples.ExampleProviders#providers")
    void printsTheMessageTheSecondEndpointReceived(String provider) throws Exception {
        ExampleProviders.assumeOffers(provider, EpType.RDM, Fi.FI_MSG, Set.of("tcp", "shm"));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            HelloWorld.main(new String[] {provider});
        } finally {
            System.setOut(stdout);
        }
        // RDM over a core without RDM of its own (tcp) is the ofi_rxm layer's: tcp;ofi_rxm
        String out = captured.toString(StandardCharsets.UTF_8);
        assertTrue(out.equals("hello, fabric (over " + provider + ")\n")
                || out.equals("hello, fabric (over " + provider + ";ofi_rxm)\n"), out);
    }
}
