package io.jofi.provider.rxm;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * An rxm endpoint's listening address as rxm uses it: its name (never a wildcard, since peers
 * connect to it) and rxm's order of two names, which settles crossed connection requests
 * ({@link RxmConnectionManager}).
 */
final class RxmListenAddresses {
    private RxmListenAddresses() {
    }

    /**
     * Our name is what peers connect to, so never a wildcard: a listener bound to every
     * address is named by the address of the info's interface (same family), else loopback.
     */
    static InetSocketAddress concrete(InetSocketAddress bound, String ifName) {
        InetAddress a = bound.getAddress();
        if (!a.isAnyLocalAddress()) {
            return bound;
        }
        boolean v6 = a instanceof java.net.Inet6Address;
        try {
            java.net.NetworkInterface nif = ifName == null ? null : java.net.NetworkInterface.getByName(ifName);
            if (nif != null) {
                for (InetAddress x : java.util.Collections.list(nif.getInetAddresses())) {
                    if ((x instanceof java.net.Inet6Address) == v6 && !x.isLinkLocalAddress()) {
                        return new InetSocketAddress(x, bound.getPort());
                    }
                }
            }
            return new InetSocketAddress(v6 ? InetAddress.getByName("::1") : InetAddress.getByName("127.0.0.1"),
                    bound.getPort());
        } catch (java.io.IOException e) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort());
        }
    }

    /**
     * rxm's order of two listening addresses: the IP address bytes (network order) first, then
     * the port bytes (network order), compared as unsigned bytes; IPv4 and IPv6 alike.
     */
    static int compare(InetSocketAddress a, InetSocketAddress b) {
        byte[] x = a.getAddress().getAddress();
        byte[] y = b.getAddress().getAddress();
        int n = Math.min(x.length, y.length);
        for (int i = 0; i < n; i++) {
            int d = (x[i] & 0xFF) - (y[i] & 0xFF);
            if (d != 0) {
                return d;
            }
        }
        if (x.length != y.length) {
            return x.length - y.length;
        }
        int pa = a.getPort();
        int pb = b.getPort();
        int d = (pa >>> 8) - (pb >>> 8);
        return d != 0 ? d : (pa & 0xFF) - (pb & 0xFF);
    }
}
