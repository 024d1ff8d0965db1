package io.jofi.provider.tcp;

/**
 * What every part of a tcp connection asks of the connection it serves: whether the peer is a
 * JOFI peer (atomics, the match-complete flag), and ending the connection on the peer's bad
 * input. The connection implements it; each part gets it in its constructor.
 */
interface TcpPeerLink {
    /** Both CM messages carried JOFI's marker: atomics (ops 5/6) and flag bit 1 may be used. */
    boolean jofiPeer();

    /**
     * The highest op this peer may send: {@code MAX_JOFI_OP} for a JOFI peer, {@code MAX_OP} for
     * a C one. A value, not a test of {@link #jofiPeer}: the receive loop's compiled code then
     * holds no branch on the peer's kind that the first C peer after JOFI peers would take for the
     * first time, which throws that code away and recompiles it while messages flow.
     */
    int maxOp();

    /** The JOFI-only wire flags this peer may set ({@code FLAG_JOFI_MATCH_COMPLETE}, or 0 for a C peer): a mask, as {@link #maxOp}. */
    int jofiFlags();

    /** The peer sent {@code what}, which the wire forbids: the connection ends (README "Failure model"). */
    void malformed(String what);
}
