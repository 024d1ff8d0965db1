package io.jofi.provider.shm;

/**
 * Test access to the provider's DS lifecycle from other test packages: what Declarative
 * Services calls when the provider's bundle stops (R15 departure).
 */
public final class ShmLifecycle {
    private ShmLifecycle() {
    }

    /** Deactivates the component as DS does on bundle stop: engines stop, every object departs. */
    public static void deactivate(ShmProvider provider) {
        provider.deactivate();
    }
}
