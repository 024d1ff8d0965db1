package io.jofi.internal;

import io.jofi.Fabrics;

/** The plain-JVM registry (providers through ServiceLoader). Replaced by the registry work. */
public final class StandaloneFabrics {
    private StandaloneFabrics() {
    }

    public static Fabrics instance() {
        throw new UnsupportedOperationException("registry not yet written");
    }
}
