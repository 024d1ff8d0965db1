package io.jofi.spi.util;

/**
 * A queue that poll sets ({@code fi_poll}) and {@code fi_trywait} can ask about: the util
 * completion queue, event queue and counter implement it.
 */
public interface Pollable {
    /** The queue's wait object support. */
    WaitSupport waitSupport();

    /**
     * Drives pending progress once and tells whether this object has events: a CQ or EQ with
     * something to read, a counter whose values changed since it was last asked.
     */
    boolean hasEvents();

    /** The application's context of this object, which {@code fi_poll} reports. */
    Object context();
}
