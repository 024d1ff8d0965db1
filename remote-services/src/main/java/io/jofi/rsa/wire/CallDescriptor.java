package io.jofi.rsa.wire;

import java.nio.ByteBuffer;

/**
 * The layout of every message the remote-services channel sends: a 40-byte header followed by
 * a body, carried as one tagged message ({@link #TAG}) on the channel's RDM endpoint.
 *
 * <pre>
 *  0       1       2               4                               8
 *  +-------+-------+---------------+-------------------------------+
 *  | kind  | flags |   reserved    |  signature (i32, calls only)  |
 *  +-------+-------+---------------+-------------------------------+
 *  |                       call id (i64)                           |  8
 *  +---------------------------------------------------------------+
 *  |                  session token (i64)                          | 16
 *  +---------------------------------------------------------------+
 *  |               exported service id (i64)                       | 24
 *  +-------------------------------+-------------------------------+
 *  |  method index (i32)           |  body length (i32)            | 32
 *  +-------------------------------+-------------------------------+
 *  |  body: {@link ValueCodec} values, or the kind's own body ...  | 40
 * </pre>
 *
 * <p>Kinds and their bodies:
 * <ul>
 * <li>{@link #CALL}: the arguments, one value each; {@code signature} is the hash of the method's
 *     name and parameter types, so a method table that differs between the two sides is an
 *     error, never a call of the wrong method.
 * <li>{@link #REPLY_VALUE}: one value (the result); {@link #REPLY_THROWN}: one value (the
 *     Throwable the service threw); {@link #REPLY_FAILURE}: a UTF-8 sentence (why the exporter
 *     could not call the service: refused argument, unknown service, method mismatch).
 * <li>{@link #HELLO} (importer to exporter): the importer's fabric address;
 *     {@link #CHALLENGE}: a 16-byte nonce, {@code session} the provisional token;
 *     {@link #PROOF}: HMAC-SHA256(secret, nonce || importer address), 32 bytes;
 *     {@link #WELCOME}: no body, {@code session} the token every later call carries;
 *     {@link #REFUSED}: no body.
 * <li>{@link #PING}: no body; sent with delivery completion while calls wait for a peer, so a
 *     dead peer fails them within the provider's detection bound.
 * <li>Any kind with {@link #FLAG_RENDEZVOUS}: the real message (header and body, longer than the
 *     inline limit) waits in a region registered for remote reads; the body here is its
 *     rendezvous id (i64), address (i64), key (i64) and length (i32). The receiver reads it with
 *     {@code fi_read} and answers {@link #RENDEZVOUS_DONE} with the id in {@code call id}.
 * </ul>
 * All numbers are little-endian (the JVMs on both sides use the same layout through
 * {@link ByteBuffer} absolute accessors with this order).
 */
public final class CallDescriptor {
    /** The tag of every message of the channel ("JOFIRSA" and a version byte). */
    public static final long TAG = 0x4A4F4649_52534101L;

    public static final int KIND = 0;
    public static final int FLAGS = 1;
    public static final int SIGNATURE = 4;
    public static final int CALL_ID = 8;
    public static final int SESSION = 16;
    public static final int SERVICE = 24;
    public static final int METHOD = 32;
    public static final int BODY_LENGTH = 36;
    /** Header bytes; the body starts here. */
    public static final int HEADER = 40;

    public static final byte CALL = 1;
    public static final byte REPLY_VALUE = 2;
    public static final byte REPLY_THROWN = 3;
    public static final byte REPLY_FAILURE = 4;
    public static final byte HELLO = 5;
    public static final byte CHALLENGE = 6;
    public static final byte PROOF = 7;
    public static final byte WELCOME = 8;
    public static final byte REFUSED = 9;
    public static final byte PING = 10;
    public static final byte RENDEZVOUS_DONE = 11;

    /** The body is a rendezvous announcement (see the class comment). */
    public static final int FLAG_RENDEZVOUS = 1;
    /** Bytes of a rendezvous announcement's body: id, address, key, length. */
    public static final int RENDEZVOUS_BODY = 28;

    private CallDescriptor() {
    }

    /** Writes a header at offset 0 of {@code buf} (absolute puts; position and limit unchanged). */
    public static void header(ByteBuffer buf, byte kind, int flags, int signature, long callId, long session,
                              long service, int method, int bodyLength) {
        buf.put(KIND, kind);
        buf.put(FLAGS, (byte) flags);
        buf.putShort(2, (short) 0);
        buf.putInt(SIGNATURE, signature);
        buf.putLong(CALL_ID, callId);
        buf.putLong(SESSION, session);
        buf.putLong(SERVICE, service);
        buf.putInt(METHOD, method);
        buf.putInt(BODY_LENGTH, bodyLength);
    }

    public static byte kind(ByteBuffer msg) {
        return msg.get(KIND);
    }

    public static int flags(ByteBuffer msg) {
        return msg.get(FLAGS) & 0xff;
    }

    public static int signature(ByteBuffer msg) {
        return msg.getInt(SIGNATURE);
    }

    public static long callId(ByteBuffer msg) {
        return msg.getLong(CALL_ID);
    }

    public static long session(ByteBuffer msg) {
        return msg.getLong(SESSION);
    }

    public static long service(ByteBuffer msg) {
        return msg.getLong(SERVICE);
    }

    public static int method(ByteBuffer msg) {
        return msg.getInt(METHOD);
    }

    public static int bodyLength(ByteBuffer msg) {
        return msg.getInt(BODY_LENGTH);
    }

    /** Names a kind for messages to people. */
    public static String kindName(int kind) {
        return switch (kind) {
            case CALL -> "CALL";
            case REPLY_VALUE -> "REPLY_VALUE";
            case REPLY_THROWN -> "REPLY_THROWN";
            case REPLY_FAILURE -> "REPLY_FAILURE";
            case HELLO -> "HELLO";
            case CHALLENGE -> "CHALLENGE";
            case PROOF -> "PROOF";
            case WELCOME -> "WELCOME";
            case REFUSED -> "REFUSED";
            case PING -> "PING";
            case RENDEZVOUS_DONE -> "RENDEZVOUS_DONE";
            default -> "kind " + kind;
        };
    }
}
