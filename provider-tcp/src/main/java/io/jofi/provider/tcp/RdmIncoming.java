package io.jofi.provider.tcp;

import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.provider.tcp.wire.WireStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A socket a tcp RDM endpoint's listener accepted, until its connection request is read: it
 * reads exactly the CM message (header, then {@code seg_size} bytes — no data message is
 * consumed) on the fabric's connection-management loop, checks that its connection data is an
 * RDM hello ({@link TcpRdmHelloDescriptor}), and hands socket, key and the sender's name to
 * {@link TcpRdmEndpoint#incoming}, which accepts or rejects it. A request that is not a hello
 * is rejected ({@code KIND_REJECT_BAD_HELLO}), and so is a hello whose name cannot be an
 * endpoint's ({@link PeerNameCheck}); a wrong CM version or EOF closes the socket, as for MSG
 * requests.
 */
final class RdmIncoming implements SelectHandler, ConnectionSetupTimer.Setup {
    private final TcpRdmEndpoint owner;
    /** Closes this socket when its request has not arrived whole in time (slowloris, half-open). */
    private final ConnectionSetupTimer timer;
    final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + TcpWireDescriptor.CM_MAX_DATA_LENGTH);
    private final CmMessage request = new CmMessage();
    SelectionKey key;
    /** Set once handed to the endpoint or closed; only the CM loop thread and close touch it. */
    private volatile boolean done;

    RdmIncoming(TcpRdmEndpoint owner, SocketChannel channel, ConnectionSetupTimer timer) {
        this.owner = owner;
        this.timer = timer;
        this.channel = channel;
        in.limit(TcpWireDescriptor.CM_HEADER_LENGTH);
    }

    @Override
    public void onSelected(int readyOps) {
        if (done) {
            return;
        }
        try {
            if (channel.read(in) < 0) {
                drop();
                return;
            }
        } catch (IOException e) {
            drop();
            return;
        }
        int status = request.decode(in.duplicate().flip());
        if (status == WireStatus.NEED_MORE) {
            if (in.position() >= TcpWireDescriptor.CM_SEG_SIZE_OFFSET + 2 && in.limit() == TcpWireDescriptor.CM_HEADER_LENGTH) {
                int seg = ((in.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET) & 0xFF) << 8)
                        | (in.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET + 1) & 0xFF);
                in.limit(TcpWireDescriptor.CM_HEADER_LENGTH + seg);
                if (seg > 0) {
                    onSelected(readyOps); // the data may be buffered already
                }
            }
            return;
        }
        if (WireStatus.isError(status) || request.type() != TcpWireDescriptor.CM_TYPE_REQUEST) {
            drop();
            return;
        }
        byte[] data = request.dataCopy();
        if (TcpRdmHelloDescriptor.kind(data, data.length) != TcpRdmHelloDescriptor.KIND_HELLO) {
            reject(TcpRdmHelloDescriptor.KIND_REJECT_BAD_HELLO);
            return;
        }
        byte[] name = TcpRdmHelloDescriptor.name(data, data.length);
        if (PeerNameCheck.problem(name) != null) {
            reject(TcpRdmHelloDescriptor.KIND_REJECT_BAD_HELLO); // no reply could reach such a name
            return;
        }
        done = true;
        timer.done(this);
        key.interestOps(0); // nothing more is read before the connection that takes the socket over
        owner.incoming(this, name);
    }

    /** Answers with a reject of {@code kind} (an RDM hello without a name), then FIN and close. */
    void reject(int kind) {
        done = true;
        byte[] data = TcpRdmHelloDescriptor.encode(kind, null);
        CmMessage reject = new CmMessage().set(TcpWireDescriptor.CM_TYPE_REJECT, data, 0, data.length);
        ByteBuffer out = ByteBuffer.allocate(reject.encodedLength());
        reject.encode(out);
        out.flip();
        try {
            // A fresh socket's send buffer takes these 40 bytes at once; bounded retries otherwise.
            for (int i = 0; i < 1000 && out.hasRemaining(); i++) {
                if (channel.write(out) == 0) {
                    Thread.onSpinWait();
                }
            }
            channel.shutdownOutput();
        } catch (IOException e) {
            // the peer went away: nothing to tell it; closed below
        }
        close();
        owner.forget(this);
    }

    /** Closes the socket of a request nobody will take. */
    void drop() {
        done = true;
        close();
        owner.forget(this);
    }

    /** The connection request did not arrive whole within the connection-setup timeout. */
    @Override
    public void expire() {
        if (!done) {
            drop();
        }
    }

    /** Closes key and socket (also when the endpoint closes with the request unread). */
    void close() {
        done = true;
        timer.done(this);
        if (key != null) {
            key.cancel();
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing: nothing to report to
        }
    }
}
