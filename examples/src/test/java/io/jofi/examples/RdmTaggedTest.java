package io.jofi.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Fi;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Runs {@link RdmTagged} on every provider with tagged RDM endpoints (required: tcp, shm). */
class RdmTaggedTest {
    @ParameterizedTest
    @MethodSource("io.jofi.examples.ExampleProviders#providers")
    void eachMessageLandsInTheReceiveItsTagMatches(String provider) throws Exception {
        ExampleProviders.assumeOffers(provider, EpType.RDM, Fi.FI_TAGGED, Set.of("tcp", "shm"));
        ExampleProviders.Output o = new ExampleProviders.Output();

        Map<Long, String> received = RdmTagged.run(ExampleProviders.FABRICS, provider, o.out);

        assertEquals(Map.of(1L, "one", 2L, "two", 0x142L, "group member 0x142"), received);
        String text = o.text();
        assertTrue(text.contains("provider " + provider), text);
        // receive #0 wanted tag 1, #1 tag 2, #2 the 0x100 group: matching is by tag, not by order
        assertTrue(text.contains("received tag 0x1 into receive #0: 'one'"), text);
        assertTrue(text.contains("received tag 0x2 into receive #1: 'two'"), text);
        assertTrue(text.contains("received tag 0x142 into receive #2: 'group member 0x142'"), text);
    }
}
