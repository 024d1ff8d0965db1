package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitError;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jofi.Addresses;
import io.jofi.CqErrEntry;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The wire side of RMA and atomics against a raw socket peer that plays the other end byte by
 * byte: a descriptor the target's registry refuses tears down that connection only (docs/TCP-WIRE.md "Bad input"); JOFI's atomic ops exist only on connections whose CM handshake carried JOFI's
 * marker (TcpWireDescriptor.CM_JOFI_MARKER) — without it atomics are {@code -EOPNOTSUPP} and
 * op 5 from the peer is an unknown op.
 */
@Timeout(60)
class TcpWireOpsTest {

    /** A raw peer connected to the bed's listener and the JOFI endpoint that accepted it. */
    private static final class RawPeer implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        final DataInputStream in;
        final Endpoint victim;
        final byte[] response = new byte[TcpWireDescriptor.CM_HEADER_LENGTH];

        RawPeer(TcpTestBed bed, boolean jofiMarker) throws Exception {
            this(bed, jofiMarker, 0);
        }

        RawPeer(TcpTestBed bed, boolean jofiMarker, long txSize) throws Exception {
            InetSocketAddress listen = Addresses.fromSockaddr(bed.pep.getName());
            socket = new Socket(listen.getAddress(), listen.getPort());
            socket.setSoTimeout((int) TcpTestBed.TIMEOUT_MS);
            out = socket.getOutputStream();
            in = new DataInputStream(socket.getInputStream());
            ByteBuffer req = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH);
            new CmMessage().set(TcpWireDescriptor.CM_TYPE_REQUEST, null, 0, 0)
                    .msgId(jofiMarker ? TcpWireDescriptor.CM_JOFI_MARKER : 0L).encode(req);
            out.write(req.array());
            out.flush();
            EqEntry creq = awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
            creq.info().caps(TcpProvider.CAPS); // the bed asked for FI_MSG only
            if (txSize > 0) {
                creq.info().txAttr().size(txSize);
                creq.info().rxAttr().size(txSize);
            }
            victim = bed.domain.endpoint(creq.info(), "victim");
            victim.bind(bed.serverEq, 0);
            victim.bind(bed.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            victim.enable();
            victim.accept(null);
            awaitEvent(bed.serverEq, Fi.FI_CONNECTED);
            in.readFully(response);
        }

        long responseMsgId() {
            return ByteBuffer.wrap(response).getLong(TcpWireDescriptor.CM_MSG_ID_OFFSET);
        }

        void send(MessageHeader h, ByteBuffer payload) throws Exception {
            ByteBuffer b = ByteBuffer.allocate(TcpWireDescriptor.MAX_HEADER_LENGTH + payload.remaining());
            h.encode(b);
            b.put(payload);
            out.write(b.array(), 0, b.position());
            out.flush();
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

    private static MemoryRegion region(TcpTestBed bed, ByteBuffer buf) throws Exception {
        return bed.domain.register(buf, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0, 0, "region");
    }

    private static void assertTornDownOnly(TcpTestBed bed, RawPeer raw) throws Exception {
        EqEntry down = awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
        assertSame(raw.victim, down.fid(), "only the misbehaving peer's connection ends");
        CqErrEntry e = awaitError(bed.serverCq);
        assertEquals("victim-rx", e.context(), "its pending receive fails");
        assertEquals(Errno.ECONNRESET, e.err());
        assertEquals(-1, raw.in.read(), "its socket is closed");
        // the other connection of the same domain is undisturbed
        ByteBuffer rx = ByteBuffer.allocate(8);
        assertEquals(0, bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "ok"));
        assertEquals(0, bed.client.send(ByteBuffer.allocate(3), null, Fi.FI_ADDR_UNSPEC, "tx"));
        assertEquals("ok", awaitCompletion(bed.serverCq).context());
    }

    @Test
    void aWriteWithAnUnregisteredKeyTearsDownThatConnectionOnly() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
             RawPeer raw = new RawPeer(bed, false)) {
            ByteBuffer target = ByteBuffer.allocateDirect(64);
            MemoryRegion mr = region(bed, target);
            assertEquals(0, raw.victim.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "victim-rx"));
            MessageHeader h = new MessageHeader(ByteOrder.BIG_ENDIAN).op(TcpWireDescriptor.OP_WRITE).rmaIovCount(1)
                    .rmaIov(0, mr.address(), 8, mr.key() ^ 0x5a5a).payloadLength(8);
            raw.send(h, ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
            assertTornDownOnly(bed, raw);
            assertEquals(0, target.get(0), "the region is untouched");
            mr.close();
        }
    }

    @Test
    void aReadBeyondTheRegionTearsDownThatConnectionOnly() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL).connect(null, null);
             RawPeer raw = new RawPeer(bed, false)) {
            MemoryRegion mr = region(bed, ByteBuffer.allocateDirect(64));
            assertEquals(0, raw.victim.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "victim-rx"));
            MessageHeader h = new MessageHeader(ByteOrder.BIG_ENDIAN).op(TcpWireDescriptor.OP_READ_REQUEST)
                    .rmaIovCount(1).rmaIov(0, mr.address() + 60, 8, mr.key()).payloadLength(0);
            raw.send(h, ByteBuffer.allocate(0));
            assertTornDownOnly(bed, raw);
            mr.close();
        }
    }

    @Test
    void aPeerWithoutTheMarkerGetsNoAtomicsAndNoMarker() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
             RawPeer raw = new RawPeer(bed, false)) {
            assertEquals(0L, raw.responseMsgId(), "a C-like peer gets libfabric's zero msg_id back");
            ByteBuffer result = ByteBuffer.allocateDirect(8);
            assertEquals(-Errno.EOPNOTSUPP, raw.victim.atomic(1, 0, 0, 0, Fi.FI_SUM, "a"));
            assertEquals(-Errno.EOPNOTSUPP, raw.victim.fetchAtomic(1, result, null, 0, 0, 0, Fi.FI_SUM, "f"));
            assertEquals(-Errno.EOPNOTSUPP, raw.victim.compareAtomic(1, 2, result, null, 0, 0, 0, "c"));
        }
    }

    @Test
    void op5FromAPeerThatDidNotNegotiateIsAnUnknownOp() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
             RawPeer raw = new RawPeer(bed, false)) {
            MemoryRegion mr = region(bed, ByteBuffer.allocateDirect(64));
            assertEquals(0, raw.victim.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "victim-rx"));
            MessageHeader h = new MessageHeader(ByteOrder.BIG_ENDIAN).op(TcpWireDescriptor.OP_ATOMIC_REQUEST)
                    .rmaIovCount(1).rmaIov(0, mr.address(), 8, mr.key())
                    .payloadLength(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
            raw.send(h, ByteBuffer.allocate(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD).putLong(0, Fi.FI_SUM));
            assertTornDownOnly(bed, raw);
            mr.close();
        }
    }

    /** A tagged message as op 1 and as op 0 with flag bit 7 (libfabric 1.17's rxm path) is received as tagged. */
    @Test
    void taggedMessagesInBothWireForms() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
             RawPeer raw = new RawPeer(bed, false)) {
            ByteBuffer r1 = ByteBuffer.allocate(8);
            ByteBuffer r7 = ByteBuffer.allocate(8);
            assertEquals(0, raw.victim.trecv(r7, null, Fi.FI_ADDR_UNSPEC, 0x77, 0, "bit7"));
            assertEquals(0, raw.victim.trecv(r1, null, Fi.FI_ADDR_UNSPEC, 0x11, 0, "op1"));
            raw.send(new MessageHeader(ByteOrder.BIG_ENDIAN).op(TcpWireDescriptor.OP_TAGGED).tag(0x11).payloadLength(2),
                    ByteBuffer.wrap(new byte[] {1, 1}));
            raw.send(new MessageHeader(ByteOrder.BIG_ENDIAN).op(TcpWireDescriptor.OP_MSG)
                    .flags(TcpWireDescriptor.FLAG_TAGGED).tag(0x77).payloadLength(3), ByteBuffer.wrap(new byte[] {7, 7, 7}));
            io.jofi.CqEntry a = awaitCompletion(bed.serverCq);
            io.jofi.CqEntry b = awaitCompletion(bed.serverCq);
            // each went to the receive of its tag, not to the one posted first
            assertEquals("op1", a.context());
            assertEquals(2, a.len());
            assertEquals("bit7", b.context());
            assertEquals(3, b.len());
            assertEquals(Fi.FI_RECV | Fi.FI_TAGGED, b.flags());
            assertEquals(7, r7.get(2));
        }
    }

    /**
     * A peer that sends read requests without reading the responses: once the transmit queue
     * is full the endpoint stops reading (back-pressure, no unbounded growth), and goes on when
     * the peer reads; every response arrives whole and in order.
     */
    @Test
    void readRequestsBeyondTheTransmitQueueWaitForRoom() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
             RawPeer raw = new RawPeer(bed, false, 16)) {
            int size = 1 << 20;
            ByteBuffer target = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i += 4096) {
                target.put(i, (byte) (i >> 12));
            }
            MemoryRegion mr = region(bed, target);
            int requests = 100;
            for (int i = 0; i < requests; i++) {
                raw.send(new MessageHeader(ByteOrder.BIG_ENDIAN).op(TcpWireDescriptor.OP_READ_REQUEST).rmaIovCount(1)
                        .rmaIov(0, mr.address(), size, mr.key()).payloadLength(0), ByteBuffer.allocate(0));
            }
            TcpEndpoint victim = (TcpEndpoint) raw.victim;
            long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
            while (!victim.isBlocked() && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(true, victim.isBlocked(), "reading stopped while the responses cannot be queued");
            byte[] header = new byte[TcpWireDescriptor.BASE_HEADER_LENGTH];
            byte[] payload = new byte[size];
            for (int i = 0; i < requests; i++) {
                raw.in.readFully(header);
                assertEquals(TcpWireDescriptor.OP_READ_RESPONSE, header[1], "response " + i);
                assertEquals(TcpWireDescriptor.BASE_HEADER_LENGTH + size,
                        ByteBuffer.wrap(header).getLong(TcpWireDescriptor.SIZE_OFFSET));
                raw.in.readFully(payload);
                assertEquals(5, payload[5 * 4096], "the region's bytes");
            }
            assertEquals(false, victim.isBlocked());
            mr.close();
        }
    }

    /** The atomic request/response of TcpWireDescriptor, byte for byte, from a peer that announced JOFI. */
    @Test
    void aNegotiatedPeersAtomicIsAppliedAndAnswered() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
             RawPeer raw = new RawPeer(bed, true)) {
            assertEquals(TcpWireDescriptor.CM_JOFI_MARKER, raw.responseMsgId(), "JOFI answers the marker");
            ByteBuffer target = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            target.putLong(8, 40);
            MemoryRegion mr = region(bed, target);
            MessageHeader h = new MessageHeader(ByteOrder.BIG_ENDIAN).op(TcpWireDescriptor.OP_ATOMIC_REQUEST)
                    .rmaIovCount(1).rmaIov(0, mr.address() + 8, 8, mr.key())
                    .payloadLength(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
            ByteBuffer p = ByteBuffer.allocate(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
            p.putLong(0, Fi.FI_SUM | TcpWireDescriptor.ATOMIC_FETCH).putLong(8, 2).putLong(16, 0);
            raw.send(h, p);
            byte[] resp = new byte[TcpWireDescriptor.BASE_HEADER_LENGTH + TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD];
            raw.in.readFully(resp);
            ByteBuffer r = ByteBuffer.wrap(resp);
            assertEquals(TcpWireDescriptor.OP_ATOMIC_RESPONSE, resp[1], "op 6");
            assertEquals(TcpWireDescriptor.BASE_HEADER_LENGTH, resp[TcpWireDescriptor.HDR_SIZE_OFFSET], "a bare header");
            assertEquals(resp.length, r.getLong(TcpWireDescriptor.SIZE_OFFSET), "size");
            assertEquals(40, r.getLong(TcpWireDescriptor.BASE_HEADER_LENGTH), "the old value, big-endian");
            assertEquals(42, target.getLong(8), "the sum is in the word (host order)");
            mr.close();
        }
    }

    /**
     * FI_MATCH_COMPLETE puts JOFI's flag bit 1 on the wire only to a peer that announced JOFI:
     * the send path reads the peer's kind as a mask set at the handshake ({@code TcpPeerLink.jofiFlags}),
     * and a C peer (no marker) gets delivery complete alone, which libfabric's tcp understands.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void theMatchCompleteFlagGoesOnlyToAJofiPeer(boolean jofiMarker) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null);
             RawPeer raw = new RawPeer(bed, jofiMarker)) {
            ByteBuffer payload = ByteBuffer.allocateDirect(4);
            assertEquals(0, raw.victim.sendMsg(new Msg().buffer(payload, null).context("mc"),
                    Fi.FI_MATCH_COMPLETE | Fi.FI_COMPLETION));
            byte[] header = new byte[TcpWireDescriptor.BASE_HEADER_LENGTH];
            raw.in.readFully(header);
            int flags = ByteBuffer.wrap(header).getShort(TcpWireDescriptor.FLAGS_OFFSET) & 0xffff;
            assertEquals(TcpWireDescriptor.FLAG_DELIVERY_COMPLETE, flags & TcpWireDescriptor.FLAG_DELIVERY_COMPLETE,
                    "an acknowledgement is asked of every peer");
            assertEquals(jofiMarker ? TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE : 0,
                    flags & TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE, "JOFI's match-complete bit");
        }
    }
}
