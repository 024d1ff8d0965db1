package io.jofi.spi.util;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.FabricException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The {@link AddressResolver} of socket-address providers ({@code FI_SOCKADDR_IN},
 * {@code FI_SOCKADDR_IN6}, or either for {@code FI_FORMAT_UNSPEC}).
 *
 * <ul>
 * <li>{@link #resolve}: a node starting with {@code fi_} and no service is read as a text
 *     address ({@link Addresses#parse(String, AddrFormat)}); otherwise the node is a host name
 *     or numeric address (resolved with {@link InetAddress#getAllByName}, the first address of
 *     the AV's family is taken) and the service a decimal port 1..65535.</li>
 * <li>{@link #validate}: an address peers can be reached at: a non-zero port and not the
 *     wildcard address (fi_av(3): an AV holds the addresses of remote endpoints).</li>
 * </ul>
 */
public final class InetAddressResolver implements AddressResolver {
    private final AddrFormat format;

    /**
     * @param format {@code SOCKADDR_IN}, {@code SOCKADDR_IN6} or {@code UNSPEC} (either family)
     * @throws IllegalArgumentException for other formats
     */
    public InetAddressResolver(AddrFormat format) {
        if (format != AddrFormat.SOCKADDR_IN && format != AddrFormat.SOCKADDR_IN6 && format != AddrFormat.UNSPEC) {
            throw new IllegalArgumentException("InetAddressResolver resolves socket addresses, not " + format.fiName());
        }
        this.format = format;
    }

    @Override
    public byte[] resolve(String node, String service) throws FabricException {
        if (node == null) {
            throw new FabricException(Errno.EINVAL, "insertSvc: the node is null; give a host name or address");
        }
        if (service == null && node.toLowerCase(Locale.ROOT).startsWith("fi_")) {
            try {
                return Addresses.parse(node, format);
            } catch (IllegalArgumentException e) {
                throw new FabricException(Errno.EINVAL, "insertSvc: " + e.getMessage(), e);
            }
        }
        int port = port(node, service);
        InetAddress[] candidates;
        try {
            candidates = InetAddress.getAllByName(node);
        } catch (UnknownHostException e) {
            throw new FabricException(Errno.EADDRNOTAVAIL, "insertSvc: cannot resolve host '" + node + "': "
                    + e.getMessage(), e);
        }
        for (InetAddress a : candidates) {
            if (format == AddrFormat.UNSPEC
                    || (format == AddrFormat.SOCKADDR_IN && a instanceof Inet4Address)
                    || (format == AddrFormat.SOCKADDR_IN6 && a instanceof Inet6Address)) {
                return Addresses.toSockaddr(new InetSocketAddress(a, port));
            }
        }
        throw new FabricException(Errno.EADDRNOTAVAIL, "insertSvc: host '" + node + "' has no "
                + (format == AddrFormat.SOCKADDR_IN ? "IPv4" : "IPv6") + " address, which this "
                + format.fiName() + " address vector needs");
    }

    @Override
    public int validate(byte[] addr) {
        AddrFormat f = Addresses.formatOf(addr);
        if (f != AddrFormat.SOCKADDR_IN && f != AddrFormat.SOCKADDR_IN6) {
            return -Errno.EINVAL;
        }
        InetSocketAddress sa = Addresses.fromSockaddr(addr);
        return sa.getPort() == 0 || sa.getAddress().isAnyLocalAddress() ? -Errno.EINVAL : 0;
    }

    private static int port(String node, String service) throws FabricException {
        if (service == null) {
            throw new FabricException(Errno.EINVAL, "insertSvc: no service (port) given for node '" + node + "'");
        }
        int port;
        try {
            port = Integer.parseInt(service.trim());
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new FabricException(Errno.EINVAL, "insertSvc: service '" + service
                    + "' is not a port number 1..65535 (service names are not looked up)");
        }
        return port;
    }
}
