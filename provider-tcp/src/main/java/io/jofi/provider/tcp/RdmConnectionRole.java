package io.jofi.provider.tcp;

import io.jofi.Fi;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;

/**
 * The role of a tcp connection that carries an RDM endpoint's traffic with one peer: sends
 * queue from its creation until it is up, the acceptor must answer with an RDM hello, its end
 * fails only its own operations and raises no event (the next send connects again), and what
 * it receives comes from the peer's fi_addr in the endpoint's AV (R10). Its outcomes go to the
 * endpoint's {@link TcpRdmPeers}.
 */
final class RdmConnectionRole implements ConnectionRole {
    private final TcpRdmEndpoint endpoint;
    private final TcpRdmPeers peers;
    final RdmPeer peer;

    RdmConnectionRole(TcpRdmEndpoint endpoint, TcpRdmPeers peers, RdmPeer peer) {
        this.endpoint = endpoint;
        this.peers = peers;
        this.peer = peer;
    }

    @Override
    public int postState() {
        return endpoint.postState();
    }

    @Override
    public boolean queuesUntilConnected() {
        return true;
    }

    /** An RDM endpoint's srcAddr is its listener's: its connections take the kernel's choice. */
    @Override
    public boolean bindsSourceAddress() {
        return false;
    }

    /** The posted receives are the endpoint's, for every peer: one connection's end leaves them. */
    @Override
    public boolean ownsPostedReceives() {
        return false;
    }

    /** Accepted by something that is not a JOFI RDM endpoint (no hello): refused. */
    @Override
    public boolean acceptable(CmMessage accept) {
        return TcpRdmHelloDescriptor.kind(accept.dataCopy(), accept.dataLength()) == TcpRdmHelloDescriptor.KIND_HELLO;
    }

    @Override
    public void connected(TcpConnection c, CmMessage accept) {
        // nothing to report: the sends queued since the first one to this peer went out already
    }

    @Override
    public void connectFailed(TcpConnection c, int err, byte[] errData, int errDataSize) {
        peers.connectFailed(c, peer, err, errData, errDataSize);
    }

    @Override
    public void ended(TcpConnection c, boolean shutdownEvent, byte[] reason) {
        peers.connectionDown(c, peer);
    }

    /** The peer's entry in the AV (cached per AV version), or {@code FI_ADDR_NOTAVAIL}. */
    @Override
    public long source() {
        return endpoint.sourceOf(peer);
    }

    @Override
    public byte[] unknownSender() {
        return endpoint.sourceErr() && endpoint.sourceOf(peer) == Fi.FI_ADDR_NOTAVAIL ? peer.name : null; // the completion copies it
    }
}
