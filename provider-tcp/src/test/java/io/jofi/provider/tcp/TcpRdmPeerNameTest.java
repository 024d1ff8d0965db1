package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.Addresses;
import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Peer names (docs/TCP-WIRE.md "RDM connection set-up"): a tcp RDM endpoint answered whatever name a connecting client announced.
 * There is no authentication (as in libfabric), but a name that cannot be an endpoint's — wrong
 * length or family, a non-zero sin_zero, the wildcard address, port 0, multicast — is refused:
 * the request is rejected ({@code KIND_REJECT_BAD_HELLO}), the socket closed, and a message
 * the client sends anyway is never delivered.
 */
@Timeout(60)
class TcpRdmPeerNameTest {

    private static byte[] in4(String host, int port) throws Exception {
        return Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByName(host), port));
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void malformedPeerNamesAreRefused(Progress mode) throws Exception {
        byte[] wrongFamily = in4("127.0.0.1", 4000);
        wrongFamily[0] = 10; // AF_INET6 in 16 bytes
        byte[] dirtyZero = in4("127.0.0.1", 4000);
        dirtyZero[12] = 1;
        byte[][] bad = {
            new byte[0],
            new byte[15],
            wrongFamily,
            dirtyZero,
            in4("0.0.0.0", 4000),
            in4("127.0.0.1", 0),
            in4("224.0.0.1", 4000),
            Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByName("::"), 4000)),
            "fi_sockaddr_in://1.2.3.4:5".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
        };
        try (RdmTestBed bed = new RdmTestBed(mode, Fi.FI_MSG)) {
            RdmTestBed.Node j = bed.node("j");
            ByteBuffer rx = ByteBuffer.allocate(64);
            assertEquals(0, j.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "j-rx"));
            for (byte[] name : bad) {
                try (Socket s = RawRdmPeer.connect(j.name)) {
                    RawRdmPeer.writeCm(s, TcpWireDescriptor.CM_TYPE_REQUEST,
                            TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, name));
                    CmMessage answer = RawRdmPeer.readCm(s);
                    String what = Addresses.toString(name);
                    assertEquals(TcpWireDescriptor.CM_TYPE_REJECT, answer.type(), "refused: " + what);
                    byte[] reason = answer.dataCopy();
                    assertEquals(TcpRdmHelloDescriptor.KIND_REJECT_BAD_HELLO, TcpRdmHelloDescriptor.kind(reason, reason.length),
                            what);
                    try {
                        RawRdmPeer.writeMessage(s, "smuggled");
                    } catch (java.io.IOException closedAlready) {
                        // the endpoint closed the socket first: nothing could be delivered either way
                    }
                    RawRdmPeer.assertEnds(s);
                }
            }
            TcpTestBed.assertNothing(j.rxCq, 200); // nothing of any refused client was delivered
            // a well-formed name is still answered, and its message delivered
            try (RawRdmPeer x = new RawRdmPeer("127.0.0.1", 0); Socket s = RawRdmPeer.connect(j.name)) {
                RawRdmPeer.writeCm(s, TcpWireDescriptor.CM_TYPE_REQUEST, x.hello());
                assertEquals(TcpWireDescriptor.CM_TYPE_ACCEPT, RawRdmPeer.readCm(s).type());
                RawRdmPeer.writeMessage(s, "fine");
                CqEntry c = awaitCompletion(j.rxCq);
                assertEquals("j-rx", c.context());
                assertEquals(4, c.len());
            }
        }
    }
}
