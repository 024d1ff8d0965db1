package io.jofi.provider.verbs;

/**
 * Layout and codec of the RDM hello: the connection data (inside {@link ConnData}'s frame) of
 * the rdma_cm connect request, accept and reject by which two {@link VerbsRdmEndpoint}s set up
 * their per-peer RC connection. It names the sender's listening address, so that the target
 * maps the connection to the sender's {@code fi_addr} (FI_SOURCE, R10) and to the raw address
 * {@code FI_SOURCE_ERR} reports; a reject says why.
 *
 * <pre>
 *  0        4        5        6          8
 *  +--------+--------+--------+----------+------------------------------------------+
 *  | "JVRD" | ver 1  | kind   | name_len | name: the sender's listening sockaddr    |
 *  +--------+--------+--------+----------+------------------------------------------+
 *  kind 1 HELLO (connect request, accept) · 2 REJECT_CROSSED (reject: the peer keeps the
 *  connection it initiated itself, see RdmPeers) · 3 REJECT_BAD_HELLO (no name)
 *  name_len is little-endian; at most 28 bytes (sockaddr_in6), so a hello fits the 55 bytes
 *  rdma_cm carries
 * </pre>
 */
final class VerbsRdmHelloDescriptor {
    /** Offset of the 4-byte magic "JVRD". */
    static final int MAGIC = 0;
    /** Offset of the version byte. */
    static final int VERSION = 4;
    /** Offset of the kind byte. */
    static final int KIND = 5;
    /** Offset of the 2-byte name length (little-endian). */
    static final int NAME_LEN = 6;
    /** Offset of the name. */
    static final int NAME = 8;
    /** The version written and accepted. */
    static final int VERSION_1 = 1;
    /** Kind: a connect request or accept carrying the sender's name. */
    static final int HELLO = 1;
    /** Kind: reject of a crossed connect; the rejecting side's own connection is kept. */
    static final int REJECT_CROSSED = 2;
    /** Kind: reject of a request without a valid hello. */
    static final int REJECT_BAD_HELLO = 3;
    /** The longest name (a sockaddr_in6). */
    static final int MAX_NAME = Sockaddrs.IN6;
    private static final byte[] MAGIC_BYTES = {'J', 'V', 'R', 'D'};

    private VerbsRdmHelloDescriptor() {
    }

    /**
     * Encodes a hello of {@code kind} naming {@code name} ({@code null}: none).
     *
     * @throws IllegalArgumentException for a name longer than {@link #MAX_NAME}
     */
    static byte[] encode(int kind, byte[] name) {
        int n = name == null ? 0 : name.length;
        if (n > MAX_NAME) {
            throw new IllegalArgumentException("an RDM hello names at most " + MAX_NAME + " bytes, not " + n);
        }
        byte[] out = new byte[NAME + n];
        System.arraycopy(MAGIC_BYTES, 0, out, MAGIC, 4);
        out[VERSION] = (byte) VERSION_1;
        out[KIND] = (byte) kind;
        out[NAME_LEN] = (byte) n;
        out[NAME_LEN + 1] = (byte) (n >>> 8);
        if (n > 0) {
            System.arraycopy(name, 0, out, NAME, n);
        }
        return out;
    }

    /** The kind of a well-formed hello of version 1, else -1. */
    static int kind(byte[] hello) {
        if (hello == null || hello.length < NAME || hello[VERSION] != VERSION_1) {
            return -1;
        }
        for (int i = 0; i < 4; i++) {
            if (hello[MAGIC + i] != MAGIC_BYTES[i]) {
                return -1;
            }
        }
        int n = nameLength(hello);
        return n > MAX_NAME || NAME + n > hello.length ? -1 : hello[KIND] & 0xFF;
    }

    /** The name a well-formed hello carries ({@code null} when it is malformed or names none). */
    static byte[] name(byte[] hello) {
        if (kind(hello) < 0) {
            return null;
        }
        int n = nameLength(hello);
        if (n == 0) {
            return null;
        }
        byte[] name = new byte[n];
        System.arraycopy(hello, NAME, name, 0, n);
        return name;
    }

    private static int nameLength(byte[] hello) {
        return (hello[NAME_LEN] & 0xFF) | (hello[NAME_LEN + 1] & 0xFF) << 8;
    }
}
