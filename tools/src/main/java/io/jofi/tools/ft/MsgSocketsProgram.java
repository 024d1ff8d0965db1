package io.jofi.tools.ft;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import static io.jofi.tools.ft.FtCalls.call;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * fabtests' {@code fi_msg_sockets}: fi_msg's connection and greeting with the addresses of
 * sockets. Each side needs {@code -s}; it opens a passive endpoint on its own address
 * ({@code -B}, the server's default 9228 and the client's 9229) and prints it as
 * {@code bound_addr: "[host]:port"}. The server listens on it; the client's endpoint takes
 * the passive endpoint's address as its source (C: {@code hints->handle = pep}; JOFI: the
 * info's source address, the pep closed before the endpoint binds), and each side checks that
 * its endpoint's {@code fi_getname} is the bound address after accept, before and after
 * connect ({@code check_address}).
 */
final class MsgSocketsProgram extends MsgProgram {
    /** msg_sockets' own default source port when -B is not given (the client's). */
    private static final String CLIENT_PORT = "9229";
    private byte[] boundAddr;

    @Override
    String name() {
        return "fi_msg_sockets";
    }

    @Override
    void run(FtSession s) {
        FtOptions opts = s.opts;
        if (!opts.client() && opts.srcPort == null) {
            opts.srcPort = FtOptions.DEFAULT_PORT; // ft_read_addr_opts: the server's service
        }
        if (opts.srcPort == null) {
            opts.srcPort = CLIENT_PORT;
        }
        if (opts.srcAddr == null) {
            throw new FtError(-1, "Source address (-s) is required for this test");
        }
        setupHandle(s);
        try {
            if (opts.client()) {
                clientConnect(s);
            } else {
                call("fi_pep_bind", () -> s.pep.bind(s.eq, 0));
                call("fi_listen", () -> s.pep.listen());
                FtConnections.serverConnect(s);
                checkAddress(s, s.ep.getName(), "accept");
            }
            Greeting.sendOrReceive(s);
        } catch (io.jofi.FabricException e) {
            throw FtCalls.printErr("fi_getname", -e.errno(), e.getMessage());
        } finally {
            s.shutdown();
        }
    }

    /** setup_handle: the passive endpoint on {@code -s}:{@code -B}, its address printed. */
    private void setupHandle(FtSession s) {
        InetAddress local;
        try {
            local = InetAddress.getByName(s.opts.srcAddr);
        } catch (UnknownHostException e) {
            throw new FtError(-Errno.ENODATA, "getaddrinfo: " + e.getMessage());
        }
        s.hints.addrFormat(local instanceof Inet6Address ? AddrFormat.SOCKADDR_IN6 : AddrFormat.SOCKADDR_IN);
        Info pepInfo = FtGetinfo.first(s, s.opts.srcAddr, s.opts.srcPort, Fi.FI_SOURCE, s.hints.copy());
        FtConnections.openPassive(s, pepInfo);
        boundAddr = call("fi_getname", () -> s.pep.getName());
        if (Addresses.fromSockaddr(boundAddr).getPort() == 0) {
            throw new FtError(-Errno.EINVAL, "port number is 0 after fi_setname()");
        }
        s.out.println("bound_addr: \"" + text(boundAddr) + "\"");
        s.hints.srcAddr(boundAddr);
    }

    /** client_connect: the endpoint on the bound address, the pep closed, connect, the checks. */
    private void clientConnect(FtSession s) throws io.jofi.FabricException {
        String port = s.opts.dstPort != null ? s.opts.dstPort : FtOptions.DEFAULT_PORT;
        s.info = FtGetinfo.first(s, s.opts.dstAddr, port, 0, s.hints);
        // C's hints->handle = pep: the endpoint takes on the pep's address; JOFI names it as the
        // info's source address (the provider picks its own source for a destination)
        s.info.srcAddr(boundAddr);
        call("fi_domain", () -> s.domain = s.track(s.fabric.domain(s.info, null)));
        checkAddress(s, s.pep.getName(), "fi_endpoint (pep)");
        s.allocActiveRes(s.info);
        s.closeNow(s.pep);
        s.pep = null;
        s.enableEpRecv();
        checkAddress(s, s.ep.getName(), "fi_endpoint (ep)");
        call("fi_connect", () -> s.ep.connect(s.info.destAddr(), null));
        FtConnections.completeConnect(s);
        checkAddress(s, s.ep.getName(), "connect");
    }

    /** check_address: the name equals the bound address (any port-holding wildcard bound address matches). */
    private void checkAddress(FtSession s, byte[] name, String when) {
        InetSocketAddress actual = Addresses.fromSockaddr(name);
        InetSocketAddress expected = Addresses.fromSockaddr(boundAddr);
        boolean same = name.length == boundAddr.length
                && (expected.getAddress().isAnyLocalAddress() || actual.equals(expected));
        if (!same) {
            throw new FtError(-Errno.EINVAL, "address changed after " + when + ": got " + text(name)
                    + " expected " + text(boundAddr));
        }
    }

    /** sockaddrstr: {@code [host]:port}, the host numeric. */
    private static String text(byte[] sockaddr) {
        String t = Addresses.toString(sockaddr);
        String rest = t.substring(t.indexOf("://") + 3);
        if (rest.startsWith("[")) {
            return rest;
        }
        int colon = rest.lastIndexOf(':');
        return "[" + rest.substring(0, colon) + "]" + rest.substring(colon);
    }
}
