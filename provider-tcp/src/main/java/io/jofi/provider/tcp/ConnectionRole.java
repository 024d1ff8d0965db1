package io.jofi.provider.tcp;

import io.jofi.provider.tcp.wire.CmMessage;

/**
 * What a {@link TcpConnection}'s owner decides about it: the MSG endpoint it is
 * ({@link TcpEndpoint}: connection events on the EQ, the posted receives are its own), or the
 * per-peer connection of an RDM endpoint (RDM, before the rxm layer replaced it: sends queue until it is
 * up, outcomes go to the RDM endpoint, the sender is the peer's fi_addr). Called under the
 * connection's lock.
 */
interface ConnectionRole {
    /** 0, or the negative errno data-path calls answer: the owning endpoint's fid state (closed, departed, failed). */
    int postState();

    /** Whether sends queue from the connection's creation until it is up (RDM: connect on first use). */
    boolean queuesUntilConnected();

    /** Whether the connection binds the info's source address before connecting (MSG: it is the local end). */
    boolean bindsSourceAddress();

    /** Whether the end of the connection fails the posted receives (MSG: they are its own; RDM: every peer's). */
    boolean ownsPostedReceives();

    /** Whether the active side accepts this CM accept (RDM: its connection data must be an RDM hello). */
    boolean acceptable(CmMessage accept);

    /**
     * The connection is established and on its data loop; {@code accept} is the CM accept the
     * active side read (its data for {@code FI_CONNECTED}), or null on the passive side.
     */
    void connected(TcpConnection c, CmMessage accept);

    /** The connect failed (socket closed, queued sends kept): report it and decide about the sends. */
    void connectFailed(TcpConnection c, int err, byte[] errData, int errDataSize);

    /**
     * The connection ended (its operations failed already); {@code shutdownEvent}: it was
     * established and the end is to be reported ({@code FI_SHUTDOWN} with {@code reason}).
     */
    void ended(TcpConnection c, boolean shutdownEvent, byte[] reason);

    /** The sender's fi_addr for matching and {@code readFrom} (R10): {@code FI_ADDR_NOTAVAIL} on MSG. */
    long source();

    /**
     * With {@code FI_SOURCE_ERR}, the raw name of a sender not in the AV (R10: its receive
     * completions become {@code EADDRNOTAVAIL} errors carrying a copy); else null.
     */
    byte[] unknownSender();
}
