package io.jofi.provider.tcp;

/**
 * What every part of a tcp connection asks of the connection it serves: whether the peer is a
 * JOFI peer (atomics, the match-complete flag), and ending the connection on the peer's bad
 * input. The connection implements it; each part gets it in its constructor.
 */
interface TcpPeerLink {
    /** Both CM messages carried JOFI's marker: atomics (ops 5/6) and flag bit 1 may be used. */
    boolean jofiPeer();

    /** The peer sent {@code what}, which the wire forbids: the connection ends (README "Failure model"). */
    void malformed(String what);
}
