package io.jofi.provider.rxm;

import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.UtilAddressVector;
import java.net.InetSocketAddress;

/**
 * One peer of an rxm endpoint: at most one MSG connection to it, its state in rxm's
 * handshake, the index each side keeps the other under, and the peer's {@code fi_addr}
 * (looked up again only when the AV changed).
 */
final class RxmConnection {
    enum State { IDLE, CONNECTING, ACCEPTING, CONNECTED }

    /** Our index of the peer: the low half of the connection id we send it. */
    final int index;
    /** The address the peer listens on (its RDM name). */
    final InetSocketAddress peer;
    /** The same as raw bytes (FI_SOURCE_ERR's error data, the connect address). */
    final byte[] peerName;
    State state = State.IDLE;
    /** The MSG endpoint of the current connection, or null. */
    Endpoint msgEndpoint;
    /** The receive buffers posted on {@link #msgEndpoint}. */
    RxmReceiveBuffer[] receiveBuffers;
    /** Their memory (and its registration), released with them ({@link RxmReceiveBuffer#release}). */
    RxmPacketMemory receiveMemory;
    /** The peer's index of us: the {@code conn_id} of every packet we send it. */
    int remoteIndex = -1;
    /** The peer's process id from its connection id (0: not known). */
    long remotePid;
    /** The credit flow control of {@link #msgEndpoint} (new with each MSG endpoint; off until both sides offered it). */
    RxmCredits credits = new RxmCredits(false);
    /** The peer offered credit flow control in its connection data (as we did: then it is enabled once connected). */
    boolean peerOffersCredits;
    /** Transmits formatted while the connection was being made, posted in order once it is (FIFO). */
    RxmTransmit pendingHead;
    RxmTransmit pendingTail;
    /** Segmented messages being put together from this peer ({@link RxmSegmentAssembly}). */
    RxmSegmentAssembly.Message segments;
    /**
     * Packets held back, oldest first, because their message found no receive and the
     * unexpected limits were reached: not posted again, so the MSG connection below fills and
     * stops reading (back-pressure to the sender). Every later message packet of this peer
     * queues behind them, keeping its order.
     */
    RxmReceiveBuffer heldHead;
    RxmReceiveBuffer heldTail;
    /**
     * When the peer last refused our connect as "already" (its own request would bring the
     * connection) while transmits wait for it, else 0; {@link #alreadyCount} such refusals in a row.
     */
    long alreadyAtNanos;
    int alreadyCount;
    /** Whether a connection to this peer was up before (a new one counts as a reconnect). */
    boolean connectedBefore;
    /** Bytes of the peer's atomic requests waiting for an answer transmit ({@link RxmAtomics}). */
    long atomicsWaiting;

    private long fiAddr = Fi.FI_ADDR_NOTAVAIL;
    private long avChange = -1;

    RxmConnection(int index, InetSocketAddress peer, byte[] peerName) {
        this.index = index;
        this.peer = peer;
        this.peerName = peerName;
    }

    /** The peer's {@code fi_addr} in {@code av}, or {@code FI_ADDR_NOTAVAIL}; allocates only after an AV change. */
    long fiAddr(UtilAddressVector av) {
        if (av == null) {
            return Fi.FI_ADDR_NOTAVAIL;
        }
        long change = av.changeCount();
        if (change != avChange) {
            fiAddr = av.fiAddrOf(peerName);
            avChange = change;
        }
        return fiAddr;
    }

    /**
     * What a MSG post's {@code rc} means to rxm ({@link RxmSendPath#postNow}): a connection
     * that went down before its end event was read ({@code ENOTCONN}, {@code ECONNRESET},
     * {@code EPIPE}) is ending, nothing wrong with the post — {@code -EAGAIN}: the next pass
     * reads the end, which fails what waits on the connection with its errno; an application's
     * post tried again then connects anew (as any post to a peer without a connection).
     */
    static int refusedWhileEnding(int rc) {
        if (rc == 0) {
            return 0; // (every accepted post: one compare)
        }
        return rc == -Errno.ENOTCONN || rc == -Errno.ECONNRESET || rc == -Errno.EPIPE ? -Errno.EAGAIN : rc;
    }

    /** Connected and able to carry packets. */
    boolean isConnected() {
        return state == State.CONNECTED;
    }

    @Override
    public String toString() {
        return "rxm connection #" + index + " to " + peer + " (" + state + ")";
    }
}
