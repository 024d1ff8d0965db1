package io.jofi.conformance;

import io.jofi.AddressVector;
import io.jofi.CompletionQueue;
import io.jofi.Endpoint;
import io.jofi.EventQueue;
import io.jofi.Info;

/**
 * One side of an {@link EndpointPair}: the endpoint, the transmit and receive CQs bound to it,
 * its EQ (MSG) or AV (RDM), and the {@code fi_addr_t} by which it reaches the other side
 * ({@code Fi.FI_ADDR_UNSPEC} on connected MSG endpoints).
 */
public final class PeerSide {
    private final String label;
    Info info;
    Endpoint ep;
    CompletionQueue txCq;
    CompletionQueue rxCq;
    EventQueue eq;
    AddressVector av;
    long peer;
    byte[] name;

    PeerSide(String label) {
        this.label = label;
    }

    /** "a" (the active / first side) or "b". */
    public String label() {
        return label;
    }

    /** The Info the endpoint was opened with (for MSG's side b: the FI_CONNREQ event's). */
    public Info info() {
        return info;
    }

    /** The endpoint. */
    public Endpoint ep() {
        return ep;
    }

    /** The CQ bound with {@code FI_TRANSMIT}. */
    public CompletionQueue txCq() {
        return txCq;
    }

    /** The CQ bound with {@code FI_RECV}. */
    public CompletionQueue rxCq() {
        return rxCq;
    }

    /** The EQ bound to the endpoint (MSG), or {@code null}. */
    public EventQueue eq() {
        return eq;
    }

    /** The AV bound to the endpoint (RDM, DGRAM), or {@code null}. */
    public AddressVector av() {
        return av;
    }

    /** The other side's {@code fi_addr_t} in this side's AV, or {@code FI_ADDR_UNSPEC} (MSG). */
    public long peer() {
        return peer;
    }

    /** This endpoint's {@code getName()} after enable. */
    public byte[] name() {
        return name;
    }

    @Override
    public String toString() {
        return "side " + label;
    }
}
