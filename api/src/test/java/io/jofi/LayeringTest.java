package io.jofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The api bundle is the bottom layer: no class of it names the provider toolkit
 * ({@code io.jofi.spi.util}, the io.jofi.util bundle) or a provider, so that the toolkit and
 * the providers depend on it and never the other way round. Read from the compiled classes'
 * constant pools, where every class a class uses is named.
 */
class LayeringTest {
    @Test
    void noApiClassNamesTheToolkitOrAProvider() throws IOException, URISyntaxException {
        Path classes = Path.of(Fabrics.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Path> offenders;
        int checked;
        try (Stream<Path> files = Files.walk(classes)) {
            List<Path> all = files.filter(f -> f.toString().endsWith(".class")).toList();
            checked = all.size();
            offenders = all.stream().filter(LayeringTest::namesAnUpperLayer).toList();
        }
        assertTrue(checked > 50, "only " + checked + " classes found in " + classes);
        assertEquals(List.of(), offenders, "api classes that name io.jofi.spi.util or io.jofi.provider");
    }

    private static boolean namesAnUpperLayer(Path classFile) {
        try {
            String text = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
            return text.contains("io/jofi/spi/util") || text.contains("io/jofi/provider");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
