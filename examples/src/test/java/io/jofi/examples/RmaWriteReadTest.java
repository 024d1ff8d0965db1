package io.jofi.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Fi;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Runs {@link RmaWriteRead} on every provider with RMA on RDM endpoints (required: tcp, shm). */
class RmaWriteReadTest {
    @ParameterizedTest
    @MethodSource("io.jofi.examples.ExampleProviders#providers")
    void writeLandsInTheTargetRegionAndReadFetchesIt(String provider) throws Exception {
        ExampleProviders.assumeOffers(provider, EpType.RDM,
                Fi.FI_MSG | Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE,
                Set.of("tcp", "shm"));
        ExampleProviders.Output o = new ExampleProviders.Output();

        RmaWriteRead.Result r = RmaWriteRead.run(ExampleProviders.FABRICS, provider, o.out);

        assertEquals("written by fi_write", r.written());
        assertEquals("answer from the target", r.read());
        String text = o.text();
        assertTrue(text.contains("provider " + provider), text);
        assertTrue(text.contains("target: its region now holds 'written by fi_write'"), text);
    }
}
