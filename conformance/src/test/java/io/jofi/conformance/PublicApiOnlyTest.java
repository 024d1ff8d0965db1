package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kit drives the public API only: no class of it names a class of the api's private
 * {@code io.jofi.internal} (in OSGi that package is never exported, so such a class would not
 * load, and the kit would depend on the registry's implementation).
 */
class PublicApiOnlyTest {

    @Test
    void noKitClassNamesTheApisInternalPackage() throws IOException, URISyntaxException {
        Path classes = Path.of(ConformanceFixture.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isDirectory(classes), "the kit's classes are a directory under mvn test: " + classes);
        List<String> offenders;
        try (Stream<Path> files = Files.walk(classes)) {
            offenders = files.filter(p -> p.toString().endsWith(".class"))
                    .filter(PublicApiOnlyTest::namesInternal)
                    .map(p -> classes.relativize(p).toString())
                    .toList();
        }
        assertTrue(Files.exists(classes.resolve("io/jofi/conformance/StandaloneProviderDepartureConformance.class")),
                "the kit's classes are where this test looks: " + classes);
        assertEquals(List.of(), offenders, "kit classes that name io.jofi.internal");
    }

    private static boolean namesInternal(Path classFile) {
        try {
            // a class's constant pool holds the internal names of every class its code names
            return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1).contains("io/jofi/internal/");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
