package io.jofi;

import java.security.CodeSource;
import java.util.ServiceLoader;

/**
 * Finds, once, the plain-JVM registry that {@link Fabrics#standalone()} returns: the api's own
 * implementation of {@link Fabrics}, which its {@code META-INF/services/io.jofi.Fabrics} names.
 * Found through {@link ServiceLoader} so that the interface names no implementation class: the
 * implementation depends on the interface, never the other way round.
 */
final class StandaloneLookup {
    /** Initialized by the JVM on the first {@link Fabrics#standalone()}, exactly once (the holder idiom). */
    static final Fabrics INSTANCE = find();

    private StandaloneLookup() {
    }

    /**
     * The implementation that the api's class loader lists and that comes from the api's own
     * code source (a registry another jar lists is not the api's).
     *
     * @throws IllegalStateException when the api's jar lists none (a broken build)
     */
    private static Fabrics find() {
        ClassLoader api = Fabrics.class.getClassLoader();
        CodeSource own = Fabrics.class.getProtectionDomain().getCodeSource();
        return ServiceLoader.load(Fabrics.class, api).stream()
                .filter(p -> own == null || own.equals(p.type().getProtectionDomain().getCodeSource()))
                .findFirst()
                .map(ServiceLoader.Provider::get)
                .orElseThrow(() -> new IllegalStateException("the api bundle lists no " + Fabrics.class.getName()
                        + " implementation in META-INF/services (a broken build)"));
    }
}
