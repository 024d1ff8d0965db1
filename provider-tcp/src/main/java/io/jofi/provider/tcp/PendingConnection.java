package io.jofi.provider.tcp;

import io.jofi.Addresses;
import io.jofi.ConnReq;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.provider.tcp.wire.WireStatus;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A socket a passive endpoint accepted, from its first byte to {@code accept} or
 * {@code reject}: it reads the connection request (docs/TCP-WIRE.md handshake step 2) on the fabric's
 * connection-management loop, then raises {@code FI_CONNREQ} with itself as the
 * {@link ConnReq} handle (R14). The handle is taken exactly once: by the endpoint opened for it
 * ({@link #take()}) or by {@link #reject(byte[])}.
 *
 * <p>It reads exactly the CM message (header, then {@code seg_size} bytes) and nothing more,
 * so that no data message is consumed before the endpoint owns the socket. A request of
 * another version closes the socket without an event, as libfabric does.
 */
final class PendingConnection implements ConnReq, SelectHandler, ConnectionSetupTimer.Setup {
    private final TcpPassiveEndpoint pep;
    private final SocketChannel channel;
    /** Closes this socket when its request has not arrived whole in time (slowloris, half-open). */
    private final ConnectionSetupTimer timer;
    private final ByteBuffer in = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + TcpWireDescriptor.CM_MAX_DATA_LENGTH);
    private final CmMessage request = new CmMessage();
    private SelectionKey key;
    /** Set once the request was read and announced; guarded by this. */
    private boolean announced;
    /** Set when taken by an endpoint, rejected or dropped; guarded by this. */
    private boolean done;

    PendingConnection(TcpPassiveEndpoint pep, SocketChannel channel, ConnectionSetupTimer timer) {
        this.pep = pep;
        this.channel = channel;
        this.timer = timer;
        in.limit(TcpWireDescriptor.CM_HEADER_LENGTH);
    }

    void key(SelectionKey key) {
        this.key = key;
    }

    /** Whether the request carried JOFI's marker (the peer speaks JOFI's wire extensions). */
    synchronized boolean peerIsJofi() {
        return request.isJofi();
    }

    /** The socket's key on the fabric's CM loop, which the accepting endpoint takes over with {@link #take()}. */
    SelectionKey selectionKey() {
        return key;
    }

    @Override
    public void onSelected(int readyOps) {
        synchronized (this) {
            if (done || announced) {
                return;
            }
            try {
                int n = channel.read(in);
                if (n < 0) {
                    drop();
                    return;
                }
            } catch (IOException e) {
                drop();
                return;
            }
            // Validate what has arrived so far (version first, as libfabric: a wrong one is a reset).
            ByteBuffer view = in.duplicate().flip();
            int status = request.decode(view);
            if (status == WireStatus.NEED_MORE) {
                if (in.position() >= TcpWireDescriptor.CM_SEG_SIZE_OFFSET + 2 && in.limit() == TcpWireDescriptor.CM_HEADER_LENGTH) {
                    int seg = ((in.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET) & 0xFF) << 8)
                            | (in.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET + 1) & 0xFF);
                    in.limit(TcpWireDescriptor.CM_HEADER_LENGTH + seg);
                }
                return;
            }
            if (WireStatus.isError(status) || request.type() != TcpWireDescriptor.CM_TYPE_REQUEST) {
                drop();
                return;
            }
            announced = true;
            timer.done(this); // the peer's part is done; accept or reject is the application's
            // Stop reading (nothing more may be read before accept); the key itself stays: the
            // accepting endpoint takes it over on this same CM selector. (A cancelled key would
            // make re-registering with this selector fail until its next pass.)
            key.interestOps(0);
        }
        announce();
    }

    private void announce() {
        Info info = pep.info().copy();
        try {
            info.destAddr(Addresses.toSockaddr((InetSocketAddress) channel.getRemoteAddress()));
            info.srcAddr(Addresses.toSockaddr((InetSocketAddress) channel.getLocalAddress()));
        } catch (IOException | RuntimeException e) {
            drop();
            return;
        }
        info.handle(this);
        byte[] data = request.dataCopy();
        if (pep.post(Fi.FI_CONNREQ, info, data, data.length) < 0) {
            drop(); // the EQ is overrun or closed: the peer sees a reset, as for a refused request
        }
    }

    /**
     * Hands the socket to the endpoint opened for this request.
     *
     * @throws FabricException {@code EINVAL} when it was taken, rejected or dropped already
     */
    synchronized SocketChannel take() throws FabricException {
        if (done || !announced) {
            throw new FabricException(Errno.EINVAL, "the connection request was already accepted, rejected or dropped");
        }
        done = true;
        pep.forget(this);
        return channel;
    }

    /**
     * {@code fi_reject}: answers with a reject carrying {@code param}, then FIN and close.
     *
     * @throws FabricException {@code EINVAL} when taken, rejected or dropped already, or
     *         {@code param} is longer than 256 bytes
     */
    void reject(byte[] param) throws FabricException {
        int len = param == null ? 0 : param.length;
        if (len > TcpWireDescriptor.CM_MAX_DATA_LENGTH) {
            throw new FabricException(Errno.EINVAL, "reject: " + len + " bytes of data; at most "
                    + TcpWireDescriptor.CM_MAX_DATA_LENGTH + " travel");
        }
        SocketChannel ch = take();
        CmMessage reject = new CmMessage().set(TcpWireDescriptor.CM_TYPE_REJECT, param, 0, len);
        ByteBuffer out = ByteBuffer.allocate(reject.encodedLength());
        reject.encode(out);
        out.flip();
        try {
            // A fresh socket's send buffer takes these <= 288 bytes at once; bounded retries otherwise.
            for (int i = 0; i < 1000 && out.hasRemaining(); i++) {
                if (ch.write(out) == 0) {
                    Thread.onSpinWait();
                }
            }
            ch.shutdownOutput();
        } catch (IOException e) {
            // The peer went away: it learns nothing more either way; the socket is closed below.
        } finally {
            Sockets.closeQuietly(ch);
        }
    }

    /** The connection request did not arrive whole within the connection-setup timeout. */
    @Override
    public void expire() {
        synchronized (this) {
            if (announced) {
                return;
            }
        }
        drop();
    }

    /** Closes the socket of a request nobody will take (bad request, EOF, pep closed, timeout). */
    void drop() {
        timer.done(this);
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
        }
        pep.forget(this);
        if (key != null) {
            key.cancel();
        }
        Sockets.closeQuietly(channel);
    }
}
