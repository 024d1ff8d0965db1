package io.jofi.conformance;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Well-formed peer addresses in a provider's address format, for address-vector tests that
 * need more addresses than there are endpoints (an AV stores addresses; it need not reach
 * them). Loopback addresses with distinct ports for the socket formats, distinct texts for
 * {@code FI_ADDR_STR}.
 */
public final class SampleAddresses {
    private SampleAddresses() {
    }

    /** The {@code i}-th sample address (distinct for distinct {@code i}) in {@code format}. */
    public static byte[] of(AddrFormat format, String provider, int i) {
        int port = 40_000 + i;
        try {
            switch (format) {
                case SOCKADDR_IN:
                    return Addresses.toSockaddr(new InetSocketAddress(
                            InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port));
                case SOCKADDR_IN6:
                    return Addresses.toSockaddr(new InetSocketAddress(
                            InetAddress.getByAddress(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}), port));
                case SOCKADDR_IB:
                    return Addresses.parse("fi_sockaddr_ib://[fe80::" + Integer.toHexString(i + 1)
                            + "]:0xffff:0x106:0x0:0x" + Integer.toHexString(port));
                default:
                    return Addresses.parse("fi_" + provider + "://conformance-peer-" + i, AddrFormat.ADDR_STR);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a literal address cannot be unknown", e);
        }
    }
}
