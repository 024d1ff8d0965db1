package io.jofi.provider.tcp;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import java.net.InetSocketAddress;

/**
 * Whether the name an RDM peer announces in its hello can be a tcp RDM endpoint's name: a
 * {@code sockaddr_in} (16 bytes, family 2, {@code sin_zero} zero) or {@code sockaddr_in6} (28
 * bytes, family 10) of a unicast address that is not the wildcard, with a port other than 0
 * — what {@code TcpRdmEndpoint.getName} gives. Anything else cannot be answered (the replies
 * would go to an address nobody listens on, or to whoever the wildcard reaches), so the request
 * is refused. This is a format check, not authentication: as in libfabric, a peer can announce
 * any well-formed name (provider-tcp/README.md, "Security notes").
 */
final class PeerNameCheck {
    private PeerNameCheck() {
    }

    /**
     * What is wrong with {@code name} as a peer's name, or null when nothing is.
     *
     * @param name the announced name (the hello's name bytes)
     */
    static String problem(byte[] name) {
        AddrFormat f = Addresses.formatOf(name);
        if (f != AddrFormat.SOCKADDR_IN && f != AddrFormat.SOCKADDR_IN6) {
            return "not a sockaddr_in or sockaddr_in6 (" + (name == null ? 0 : name.length) + " bytes)";
        }
        if (f == AddrFormat.SOCKADDR_IN) {
            for (int i = 8; i < 16; i++) {
                if (name[i] != 0) {
                    return "sockaddr_in with a non-zero sin_zero";
                }
            }
        }
        InetSocketAddress a = Addresses.fromSockaddr(name);
        if (a.getPort() == 0) {
            return "port 0";
        }
        if (a.getAddress().isAnyLocalAddress()) {
            return "the wildcard address";
        }
        if (a.getAddress().isMulticastAddress()) {
            return "a multicast address";
        }
        return null;
    }
}
