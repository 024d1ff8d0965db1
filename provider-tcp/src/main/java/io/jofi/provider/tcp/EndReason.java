package io.jofi.provider.tcp;

import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * Why a connection ended, as the application gets it: a UTF-8 sentence carried as
 * {@code errData} of the error completions of the operations the end failed (their
 * {@code provErrno} says the kind: {@code EPROTO} for malformed input, {@code ETIMEDOUT} for
 * a stalled peer) and as the payload of the {@code FI_SHUTDOWN} event of an MSG endpoint.
 * Built only when a connection ends, never on the data path.
 */
final class EndReason {
    private EndReason() {
    }

    /**
     * The sentence {@code what} about the peer of {@code ch} ("malformed input from
     * /127.0.0.1:4000: ..."), as bytes handed to the queues (never reused, R3).
     */
    static byte[] of(SocketChannel ch, String kind, String what) {
        return (kind + " from " + peer(ch) + ": " + what).getBytes(StandardCharsets.UTF_8);
    }

    /** The peer's address, or "the peer" when the socket cannot tell (closed already). */
    static String peer(SocketChannel ch) {
        if (ch == null) {
            return "the peer";
        }
        try {
            SocketAddress a = ch.getRemoteAddress();
            return a == null ? "the peer" : a.toString();
        } catch (java.io.IOException | RuntimeException e) {
            return "the peer";
        }
    }
}
