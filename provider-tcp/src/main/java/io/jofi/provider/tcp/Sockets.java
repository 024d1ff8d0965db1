package io.jofi.provider.tcp;

import io.jofi.Addresses;
import io.jofi.Errno;
import io.jofi.FabricException;
import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * How the provider's listeners are opened and accept, how a connect binds its source address,
 * and what a failed bind means: the control-path socket steps the endpoints share.
 */
final class Sockets {
    /** The listen backlog: connection requests the kernel queues before the CM loop accepts them. */
    static final int BACKLOG = 512;

    private Sockets() {
    }

    /** The protocol family of sockets to or from {@code a}. */
    static ProtocolFamily family(InetAddress a) {
        return a instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
    }

    /**
     * The errno of a {@link BindException} binding {@code local}: {@code EADDRNOTAVAIL} when this
     * host has no such address, else {@code EADDRINUSE} (the address is there, so its port was
     * what could not be taken); {@code EIO} when no socket can be opened to find out.
     *
     * <p>Java reports every bind errno (EADDRINUSE, EADDRNOTAVAIL, EACCES) as the same
     * exception type, and its message is the C library's {@code strerror} text in the JVM's
     * locale, so neither tells which it was. What the host has does: a second socket bound to
     * the same address with port 0 (any free port) succeeds exactly when the address is one of
     * this host's. Control path only (a failed bind), so the extra socket costs nothing that matters.
     */
    static int bindErrno(InetSocketAddress local) {
        try (SocketChannel probe = SocketChannel.open(family(local.getAddress()))) {
            probe.bind(new InetSocketAddress(local.getAddress(), 0));
            return Errno.EADDRINUSE;
        } catch (BindException e) {
            return Errno.EADDRNOTAVAIL;
        } catch (IOException e) {
            return Errno.EIO;
        }
    }

    /**
     * The control-path exception of a failed bind of {@code local} (errno by {@link #bindErrno}),
     * with {@code what} and the JDK's message.
     */
    static FabricException bindFailed(String what, InetSocketAddress local, BindException e) {
        return new FabricException(bindErrno(local), what + " " + text(local) + ": " + e.getMessage(), e);
    }

    /** {@code local} in libfabric's text form ({@code fi_sockaddr_in://0.0.0.0:9228}), not Java's {@code /0.0.0.0:9228}. */
    static String text(InetSocketAddress local) {
        return local.isUnresolved() ? local.getHostString() + ":" + local.getPort()
                : Addresses.toString(Addresses.toSockaddr(local));
    }

    /**
     * A non-blocking server socket bound to {@code local}, with the provider's options, not yet
     * registered with a loop; a port 0 takes a port of the provider's {@link PortRange} when
     * one is set.
     *
     * @param op the call that listens, for the message
     * @throws FabricException {@code EADDRINUSE} / {@code EADDRNOTAVAIL} when the address cannot
     *         be bound ({@link #bindErrno}), {@code EIO} for any other socket failure; nothing
     *         stays open then
     */
    static ServerSocketChannel listen(TcpProvider provider, InetSocketAddress local, String op) throws FabricException {
        ServerSocketChannel s = null;
        try {
            s = ServerSocketChannel.open(family(local.getAddress()));
            s.configureBlocking(false);
            provider.configure(s);
            PortRange range = provider.portRange();
            if (local.getPort() == 0 && !range.isAny()) {
                range.bind(s, local.getAddress(), BACKLOG);
            } else {
                s.bind(local, BACKLOG);
            }
            return s;
        } catch (BindException e) {
            closeQuietly(s);
            throw bindFailed(op + ": cannot listen on", local, e);
        } catch (IOException e) {
            closeQuietly(s);
            throw new FabricException(Errno.EIO, op + ": cannot listen on " + text(local) + ": " + e.getMessage(), e);
        }
    }

    /**
     * The next connection waiting on {@code server}, non-blocking and with the provider's data
     * options; {@code null} when none waits, or when accepting failed (the server was closed
     * under us, or a transient failure: the selector's next pass tries again). A socket that
     * cannot be configured is closed and the next one taken.
     */
    static SocketChannel acceptNext(TcpProvider provider, ServerSocketChannel server) {
        return acceptNext(provider, server, null, null);
    }

    /**
     * As {@link #acceptNext(TcpProvider, ServerSocketChannel)}; a failed {@code accept} (other
     * than a closed server: e.g. {@code EMFILE}, the process is out of file descriptors) pauses
     * {@code key}'s accepting through {@code timer} ({@link ConnectionSetupTimer#acceptFailed})
     * instead of leaving the readiness to be selected again at once (a spinning CM thread).
     */
    static SocketChannel acceptNext(TcpProvider provider, ServerSocketChannel server, java.nio.channels.SelectionKey key,
                                    ConnectionSetupTimer timer) {
        while (true) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (java.nio.channels.ClosedChannelException e) {
                return null;
            } catch (IOException e) {
                if (key != null && timer != null) {
                    timer.acceptFailed(key, e);
                }
                return null;
            }
            if (ch == null) {
                return null;
            }
            try {
                ch.configureBlocking(false);
                provider.configure(ch);
                return ch;
            } catch (IOException e) {
                closeQuietly(ch);
            }
        }
    }

    /** Closes {@code c} if there is one; a failure to close has nobody left to report to. */
    static void closeQuietly(Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // closing: nothing left to report to
            }
        }
    }

    /**
     * An endpoint's source address ({@code src}: {@code info.srcAddr()}, fi_getinfo(3)
     * {@code src_addr}) is the local end of its connection: an application that names a port
     * or an interface there gets exactly that, as libfabric's tcp provider binds it. A wildcard
     * address with port 0 (nothing named) leaves the choice to the kernel; so does an address of
     * the other family than the destination's (the kernel could not route it).
     *
     * @throws FabricException {@code EADDRINUSE} for a port in use, {@code EADDRNOTAVAIL} for
     *         an address this host does not have; nothing is connected then
     */
    static void bindSource(SocketChannel ch, byte[] src, InetSocketAddress dest) throws FabricException, IOException {
        if (src == null) {
            return;
        }
        InetSocketAddress local;
        try {
            local = Addresses.fromSockaddr(src);
        } catch (RuntimeException e) {
            throw new FabricException(Errno.EINVAL, "connect: the source address is not a socket address: " + e.getMessage(), e);
        }
        if ((local.getAddress() instanceof Inet6Address) != (dest.getAddress() instanceof Inet6Address)
                || (local.getAddress().isAnyLocalAddress() && local.getPort() == 0)) {
            return;
        }
        try {
            ch.bind(local);
        } catch (BindException e) {
            throw bindFailed("connect: cannot bind the source address", local, e);
        }
    }
}
