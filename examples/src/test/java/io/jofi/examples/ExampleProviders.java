package io.jofi.examples;

import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Info;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The providers the example tests run on, and whether an example applies to one. The list is
 * {@code -Djofi.examples.providers} (default {@code tcp,shm,verbs}); an example must run on the
 * providers its test names as required (tcp and shm have its endpoint type and caps), and is
 * skipped with the reason on any other provider that lacks them or is not there (verbs on a
 * machine without an RDMA device, or without {@code -Pverbs}).
 */
final class ExampleProviders {
    static final Fabrics FABRICS = Fabrics.standalone();

    private ExampleProviders() {
    }

    /** The {@code @MethodSource} of every example test. */
    static Stream<String> providers() {
        return Arrays.stream(System.getProperty("jofi.examples.providers", "tcp,shm,verbs").split(","))
                .map(String::trim).filter(s -> !s.isEmpty());
    }

    /**
     * Returns when {@code provider} offers {@code caps} on {@code type}; otherwise fails when
     * it is one of {@code required}, else skips the test.
     */
    static void assumeOffers(String provider, EpType type, long caps, Set<String> required) {
        Info hints = new Info().caps(caps);
        hints.epAttr().type(type);
        hints.fabricAttr().provName(provider);
        try {
            FABRICS.getInfo(null, null, 0, hints);
        } catch (FabricException e) {
            if (e.errno() != Errno.ENODATA) {
                fail("getInfo for " + provider + ": " + e, e);
            }
            if (required.contains(provider)) {
                fail("the example must run on " + provider + ", which no longer offers it: " + e.getMessage());
            }
            Assumptions.abort("the example does not apply to " + provider + ": " + e.getMessage()
                    + " (providers: " + FABRICS.providers() + ")");
        }
    }

    /** Collects what an example prints, and echoes it to the test log. */
    static final class Output {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            String text = bytes.toString(StandardCharsets.UTF_8);
            System.out.print(text);
            return text;
        }
    }
}
