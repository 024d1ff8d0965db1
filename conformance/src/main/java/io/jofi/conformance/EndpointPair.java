package io.jofi.conformance;

import io.jofi.EpType;

/**
 * Two endpoints that can talk to each other: connected MSG endpoints (side a called
 * {@code connect}, side b was opened from the {@code FI_CONNREQ} and accepted) or two RDM
 * endpoints that inserted each other's {@code getName()} into their AVs.
 */
public final class EndpointPair {
    private final EpType type;
    private final PeerSide a;
    private final PeerSide b;

    EndpointPair(EpType type, PeerSide a, PeerSide b) {
        this.type = type;
        this.a = a;
        this.b = b;
    }

    /** MSG or RDM. */
    public EpType type() {
        return type;
    }

    /** The first side (the connecting side for MSG). */
    public PeerSide a() {
        return a;
    }

    /** The second side (the accepting side for MSG). */
    public PeerSide b() {
        return b;
    }
}
