package io.jofi.provider.tcp;

/**
 * Test access to the provider's DS lifecycle from other test packages: what Declarative
 * Services calls when the provider's bundle stops (R15 departure).
 */
public final class TcpLifecycle {
    private TcpLifecycle() {
    }

    /** Deactivates the component as DS does on bundle stop: engines stop, every object departs. */
    public static void deactivate(TcpProvider provider) {
        provider.deactivate();
    }
}
