package io.jofi.conformance;

import io.jofi.FabricException;

/**
 * A step a test runs on each side of an endpoint pair after the CQs, EQ and AV are bound and
 * before the endpoint is enabled: binding counters, setting options, ...
 */
@FunctionalInterface
public interface PeerSetup {
    /** Prepares {@code side} (its endpoint is bound but not yet enabled). */
    void setUp(PeerSide side) throws FabricException;
}
