package io.jofi.rsa.channel;

/**
 * What a channel needs to know from the configuration.
 *
 * @param timeoutMillis default bound of a call (an endpoint's {@code io.jofi.rsa.timeout} overrides it)
 * @param secret the shared secret importers must prove, or {@code null} for none
 * @param inlineLimit bodies up to this many bytes travel in the message; longer ones by RMA rendezvous
 * @param receives receive buffers kept posted
 * @param pingMillis how often a peer with calls waiting is checked with a delivery-complete ping
 * @param node the local node to bind (tcp: an interface address), or {@code null} for the provider's choice
 */
public record ChannelSettings(long timeoutMillis, byte[] secret, int inlineLimit, int receives, long pingMillis,
                              String node) {
    /** Message bytes a receive buffer holds: the header and an inline body. */
    public int receiveBytes() {
        return io.jofi.rsa.wire.CallDescriptor.HEADER + Math.max(inlineLimit, io.jofi.rsa.wire.CallDescriptor.RENDEZVOUS_BODY);
    }
}
