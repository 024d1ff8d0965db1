package io.jofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The public interface depends on no implementation: {@link Fabrics} names no class of the
 * api's private {@code io.jofi.internal}, and {@link Fabrics#standalone()} still gives the api's
 * registry, found through its {@code META-INF/services/io.jofi.Fabrics}.
 */
class StandaloneLookupTest {

    @Test
    void fabricsNamesNoInternalClass() throws IOException {
        // a class's constant pool holds the internal names of every class its code names
        try (InputStream in = Fabrics.class.getResourceAsStream("Fabrics.class")) {
            assertNotNull(in, "Fabrics.class not found");
            String constants = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertFalse(constants.contains("io/jofi/internal/"),
                    "io.jofi.Fabrics names a class of io.jofi.internal (a cycle between the interface and its implementation)");
        }
    }

    @Test
    void standaloneIsTheApisRegistryAndOneObject() {
        Fabrics fabrics = Fabrics.standalone();
        assertSame(fabrics, Fabrics.standalone());
        assertEquals(Fabrics.class.getProtectionDomain().getCodeSource().getLocation(),
                fabrics.getClass().getProtectionDomain().getCodeSource().getLocation(),
                "Fabrics.standalone() is the api's own registry, " + fabrics.getClass().getName());
    }
}
