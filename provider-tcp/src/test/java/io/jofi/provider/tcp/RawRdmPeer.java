package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Addresses;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A test's own RDM peer on blocking sockets, speaking the set-up of provider-tcp/README.md
 * ("RDM endpoints") byte for byte: so a test decides the order of every step of crossed
 * connects instead of hoping for a race. Every read has a timeout.
 */
final class RawRdmPeer implements AutoCloseable {
    final ServerSocket listener;
    final byte[] name;

    RawRdmPeer(String host, int port) throws IOException {
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getByName(host), port));
        listener.setSoTimeout((int) TcpTestBed.TIMEOUT_MS);
        name = Addresses.toSockaddr((InetSocketAddress) listener.getLocalSocketAddress());
    }

    byte[] hello() {
        return TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, name);
    }

    /** Accepts the endpoint's connection. */
    Socket accept() throws IOException {
        Socket s = listener.accept();
        s.setSoTimeout((int) TcpTestBed.TIMEOUT_MS);
        s.setTcpNoDelay(true);
        return s;
    }

    /** Connects to the endpoint's listener. */
    static Socket connect(byte[] to) throws IOException {
        Socket s = new Socket();
        s.connect(Addresses.fromSockaddr(to), (int) TcpTestBed.TIMEOUT_MS);
        s.setSoTimeout((int) TcpTestBed.TIMEOUT_MS);
        s.setTcpNoDelay(true);
        return s;
    }

    static void writeCm(Socket s, int type, byte[] data) throws IOException {
        CmMessage m = new CmMessage().set(type, data, 0, data.length);
        ByteBuffer b = ByteBuffer.allocate(m.encodedLength());
        m.encode(b);
        s.getOutputStream().write(b.array(), 0, b.position());
    }

    /** Reads one CM message exactly (header, then its data). */
    static CmMessage readCm(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] h = new byte[TcpWireDescriptor.CM_HEADER_LENGTH];
        in.readFully(h);
        int seg = ((h[TcpWireDescriptor.CM_SEG_SIZE_OFFSET] & 0xFF) << 8) | (h[TcpWireDescriptor.CM_SEG_SIZE_OFFSET + 1] & 0xFF);
        byte[] all = new byte[h.length + seg];
        System.arraycopy(h, 0, all, 0, h.length);
        in.readFully(all, h.length, seg);
        CmMessage m = new CmMessage();
        assertTrue(m.decode(ByteBuffer.wrap(all)) > 0, "a valid CM message");
        return m;
    }

    /** Reads one data message (big-endian header) and returns its payload as text. */
    static String readMessage(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] h = new byte[TcpWireDescriptor.BASE_HEADER_LENGTH];
        in.readFully(h);
        ByteBuffer b = ByteBuffer.wrap(h);
        int hdrSize = h[TcpWireDescriptor.HDR_SIZE_OFFSET] & 0xFF;
        long size = b.getLong(8);
        in.readFully(new byte[hdrSize - h.length]);
        byte[] payload = new byte[(int) (size - hdrSize)];
        in.readFully(payload);
        return new String(payload, StandardCharsets.US_ASCII);
    }

    /** Writes a plain message (op msg, no flags) with a big-endian header. */
    static void writeMessage(Socket s, String text) throws IOException {
        byte[] p = text.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(16 + p.length);
        b.put(0, (byte) 3).put(6, (byte) 16).putLong(8, 16 + p.length).put(16, p);
        OutputStream out = s.getOutputStream();
        out.write(b.array());
    }

    /** Asserts the stream ends (the endpoint closed this socket). */
    static void assertEnds(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            assertEquals(-1, in.read(), "the endpoint closes this connection");
        } catch (java.net.SocketException reset) {
            // a reset ends it too
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
