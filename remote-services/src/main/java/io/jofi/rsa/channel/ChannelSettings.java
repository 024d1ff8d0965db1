package io.jofi.rsa.channel;

import io.jofi.rsa.wire.CallDescriptor;

/**
 * What a channel needs to know from the configuration.
 *
 * @param timeoutMillis default bound of a call (an endpoint's {@code io.jofi.rsa.timeout} overrides it)
 * @param secret the shared secret importers must prove, or {@code null} for none
 * @param inlineLimit bodies up to this many bytes travel in the message, longer ones by RMA rendezvous;
 *        at most {@link #MAX_INLINE} (what every peer's receive buffers hold, whatever its own settings)
 * @param receives receive buffers kept posted
 * @param pingMillis how often a peer with calls waiting is checked with a delivery-complete ping
 * @param node the local node to bind (tcp: an interface address), or {@code null} for the provider's choice
 */
public record ChannelSettings(long timeoutMillis, byte[] secret, int inlineLimit, int receives, long pingMillis,
                              String node) {
    /** The largest inline body: part of the protocol, so peers with different settings agree. */
    public static final int MAX_INLINE = 64 * 1024;

    public ChannelSettings {
        if (inlineLimit < CallDescriptor.RENDEZVOUS_BODY || inlineLimit > MAX_INLINE) {
            throw new IllegalArgumentException("io.jofi.rsa.inline.limit must be within [" + CallDescriptor.RENDEZVOUS_BODY
                    + ", " + MAX_INLINE + "], not " + inlineLimit);
        }
        if (timeoutMillis <= 0 || receives <= 0 || pingMillis <= 0) {
            throw new IllegalArgumentException("timeout, receives and ping period must be positive: " + timeoutMillis
                    + " ms, " + receives + ", " + pingMillis + " ms");
        }
    }

    /** Bytes of every receive buffer: a header and the largest inline body. */
    public static int receiveBytes() {
        return CallDescriptor.HEADER + MAX_INLINE;
    }

    /** The longest message this side sends inline. */
    public int sendInlineBytes() {
        return CallDescriptor.HEADER + inlineLimit;
    }
}
