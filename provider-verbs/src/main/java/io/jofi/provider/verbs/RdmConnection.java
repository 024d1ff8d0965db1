package io.jofi.provider.verbs;

import io.jofi.Fi;
import io.jofi.spi.util.UtilAddressVector;

/**
 * One RC connection of an RDM endpoint ({@link RdmPeers}) to one peer (named by the peer's listening
 * address, from the RDM hello): its rdma_cm id and queue pair, its state, the send chain its
 * work requests are staged in, and the transmit slots queued on it while it connects (a FIFO
 * threaded through {@link TransmitSlots#next} by {@link RdmTransmitter}, so queuing allocates nothing).
 * Guarded by the RDM endpoint's lock.
 */
final class RdmConnection {
    /** Active: address and route resolution, then the connect request is out. */
    static final int CONNECTING = 1;
    /** Passive: accepted, waiting for ESTABLISHED. */
    static final int ACCEPTING = 2;
    /** Established: carries sends, receives into the shared receive queue. */
    static final int CONNECTED = 3;
    /**
     * Active, refused as the higher name of a crossed connect: its queued sends wait for the
     * peer's own connection (which takes them) or, after {@link RdmPeers#PARK_NANOS},
     * connect again.
     */
    static final int PARKED = 4;
    /** Ended (refused, failed, disconnected, superseded); released once nothing is posted on it. */
    static final int DOWN = 5;
    /**
     * Active, superseded by the peer's connection (crossed connects) after its connect request
     * went out: it never carries anything, and its id is destroyed once the request is answered
     * (rejected, established, failed) or at its set-up bound, not at once, because destroying an
     * iWARP id whose connect request is unanswered waits for the answer
     * ({@link VerbsRdmEndpoint}, "Crossed connects").
     */
    static final int ABANDONED = 6;

    /** The peer's listening address (its getName()). */
    final byte[] peerName;
    /** Initiated here (a connect request went out) or accepted. */
    final boolean active;
    /**
     * A connection that only receives: the passive end of a send to oneself, or a peer's second
     * connection while the first is established (it carries the sends once the first ends).
     */
    boolean receiveOnly;
    int state;
    long id;
    /** The id's token ({@link CmChannel#tokenOf}): tells this id's events from a stale one of an earlier id at the same address. */
    long token;
    long qp;
    int qpNum;
    SendChain chain;
    /** Work requests posted on the queue pair and not completed yet. */
    int outstanding;
    /** The peer ended it (DISCONNECTED): failures of its operations are ECONNRESET. */
    boolean peerGone;
    /** When a PARKED connection connects again ({@code System.nanoTime()}). */
    long parkDeadline;
    /**
     * When a CONNECTING or ACCEPTING connection that is still not established fails with
     * ETIMEDOUT ({@code System.nanoTime()}): the provider's own bound on set-up, so that no
     * queued send waits on rdma_cm for ever.
     */
    long connectDeadline;
    /**
     * iWARP: when a connection that went down with work requests posted completes those still
     * without a completion ({@code System.nanoTime()}, 0 when none is due): soft-iWARP flushes
     * a queue pair once, when it enters the error state, and leaves what was posted after that
     * (e.g. a write's flush read) in the user ring for ever (README, iWARP).
     */
    long sweepAt;
    /** Why the set-up failed (an errno, 0 while it has not): what the sends queued on it complete with. */
    int failure;
    /** Transmit slots queued while connecting: head, tail (-1 when empty), count. */
    int waitHead = -1;
    int waitTail = -1;
    int waitCount;
    /** Data path cache: the fi_addr a send named this peer by, valid while the AV's change count is {@link #destVersion}. */
    long destFiAddr = Fi.FI_ADDR_NOTAVAIL;
    long destVersion = -1;
    /** FI_SOURCE cache: the peer's fi_addr in the endpoint's AV, valid while the change count is {@link #srcVersion}. */
    private long srcFiAddr = Fi.FI_ADDR_NOTAVAIL;
    private long srcVersion = -1;

    RdmConnection(byte[] peerName, boolean active, int state) {
        this.peerName = peerName;
        this.active = active;
        this.state = state;
    }

    /**
     * The peer's fi_addr in {@code av} (FI_SOURCE, R10), or {@code FI_ADDR_NOTAVAIL}; looked up
     * again only when the AV changed, so a message from an unknown sender allocates nothing.
     */
    long sourceIn(UtilAddressVector av) {
        long v = av.changeCount(); // read before the lookup (UtilAddressVector#changeCount)
        if (v != srcVersion) {
            srcFiAddr = av.fiAddrOf(peerName);
            srcVersion = v;
        }
        return srcFiAddr;
    }

    /** Whether the connection is set up or being set up (can carry sends now or later). */
    boolean live() {
        return state != DOWN && state != ABANDONED;
    }
}
