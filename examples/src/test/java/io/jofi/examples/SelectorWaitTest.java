package io.jofi.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Fi;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@link SelectorWait} on every provider with RDM messages (required: tcp, shm): every
 * message arrives, the CQ's FI_WAIT_FD channel woke the application's selector, and the
 * application's own pipe was read in the same loop.
 */
class SelectorWaitTest {
    @ParameterizedTest
    @MethodSource("io.jofi.examples.ExampleProviders#providers")
    void theApplicationsSelectorWakesForCompletionsAndItsOwnChannel(String provider) throws Exception {
        ExampleProviders.assumeOffers(provider, EpType.RDM, Fi.FI_MSG, Set.of("tcp", "shm"));
        ExampleProviders.Output o = new ExampleProviders.Output();

        SelectorWait.Result r = SelectorWait.run(ExampleProviders.FABRICS, provider, o.out);

        String text = o.text();
        assertEquals(SelectorWait.MESSAGES, r.received(), text);
        assertTrue(r.quit(), "the pipe's 'quit' was read: " + text);
        // the sender waits 50 ms before each message: the receiver was asleep in select() for
        // at least some of them, and only the CQ's channel could wake it for those
        assertTrue(r.fabricWakeups() >= 1, "the CQ's channel never woke the selector: " + text);
        for (int i = 1; i <= SelectorWait.MESSAGES; i++) {
            assertTrue(text.contains("received 'message " + i + "'"), text);
        }
    }
}
