package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a failed bind means (EADDRINUSE or EADDRNOTAVAIL) is decided from what the host has,
 * never from the exception's text: the JDK's message is {@code strerror} in the JVM's locale.
 */
@Timeout(30)
class SocketsTest {
    /** TEST-NET-1 (RFC 5737): documentation only, assigned to no host. */
    private static final InetAddress NOT_HERE = addr("192.0.2.1");

    private static InetAddress addr(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Skips unless binding {@link #NOT_HERE} fails here (a host may allow non-local binds). */
    private static void assumeNotHere() throws IOException {
        try (SocketChannel ch = SocketChannel.open()) {
            ch.bind(new InetSocketAddress(NOT_HERE, 0));
            Assumptions.abort("this host binds " + NOT_HERE + " (net.ipv4.ip_nonlocal_bind or the address is assigned)");
        } catch (BindException expected) {
            // the host lacks the address, as the tests below need
        }
    }

    @Test
    void aTakenPortIsEaddrinuseWhateverTheMessageSays() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            InetSocketAddress local = new InetSocketAddress(InetAddress.getLoopbackAddress(), taken.getLocalPort());
            BindException misleading = new BindException("Cannot assign requested address");
            FabricException e = Sockets.bindFailed("bind", local, misleading);
            assertEquals(Errno.EADDRINUSE, e.errno(), e.getMessage());
            assertSame(misleading, e.getCause());
            // libfabric's text form of the address, not Java's "/127.0.0.1:port" or "localhost/127.0.0.1:port"
            assertTrue(e.getMessage().contains(" fi_sockaddr_in://127.0.0.1:" + taken.getLocalPort() + ": "), e.getMessage());
            assertFalse(e.getMessage().contains(" /127.0.0.1") || e.getMessage().contains("localhost/"), e.getMessage());
        }
    }

    @Test
    void anAddressThisHostLacksIsEaddrnotavailWhateverTheMessageSays() throws Exception {
        assumeNotHere();
        InetSocketAddress local = new InetSocketAddress(NOT_HERE, 4242);
        FabricException e = Sockets.bindFailed("bind", local, new BindException("Address already in use"));
        assertEquals(Errno.EADDRNOTAVAIL, e.errno(), e.getMessage());
    }

    @Test
    void connectFromASourceAddressThisHostLacksIsEaddrnotavail() throws Exception {
        assumeNotHere();
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            bed.client = bed.newClientFrom(new InetSocketAddress(NOT_HERE, 0));
            FabricException e = assertThrows(FabricException.class, () -> bed.client.connect(bed.pep.getName(), null));
            assertEquals(Errno.EADDRNOTAVAIL, e.errno(), e.getMessage());
        }
    }

    @Test
    void listenOnATakenPortIsEaddrinuseAndLeavesThePassiveEndpointUsable() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO)) {
            Info mine = bed.info.copy();
            mine.srcAddr(bed.pep.getName()); // the bed's passive endpoint listens there already
            PassiveEndpoint second = bed.fabric.passiveEndpoint(mine, "second");
            try {
                second.bind(bed.serverEq, 0);
                FabricException e = assertThrows(FabricException.class, second::listen);
                assertEquals(Errno.EADDRINUSE, e.errno(), e.getMessage());
            } finally {
                second.close();
            }
        }
    }

    @Test
    void enablingAnRdmEndpointOnATakenPortIsEaddrinuse() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO);
             RdmTestBed rdm = new RdmTestBed(Progress.AUTO, Fi.FI_MSG)) {
            Info mine = rdm.info.copy();
            mine.srcAddr(bed.pep.getName()); // the MSG bed's passive endpoint listens there already
            AddressVector av = rdm.domain.openAv(new AvAttr(), "av");
            Endpoint ep = rdm.domain.endpoint(mine, "rdm");
            try {
                ep.bind(av, 0);
                FabricException e = assertThrows(FabricException.class, ep::enable);
                assertEquals(Errno.EADDRINUSE, e.errno(), e.getMessage());
            } finally {
                ep.close();
                av.close();
            }
        }
    }

    @Test
    void listenBindsAndAcceptNextHandsOutNonBlockingSockets() throws Exception {
        TcpProvider provider = new TcpProvider();
        try (ServerSocketChannel s = Sockets.listen(provider, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), "test")) {
            assertNull(Sockets.acceptNext(provider, s), "nothing waits yet");
            try (SocketChannel client = SocketChannel.open(s.getLocalAddress())) {
                SocketChannel accepted = null;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (accepted == null && System.nanoTime() < deadline) {
                    accepted = Sockets.acceptNext(provider, s);
                    Thread.onSpinWait();
                }
                try (SocketChannel a = accepted) {
                    assertTrue(a != null, "the waiting connection is accepted");
                    assertTrue(!a.isBlocking(), "accepted sockets are non-blocking");
                    assertEquals(client.getLocalAddress(), a.getRemoteAddress());
                }
            }
        }
    }
}
