package io.jofi.provider.tcp;

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
 * tcp is a core provider: no class of it names the rxm layer ({@code io.jofi.provider.rxm}, the
 * {@code ofi_rxm} provider), which is layered over tcp by the registry and never opened by tcp.
 * Read from the compiled classes' constant pools, where every class a class uses is named.
 */
class TcpLayeringTest {
    @Test
    void noTcpClassNamesTheRxmLayer() throws IOException, URISyntaxException {
        Path classes = Path.of(TcpProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Path> offenders;
        int checked;
        try (Stream<Path> files = Files.walk(classes)) {
            List<Path> all = files.filter(f -> f.toString().endsWith(".class")).toList();
            checked = all.size();
            offenders = all.stream().filter(TcpLayeringTest::namesTheRxmLayer).toList();
        }
        assertTrue(checked > 30, "only " + checked + " classes found in " + classes);
        assertEquals(List.of(), offenders, "tcp classes that name the rxm layer");
    }

    private static boolean namesTheRxmLayer(Path classFile) {
        try {
            String text = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
            return text.contains("io/jofi/provider/rxm");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
