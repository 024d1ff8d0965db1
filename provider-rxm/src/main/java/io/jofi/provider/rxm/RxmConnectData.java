package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The connection data of rxm's handshake as values, and its codec: what the requester sends
 * with connect, what the acceptor answers with accept, and the reason of a reject
 * ({@link RxmWireDescriptor}, "Connect data"). Control path: it allocates its byte arrays.
 */
public final class RxmConnectData {
    /** Why connect data is refused: null when it is acceptable. */
    public String problem;
    public int version = CM_DATA_VERSION;
    public int endianness = ENDIAN_LITTLE;
    public int ctrlVersion = CTRL_VERSION;
    public int opVersion = CM_OP_VERSION;
    /** The port the requester's passive endpoint listens on. */
    public int port;
    public int flowCtrl = FLOW_CTRL_OFF;
    public long eagerLimit = DEFAULT_EAGER_LIMIT;
    public long rxSize;
    /** The sender's connection id ({@code client_conn_id} or {@code server_conn_id}). */
    public long connId;

    /** A connection id as rxm forms it: the process id above, the sender's index of the peer below. */
    public static long connId(long pid, int peerIndex) {
        return (pid << 32) | (peerIndex & 0xFFFF_FFFFL);
    }

    /** The peer index of a connection id (what goes into each packet's {@code conn_id}). */
    public static int peerIndex(long connId) {
        return (int) connId;
    }

    /** The process id of a connection id. */
    public static long pid(long connId) {
        return connId >>> 32;
    }

    /** The connect data (24 bytes). */
    public byte[] encodeConnect() {
        ByteBuffer b = ByteBuffer.allocate(CONNECT_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.put(CONNECT_VERSION, (byte) version);
        b.put(CONNECT_ENDIANNESS, (byte) endianness);
        b.put(CONNECT_CTRL_VERSION, (byte) ctrlVersion);
        b.put(CONNECT_OP_VERSION, (byte) opVersion);
        b.putShort(CONNECT_PORT, (short) port);
        b.put(CONNECT_FLOW_CTRL, (byte) flowCtrl);
        b.putInt(CONNECT_EAGER_LIMIT, (int) eagerLimit);
        b.putInt(CONNECT_RX_SIZE, (int) rxSize);
        b.putLong(CONNECT_CONN_ID, connId);
        return b.array();
    }

    /**
     * Reads connect data; {@link #problem} says why it must be refused (too short, another
     * version or byte order, an eager limit other than {@code ourEagerLimit}, listening port
     * 0), else null.
     */
    public RxmConnectData decodeConnect(byte[] data, int length, long ourEagerLimit) {
        problem = null;
        if (data == null || length < CONNECT_LENGTH) {
            problem = "connect data of " + length + " bytes, rxm sends " + CONNECT_LENGTH;
            return this;
        }
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        version = b.get(CONNECT_VERSION) & 0xFF;
        endianness = b.get(CONNECT_ENDIANNESS) & 0xFF;
        ctrlVersion = b.get(CONNECT_CTRL_VERSION) & 0xFF;
        opVersion = b.get(CONNECT_OP_VERSION) & 0xFF;
        port = b.getShort(CONNECT_PORT) & 0xFFFF;
        flowCtrl = b.get(CONNECT_FLOW_CTRL) & 0xFF;
        eagerLimit = b.getInt(CONNECT_EAGER_LIMIT) & 0xFFFF_FFFFL;
        rxSize = b.getInt(CONNECT_RX_SIZE) & 0xFFFF_FFFFL;
        connId = b.getLong(CONNECT_CONN_ID);
        if (version != CM_DATA_VERSION) {
            problem = "connection data version " + version + ", expected " + CM_DATA_VERSION;
        } else if (endianness != ENDIAN_LITTLE) {
            problem = "peer byte order " + endianness + ", expected little-endian (" + ENDIAN_LITTLE + ")";
        } else if (ctrlVersion != CTRL_VERSION) {
            problem = "control header version " + ctrlVersion + ", expected " + CTRL_VERSION;
        } else if (opVersion != CM_OP_VERSION) {
            problem = "operation version " + opVersion + ", expected " + CM_OP_VERSION;
        } else if (eagerLimit != ourEagerLimit) {
            problem = "eager limit " + eagerLimit + ", ours is " + ourEagerLimit;
        } else if (port == 0) {
            // the requester's name is its address and this port: port 0 names no listener, the
            // address vector refuses that name, and the peer would never be answered
            problem = "listening port 0";
        }
        return this;
    }

    /** The accept data (16 bytes). */
    public byte[] encodeAccept() {
        ByteBuffer b = ByteBuffer.allocate(ACCEPT_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(ACCEPT_CONN_ID, connId);
        b.putInt(ACCEPT_RX_SIZE, (int) rxSize);
        b.put(ACCEPT_FLOW_CTRL, (byte) flowCtrl);
        return b.array();
    }

    /** Reads accept data; {@link #problem} is set when it is too short. */
    public RxmConnectData decodeAccept(byte[] data, int length) {
        problem = null;
        if (data == null || length < ACCEPT_LENGTH) {
            problem = "accept data of " + length + " bytes, rxm sends " + ACCEPT_LENGTH;
            return this;
        }
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        connId = b.getLong(ACCEPT_CONN_ID);
        rxSize = b.getInt(ACCEPT_RX_SIZE) & 0xFFFF_FFFFL;
        flowCtrl = b.get(ACCEPT_FLOW_CTRL) & 0xFF;
        return this;
    }

    /** The reject data (2 bytes) with {@code reason}. */
    public static byte[] encodeReject(int reason) {
        return new byte[] {(byte) CM_DATA_VERSION, (byte) reason};
    }

    /**
     * The reason of a reject's data, as rxm reads it: data too short or of another version
     * counts as {@link RxmWireDescriptor#REJECT_REFUSED}.
     */
    public static int rejectReason(byte[] data, int length) {
        if (data == null || length < REJECT_LENGTH || (data[REJECT_VERSION] & 0xFF) != CM_DATA_VERSION) {
            return REJECT_REFUSED;
        }
        return data[REJECT_REASON] & 0xFF;
    }
}
