package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tcp parts talk through methods, not through each other's fields: no class of the provider's package has a
 * mutable instance field that another class could read or write, but the two per-operation records that one part
 * drives — {@link InboundFrame} (the {@link TcpReceiver}'s frame state machine) and {@link TcpTransmitOp} (the
 * {@link TcpTransmitter}'s pooled transmit) — and final fields holding collaborators that never change. A field
 * made package-visible again (the bindings, the payload views) fails here.
 */
class TcpNarrowDoorsTest {
    /** Records whose state one part drives field by field on the hot path (documented in the README). */
    private static final Set<String> DRIVEN_RECORDS = Set.of("InboundFrame", "TcpTransmitOp");

    @Test
    void noPartExposesMutableFieldsToAnother() throws Exception {
        Set<String> open = new TreeSet<>();
        for (Class<?> c : mainClasses()) {
            if (DRIVEN_RECORDS.contains(c.getSimpleName()) || c.isInterface() || c.isRecord() || c.isEnum()
                    || Modifier.isPrivate(c.getModifiers())) {
                continue; // a private nested class is its enclosing part's own state
            }
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isPrivate(m) || Modifier.isStatic(m) || Modifier.isFinal(m) || f.isSynthetic()) {
                    continue;
                }
                open.add(c.getSimpleName() + "." + f.getName());
            }
        }
        assertEquals(Set.of(), open, "mutable fields other parts can reach (give them a method)");
    }

    /** The provider package's compiled main classes (not the tests', not the wire package's). */
    private static List<Class<?>> mainClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(TcpEndpoint.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("io/jofi/provider/tcp");
        List<Class<?>> out = new java.util.ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (name.endsWith(".class")) {
                    out.add(Class.forName("io.jofi.provider.tcp." + name.substring(0, name.length() - 6), false,
                            TcpNarrowDoorsTest.class.getClassLoader()));
                }
            }
        }
        if (out.size() < 20) {
            throw new AssertionError("found only " + out.size() + " classes in " + dir);
        }
        return out;
    }
}
