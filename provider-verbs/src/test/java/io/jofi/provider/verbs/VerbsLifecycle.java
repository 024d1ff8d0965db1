package io.jofi.provider.verbs;

/** Test access to the DS lifecycle of {@link VerbsProvider} (package-private there). */
public final class VerbsLifecycle {
    private VerbsLifecycle() {
    }

    /** What DS does when the bundle stops: deactivate (everything departs, R15). */
    public static void deactivate(VerbsProvider p) {
        p.deactivate();
    }
}
