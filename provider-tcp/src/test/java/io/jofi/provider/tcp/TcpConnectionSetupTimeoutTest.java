package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Addresses;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * provider-tcp/README.md "Failure model": half-open and slowloris connections — a socket that connects and sends
 * nothing, or only part of its connection request — were never timed out (5 held for 120 s),
 * so an attacker could hold the listener's descriptors. With the connection-setup timeout
 * (lowered to 300 ms here) each is closed, and a legitimate client still connects.
 */
@Timeout(60)
class TcpConnectionSetupTimeoutTest {
    private static final String PROP = "jofi.tcp.connectionSetupTimeout";
    private static final int TIMEOUT_MS = 300;
    /** How long a raw socket waits for the provider to close it: the timeout plus CM-loop ticks, generous for a loaded host. */
    private static final int CLOSED_WITHIN_MS = 5_000;

    /** 3 silent sockets and 2 that send the first 10 bytes of a CM request. */
    private static List<Socket> attackers(InetSocketAddress at) throws IOException {
        List<Socket> all = new ArrayList<>();
        ByteBuffer req = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH);
        new CmMessage().set(TcpWireDescriptor.CM_TYPE_REQUEST, null, 0, 0).encode(req);
        for (int i = 0; i < 5; i++) {
            Socket s = new Socket(at.getAddress(), at.getPort());
            s.setSoTimeout(CLOSED_WITHIN_MS);
            if (i >= 3) {
                s.getOutputStream().write(req.array(), 0, 10);
            }
            all.add(s);
        }
        return all;
    }

    private static void assertClosedByThePeer(List<Socket> all) throws IOException {
        long start = System.nanoTime();
        for (Socket s : all) {
            try (s) {
                assertEquals(-1, s.getInputStream().read(), "closed without a byte");
            } catch (SocketTimeoutException e) {
                throw new AssertionError("an unfinished connection request stayed open for " + CLOSED_WITHIN_MS + " ms", e);
            } catch (java.net.SocketException reset) {
                // a reset closes it too
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < CLOSED_WITHIN_MS, "closed after " + ms + " ms");
    }

    @Test
    void unfinishedMsgConnectionRequestsAreClosedAndOthersStillConnect() throws Exception {
        System.setProperty(PROP, Integer.toString(TIMEOUT_MS));
        TcpTestBed bed;
        try {
            bed = new TcpTestBed(Progress.AUTO);
        } finally {
            System.clearProperty(PROP);
        }
        try (bed) {
            List<Socket> held = attackers(Addresses.fromSockaddr(bed.pep.getName()));
            assertClosedByThePeer(held);
            assertEquals(0, ((TcpFabric) bed.fabric).setupTimer().pending(), "no deadline left behind");
            bed.connect(null, null);
            java.nio.ByteBuffer rx = java.nio.ByteBuffer.allocate(4);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx");
            bed.client.send(java.nio.ByteBuffer.allocate(4), null, 0, "tx");
            assertEquals("rx", awaitCompletion(bed.serverCq).context());
        }
    }

    @Test
    void unfinishedRdmHellosAreClosedAndOthersStillConnect() throws Exception {
        System.setProperty(PROP, Integer.toString(TIMEOUT_MS));
        RdmTestBed bed;
        try {
            bed = RdmTestBed.overTcpDomain(Progress.AUTO, Fi.FI_MSG); // bed.fabric: the TcpFabric
        } finally {
            System.clearProperty(PROP);
        }
        try (bed) {
            RdmTestBed.Node j = bed.node("j");
            RdmTestBed.Node k = bed.node("k");
            List<Socket> held = attackers(Addresses.fromSockaddr(j.name));
            assertClosedByThePeer(held);
            assertEquals(0, ((TcpFabric) bed.fabric).setupTimer().pending(), "no deadline left behind");
            long toJ = k.insert(j);
            java.nio.ByteBuffer rx = java.nio.ByteBuffer.allocate(4);
            j.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx");
            k.ep.send(java.nio.ByteBuffer.allocate(4), null, toJ, "tx");
            assertEquals("rx", awaitCompletion(j.rxCq).context());
        }
    }

    /** A client slower than the timeout but within it still connects: the deadline is per request, not per byte. */
    @Test
    void aRequestThatArrivesInPartsWithinTheTimeoutIsAccepted() throws Exception {
        System.setProperty(PROP, "3000");
        TcpTestBed bed;
        try {
            bed = new TcpTestBed(Progress.AUTO);
        } finally {
            System.clearProperty(PROP);
        }
        try (bed) {
            InetSocketAddress at = Addresses.fromSockaddr(bed.pep.getName());
            ByteBuffer req = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH);
            new CmMessage().set(TcpWireDescriptor.CM_TYPE_REQUEST, null, 0, 0).encode(req);
            try (Socket s = new Socket(at.getAddress(), at.getPort())) {
                s.getOutputStream().write(req.array(), 0, 10);
                Thread.sleep(100); // the rest comes later, well within the deadline
                s.getOutputStream().write(req.array(), 10, req.capacity() - 10);
                TcpTestBed.awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
                assertEquals(0, ((TcpFabric) bed.fabric).setupTimer().pending(), "announced: no deadline any more");
            }
        }
    }
}
