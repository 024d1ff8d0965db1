package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * docs/TCP-WIRE.md checked against libfabric 1.17 itself, with no JOFI code: a plain Java socket
 * plays the JOFI side byte by byte (declaring big-endian, as JOFI always does) against the C
 * peer. This pins the facts the provider is built on — the CM header, the big-endian message
 * headers a little-endian C peer then uses in both directions, the CQ-data extension, the
 * ack for delivery-complete — so a later interop failure points at JOFI, not at the spec.
 */
class NativeWireFactsTest {

    private static final HexFormat HEX = HexFormat.of();

    /** Per test, not per class: surefire shows a class-level assumption as 0 tests, hiding the reason. */
    @BeforeEach
    void nativeLibfabric() {
        NativePeer.assumeNativeLibfabric();
    }

    private static byte[] hex(String spaced) {
        return HEX.parseHex(spaced.replace(" ", ""));
    }

    /** The 32-byte CM header: version 3, type, seg_size (network order), zeros, conn_data 1 big-endian. */
    private static byte[] cmHeader(int type, int dataLength) {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.BIG_ENDIAN);
        b.put((byte) 3).put((byte) type).putShort((short) dataLength);
        b.putInt(0).putLong(0).putLong(0).putLong(1);   // conn_data: 1 written big-endian
        return b.array();
    }

    /** A 16-byte base header in big-endian (+ optional CQ data), as a big-endian peer writes it. */
    private static byte[] header(int flags, int opData, Long cqData, long payload) {
        int hdrSize = 16 + (cqData != null ? 8 : 0);
        ByteBuffer b = ByteBuffer.allocate(hdrSize).order(ByteOrder.BIG_ENDIAN);
        b.put((byte) 3).put((byte) 0).putShort((short) flags).put((byte) opData).put((byte) 0)
                .put((byte) hdrSize).put((byte) 0).putLong(hdrSize + payload);
        if (cqData != null) {
            b.putLong(cqData);
        }
        return b.array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private static String readHex(DataInputStream in, int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        return HEX.formatHex(b);
    }

    /** Reads {@code n} bytes as hex; on a closed stream fails with what the C peer printed. */
    private static String readHex(DataInputStream in, int n, NativePeer peer) throws IOException {
        try {
            return readHex(in, n);
        } catch (java.io.EOFException e) {
            throw new AssertionError("the C peer closed the connection early\n" + peer.transcript(), e);
        }
    }

    private static void assertHeaderBytes(String expectedSpaced, String actual, String what) {
        assertEquals(expectedSpaced.replace(" ", ""), actual, what);
    }

    @Test
    void aCClientTalksToABigEndianPeerByTheSpec() throws IOException {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getByName(NativePeer.HOST))) {
            listener.setSoTimeout((int) NativePeer.TIMEOUT.toMillis());
            try (NativePeer c = NativePeer.client(listener.getLocalPort(), "connect:ClientData",
                    "expect-connected:ACCEPT", "senddata:17:0xa1b2c3d4e5f60718", "send:4:dc",
                    "recvdata:64:0x0102030405060708", "send:1", "expect-shutdown");
                 Socket s = listener.accept()) {
                s.setSoTimeout((int) NativePeer.TIMEOUT.toMillis());
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();

                // the request: C is little-endian, so conn_data is 1 little-endian
                assertHeaderBytes("03 00 000a 00000000 0000000000000000 0000000000000000 0100000000000000",
                        readHex(in, 32), "the CM request header");
                assertEquals("ClientData", new String(in.readNBytes(10), StandardCharsets.US_ASCII));

                // accept, declaring big-endian: from now on C writes and reads big-endian headers.
                // Header and data in one write: libfabric 1.17 reads the CM response's data
                // right after its header and, when the data arrives in a later segment, never
                // reports FI_CONNECTED (seen here: 1 run in 3 hung until the watchdog).
                out.write(concat(cmHeader(1, 6), "ACCEPT".getBytes(StandardCharsets.US_ASCII)));
                out.flush();

                // senddata 17 bytes: flags bit 0, hdr_size 24, size 41, CQ data, all big-endian
                assertHeaderBytes("03 00 0001 00 00 18 00 0000000000000029 a1b2c3d4e5f60718",
                        readHex(in, 24, c), "a senddata header in big-endian");
                assertArrayEquals(NativePeer.pattern(17), in.readNBytes(17), "the senddata payload");

                // delivery complete: flags bit 2; the sender completes only after our ack
                assertHeaderBytes("03 00 0004 00 00 10 00 0000000000000014", readHex(in, 16),
                        "a delivery-complete header in big-endian");
                assertArrayEquals(NativePeer.pattern(4), in.readNBytes(4), "the delivery-complete payload");
                out.write(header(0, 2, null, 0));   // the ack: op_data 2, size 16
                out.flush();

                // a big-endian message with CQ data from this side, checked by the C peer
                out.write(header(1, 0, 0x0102030405060708L, 64));
                out.write(NativePeer.pattern(64));
                out.flush();

                // the C peer only sends its 1 byte after its delivery-complete send completed,
                // i.e. after it accepted our ack
                assertHeaderBytes("03 00 0000 00 00 10 00 0000000000000011", readHex(in, 16),
                        "a plain 1-byte header in big-endian");
                assertArrayEquals(NativePeer.pattern(1), in.readNBytes(1), "the 1-byte payload");

                // shutdown is a FIN
                s.shutdownOutput();
                c.assertSucceeded();
                assertEquals(-1, in.read(), "nothing follows on the C side either once it closed");
            }
        }
    }

    @Test
    void aCServerAnswersARejectByTheSpec() throws IOException {
        try (NativePeer c = NativePeer.server("expect-connreq:hello", "reject:REJECT-DATA");
             Socket s = new Socket(NativePeer.HOST, c.port())) {
            s.setSoTimeout((int) NativePeer.TIMEOUT.toMillis());
            OutputStream out = s.getOutputStream();
            out.write(concat(cmHeader(0, 5), "hello".getBytes(StandardCharsets.US_ASCII)));
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            assertHeaderBytes("03 06 000b 00000000 0000000000000000 0000000000000000 0000000000000000",
                    readHex(in, 32), "the reject header (conn_data 0)");
            assertEquals("REJECT-DATA", new String(in.readNBytes(11), StandardCharsets.US_ASCII));
            assertEquals(-1, in.read(), "the reject is followed by the end of the stream");
            c.assertSucceeded();
        }
    }

    @Test
    void aCServerAcceptsABigEndianClientAndConvertsItsHeaders() throws IOException {
        try (NativePeer c = NativePeer.server("expect-connreq:@256", "accept:", "recv:1", "send:64:dc",
                "expect-shutdown");
             Socket s = new Socket(NativePeer.HOST, c.port())) {
            s.setSoTimeout((int) NativePeer.TIMEOUT.toMillis());
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(concat(cmHeader(0, 256), NativePeer.pattern(256)));
            out.flush();
            // the response: C's conn_data is 1 little-endian, no data
            assertHeaderBytes("03 01 0000 00000000 0000000000000000 0000000000000000 0100000000000000",
                    readHex(in, 32), "the accept header");

            out.write(header(0, 0, null, 1));
            out.write(NativePeer.pattern(1));
            out.flush();

            assertHeaderBytes("03 00 0004 00 00 10 00 0000000000000050", readHex(in, 16),
                    "a 64-byte delivery-complete header in big-endian");
            assertArrayEquals(NativePeer.pattern(64), in.readNBytes(64), "the payload");
            out.write(header(0, 2, null, 0));
            out.flush();
            s.shutdownOutput();
            c.assertSucceeded();
        }
    }
}
