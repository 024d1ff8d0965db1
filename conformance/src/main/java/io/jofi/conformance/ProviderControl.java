package io.jofi.conformance;

/**
 * Stops and starts the provider under test, for the departure suite (R15). In OSGi this
 * stops and starts the provider's bundle; a plain-JVM test supplies whatever takes the
 * provider's service away from the registry and brings it back.
 */
public interface ProviderControl {
    /** Makes the provider depart (its service goes away); returns once the registry was told. */
    void stop() throws Exception;

    /** Brings the provider back; returns once the registry was told. */
    void start() throws Exception;
}
