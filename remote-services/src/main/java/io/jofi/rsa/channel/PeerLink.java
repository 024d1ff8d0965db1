package io.jofi.rsa.channel;

import java.util.concurrent.CompletableFuture;

/**
 * An importer's way to one exporter over one channel: the exporter's fabric address, its
 * {@code fi_addr_t} in the channel's AV, and the session the handshake gives (its token, or the
 * handshake's failure). A failed or lost session is started again by the next call.
 */
public final class PeerLink {
    final long peer;
    final byte[] address;
    final String name;
    private CompletableFuture<Long> session;
    long helloId;

    PeerLink(long peer, byte[] address, String name) {
        this.peer = peer;
        this.address = address;
        this.name = name;
    }

    /** The current session future, or {@code null} when a new handshake must start. */
    synchronized CompletableFuture<Long> current() {
        CompletableFuture<Long> s = session;
        if (s != null && s.isCompletedExceptionally()) {
            return null;
        }
        return s;
    }

    /** Starts a new session future (the caller sends HELLO with {@code helloId}). */
    synchronized CompletableFuture<Long> restart(long newHelloId) {
        session = new CompletableFuture<>();
        helloId = newHelloId;
        return session;
    }

    /** The session is lost (the peer went away): the next call greets the peer again. */
    synchronized void reset() {
        session = null;
    }

    /** The handshake under way failed (its message could not be delivered): the next call greets again. */
    synchronized void failHandshake(long failedHelloId, RuntimeException why) {
        if (session != null && helloId == failedHelloId) {
            session.completeExceptionally(why);
        }
    }

    synchronized CompletableFuture<Long> session() {
        return session;
    }
}
