package io.jofi.provider.tcp.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The byte layout of JOFI's RDM hello: the connection data that two tcp RDM endpoints put in
 * the CM messages of libfabric's handshake ({@link TcpWireDescriptor}, type request / accept /
 * reject) when they connect on first use. docs/TCP-WIRE.md leaves the RDM set-up to the provider
 * ("RDM endpoints"); the framing stays libfabric's, only the connection data is JOFI's.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  magic 'J' 'R' 'D' 'M'                        |  0
 *  +---------------+---------------+-------------------------------+
 *  |  version (1)  |     kind      |  name_len (network order)     |  4
 *  +---------------+---------------+-------------------------------+
 *  |  name: name_len bytes, the sender's listening sockaddr       ...  8
 *  |  (16 bytes sockaddr_in or 28 bytes sockaddr_in6, as           |
 *  |   io.jofi.Addresses writes them; empty in a reject)          |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Kinds: {@link #KIND_HELLO} in a request (the initiator's name, so that the acceptor maps the
 * connection to an {@code fi_addr} by reverse AV lookup, FI_SOURCE) and in an accept (the
 * acceptor's name); {@link #KIND_REJECT_CROSSED} in a reject when both endpoints connected to
 * each other at once and the other connection wins; {@link #KIND_REJECT_BAD_HELLO} in a reject
 * of a request whose connection data is not a hello. Every multi-byte field is big-endian. The
 * whole hello is at most {@link #MAX_LENGTH} bytes, far below the 256 bytes of connection data a
 * CM message carries.
 */
public final class TcpRdmHelloDescriptor {

    private TcpRdmHelloDescriptor() {
    }

    /** Offset of the four-byte magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the one-byte hello version. */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the one-byte kind. */
    public static final int KIND_OFFSET = 5;
    /** Offset of the two-byte name length (network order). */
    public static final int NAME_LENGTH_OFFSET = 6;
    /** Offset of the name. */
    public static final int NAME_OFFSET = 8;
    /** Longest name: a sockaddr_in6. */
    public static final int MAX_NAME_LENGTH = 28;
    /** Longest hello. */
    public static final int MAX_LENGTH = NAME_OFFSET + MAX_NAME_LENGTH;

    /** {@code 'J' 'R' 'D' 'M'} read big-endian. */
    public static final int MAGIC = 0x4A52444D;
    /** The hello version this provider writes and accepts. */
    public static final int VERSION = 1;

    /** Request or accept: the sender's listening name follows. */
    public static final int KIND_HELLO = 1;
    /** Reject: both endpoints connected to each other at once; the connection the other way is kept. */
    public static final int KIND_REJECT_CROSSED = 2;
    /** Reject: the request's connection data was not a hello of this version. */
    public static final int KIND_REJECT_BAD_HELLO = 3;
    /** What {@link #kind} answers for bytes that are not a hello of this version. */
    public static final int NOT_A_HELLO = -1;

    /**
     * Encodes a hello of {@code kind} with {@code name} (may be null or empty in a reject).
     * Connection set-up path: allocates the result.
     *
     * @throws IllegalArgumentException for a name longer than {@link #MAX_NAME_LENGTH}
     */
    public static byte[] encode(int kind, byte[] name) {
        int n = name == null ? 0 : name.length;
        if (n > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("an RDM name is at most " + MAX_NAME_LENGTH + " bytes, got " + n);
        }
        ByteBuffer b = ByteBuffer.allocate(NAME_OFFSET + n).order(ByteOrder.BIG_ENDIAN);
        b.putInt(MAGIC_OFFSET, MAGIC);
        b.put(VERSION_OFFSET, (byte) VERSION);
        b.put(KIND_OFFSET, (byte) kind);
        b.putShort(NAME_LENGTH_OFFSET, (short) n);
        if (n > 0) {
            b.put(NAME_OFFSET, name, 0, n);
        }
        return b.array();
    }

    /**
     * The kind of the hello in {@code data[0, length)}, or {@link #NOT_A_HELLO} when the bytes
     * are too short, carry another magic or version, or a name length that does not match
     * {@code length} exactly. Never throws for a peer's bytes.
     */
    public static int kind(byte[] data, int length) {
        if (data == null || length < NAME_OFFSET || length > data.length) {
            return NOT_A_HELLO;
        }
        ByteBuffer b = ByteBuffer.wrap(data, 0, length).order(ByteOrder.BIG_ENDIAN);
        if (b.getInt(MAGIC_OFFSET) != MAGIC || (b.get(VERSION_OFFSET) & 0xFF) != VERSION) {
            return NOT_A_HELLO;
        }
        int n = b.getShort(NAME_LENGTH_OFFSET) & 0xFFFF;
        if (n > MAX_NAME_LENGTH || NAME_OFFSET + n != length) {
            return NOT_A_HELLO;
        }
        return data[KIND_OFFSET] & 0xFF;
    }

    /**
     * The name carried by a valid hello ({@link #kind} not {@link #NOT_A_HELLO}): a copy, empty
     * when none.
     */
    public static byte[] name(byte[] data, int length) {
        int n = ((data[NAME_LENGTH_OFFSET] & 0xFF) << 8) | (data[NAME_LENGTH_OFFSET + 1] & 0xFF);
        byte[] out = new byte[Math.min(n, Math.max(0, length - NAME_OFFSET))];
        System.arraycopy(data, NAME_OFFSET, out, 0, out.length);
        return out;
    }
}
