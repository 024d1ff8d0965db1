package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitError;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Addresses;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/TCP-WIRE.md "Accepted fields", against a raw socket peer: what libfabric 1.17 sends is accepted (a
 * message after an RMA operation carries that operation's stale rma_iov_cnt), and a
 * connection dropped for a malformed frame tells the application why: {@code FI_SHUTDOWN}
 * with the reason as its payload (MSG) and error completions for everything pending, with
 * {@code provErrno} {@code EPROTO} and the reason as {@code errData} (MSG and RDM).
 */
@Timeout(60)
class TcpPeerInputTest {
    /** A message header as libfabric sends it after an RMA write of 2 descriptors: rma_iov_cnt 2, hdr_size 16. */
    private static byte[] staleCountMessage(String text) {
        byte[] p = text.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(16 + p.length);
        b.put(0, (byte) 3).put(TcpWireDescriptor.RMA_IOV_COUNT_OFFSET, (byte) 2)
                .put(TcpWireDescriptor.HDR_SIZE_OFFSET, (byte) 16).putLong(8, 16 + p.length).put(16, p);
        return b.array();
    }

    /** A header with op 9: no such op. */
    private static final byte[] GARBAGE = {3, 9, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 16};

    /** A raw MSG peer (no JOFI marker, as a C peer) accepted by the bed's listener. */
    static final class RawPeer implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        final DataInputStream in;
        final Endpoint victim;

        RawPeer(TcpTestBed bed) throws Exception {
            InetSocketAddress listen = Addresses.fromSockaddr(bed.pep.getName());
            socket = new Socket(listen.getAddress(), listen.getPort());
            socket.setSoTimeout((int) TcpTestBed.TIMEOUT_MS);
            out = socket.getOutputStream();
            in = new DataInputStream(socket.getInputStream());
            ByteBuffer req = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH);
            new CmMessage().set(TcpWireDescriptor.CM_TYPE_REQUEST, null, 0, 0).encode(req);
            out.write(req.array());
            EqEntry creq = awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
            victim = bed.domain.endpoint(creq.info(), "victim");
            victim.bind(bed.serverEq, 0);
            victim.bind(bed.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            victim.enable();
            victim.accept(null);
            awaitEvent(bed.serverEq, Fi.FI_CONNECTED);
            in.readFully(new byte[TcpWireDescriptor.CM_HEADER_LENGTH]);
        }

        @Override
        public void close() throws Exception {
            try {
                victim.close();
            } finally {
                socket.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aMessageWithAStaleRmaIovCountIsDelivered(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode); RawPeer raw = new RawPeer(bed)) {
            ByteBuffer rx = ByteBuffer.allocate(16);
            assertEquals(0, raw.victim.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx1"));
            assertEquals(0, raw.victim.recv(rx.duplicate(), null, Fi.FI_ADDR_UNSPEC, "rx2"));
            raw.out.write(staleCountMessage("hello"));
            raw.out.write(staleCountMessage("again"));
            CqEntry c = awaitCompletion(bed.serverCq);
            assertEquals("rx1", c.context());
            assertEquals(5, c.len());
            assertEquals("rx2", awaitCompletion(bed.serverCq).context(), "the connection goes on");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aMalformedFrameEndsTheConnectionWithItsReason(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode); RawPeer raw = new RawPeer(bed)) {
            ByteBuffer rx = ByteBuffer.allocate(16);
            assertEquals(0, raw.victim.recv(rx, null, Fi.FI_ADDR_UNSPEC, "victim-rx"));
            // a send that waits for the peer's ack (the raw peer never sends one)
            Msg m = new Msg().buffer(ByteBuffer.wrap(new byte[] {1, 2, 3}), null).context("victim-tx");
            assertEquals(0, raw.victim.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            raw.in.readFully(new byte[16 + 3]);
            raw.out.write(GARBAGE);
            EqEntry down = awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
            assertSame(raw.victim, down.fid());
            String why = new String(down.payload(), 0, down.payloadLength(), StandardCharsets.UTF_8);
            assertTrue(why.startsWith("malformed input from "), why);
            assertTrue(why.contains("op above"), why);
            for (String expected : new String[] {"victim-tx", "victim-rx"}) {
                CqErrEntry e = awaitError(bed.serverCq);
                assertEquals(expected, e.context());
                assertEquals(Errno.ECONNRESET, e.err());
                assertEquals(Errno.EPROTO, e.provErrno());
                assertEquals(why, new String(e.errData(), 0, e.errDataSize(), StandardCharsets.UTF_8));
                assertTrue(bed.serverCq.strerror(e.provErrno(), e.errData()).contains("Protocol error"));
            }
            assertEquals(-1, raw.in.read(), "its socket is closed");
        }
    }
}
