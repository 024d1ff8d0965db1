package io.jofi.provider.tcp;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.provider.tcp.wire.WireStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The CM handshake bytes of one tcp connection (docs/TCP-WIRE.md "Connection handshake"): the request
 * or accept it writes, and the response the active side reads exactly — the 32-byte header,
 * then {@code seg_size} bytes — so that no data frame is consumed before the socket moves to
 * its data loop. JOFI's marker ({@code CM_JOFI_MARKER}) goes into every request, and into an
 * accept only towards a peer that announced it. Guarded by the connection's lock.
 */
final class TcpCmHandshake {
    private final CmMessage message = new CmMessage();
    private final ByteBuffer out = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + TcpWireDescriptor.CM_MAX_DATA_LENGTH);
    private final ByteBuffer in = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + TcpWireDescriptor.CM_MAX_DATA_LENGTH);
    /** The connection data of a reject that ended the connect, or null. */
    private byte[] rejectData;

    TcpCmHandshake() {
        in.limit(TcpWireDescriptor.CM_HEADER_LENGTH);
    }

    /** The active side's request with {@code len} bytes of {@code param}, and JOFI's marker. */
    void request(byte[] param, int len) {
        out.clear();
        message.set(TcpWireDescriptor.CM_TYPE_REQUEST, param, 0, len).msgId(TcpWireDescriptor.CM_JOFI_MARKER).encode(out);
        out.flip();
    }

    /** The passive side's accept with {@code len} bytes of {@code param}; JOFI's marker when {@code jofi}. */
    void accept(byte[] param, int len, boolean jofi) {
        out.clear();
        message.set(TcpWireDescriptor.CM_TYPE_ACCEPT, param, 0, len)
                .msgId(jofi ? TcpWireDescriptor.CM_JOFI_MARKER : 0L).encode(out);
        out.flip();
    }

    /** Whether bytes of the request or accept are still to be written. */
    boolean writing() {
        return out.hasRemaining();
    }

    /** Writes what the socket takes of the request or accept. */
    void write(SocketChannel ch) throws IOException {
        ch.write(out);
    }

    /**
     * Active side: reads what has arrived of the response, never more than it.
     *
     * @return 0 while it is incomplete; 1 for an accept ({@link #message()}); else the
     *         negative errno the connect fails with: {@code -ENOPROTOOPT} for another wire
     *         version, {@code -ECONNREFUSED} for a reject ({@link #rejectData()}), malformed
     *         bytes, another type, or the socket's end
     */
    int readResponse(SocketChannel ch) {
        while (true) {
            try {
                if (ch.read(in) < 0) {
                    return -Errno.ECONNREFUSED;
                }
            } catch (IOException e) {
                return -Errno.ECONNREFUSED;
            }
            int status = message.decode(in.duplicate().flip());
            if (status == WireStatus.NEED_MORE) {
                if (in.limit() == TcpWireDescriptor.CM_HEADER_LENGTH && in.position() == in.limit()) {
                    // header complete but decode wants the data: extend to seg_size, read on
                    int seg = ((in.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET) & 0xFF) << 8)
                            | (in.get(TcpWireDescriptor.CM_SEG_SIZE_OFFSET + 1) & 0xFF);
                    in.limit(TcpWireDescriptor.CM_HEADER_LENGTH + seg);
                    continue;
                }
                return 0;
            }
            if (status == WireStatus.CM_WRONG_VERSION) {
                return -Errno.ENOPROTOOPT;
            }
            if (WireStatus.isError(status)) {
                return -Errno.ECONNREFUSED;
            }
            if (message.type() == TcpWireDescriptor.CM_TYPE_REJECT) {
                rejectData = message.dataCopy();
                return -Errno.ECONNREFUSED;
            }
            return message.type() == TcpWireDescriptor.CM_TYPE_ACCEPT ? 1 : -Errno.ECONNREFUSED;
        }
    }

    /** The accept that was read (its connection data, whether it carried JOFI's marker). */
    CmMessage message() {
        return message;
    }

    /** The connection data of the reject that ended the connect, or null. */
    byte[] rejectData() {
        return rejectData;
    }

    /** The length of connection data {@code param}, at most 256 bytes ({@code EINVAL} beyond). */
    static int checkData(String operation, byte[] param) throws FabricException {
        int len = param == null ? 0 : param.length;
        if (len > TcpProvider.CM_DATA_SIZE) {
            throw new FabricException(Errno.EINVAL, operation + ": " + len + " bytes of connection data; at most "
                    + TcpProvider.CM_DATA_SIZE);
        }
        return len;
    }
}
