package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.rxm.RxmConnectData;
import io.jofi.provider.rxm.RxmPacketHeader;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A plain tcp MSG endpoint that accepts an rxm endpoint's connection as an rxm peer would and
 * reads and writes rxm packets by hand, for tests of what the rxm layer puts on the wire: it
 * checks the connect data, answers with its own (connection id index 7, the flow-control
 * offer given), keeps 64 packet buffers posted, and sends control packets and small eager
 * messages. The rxm side is driven (MANUAL progress) while it waits.
 */
final class FakeRxmPeer {
    static final int EAGER = RxmWireDescriptor.DEFAULT_EAGER_LIMIT;
    static final int PACKET = RxmWireDescriptor.HEADER_LENGTH + EAGER;
    /** Our connection index in the accept data: the {@code conn_id} of the rxm side's packets to us. */
    static final int INDEX = 7;

    /** The rxm side's connect data. */
    final RxmConnectData request;
    final Endpoint server;
    /** The posted packet buffers; a receive's context is its index. */
    final ByteBuffer[] packets = new ByteBuffer[64];
    /** The last packet's header ({@link #next}). */
    final RxmPacketHeader header = new RxmPacketHeader();
    private final TcpTestBed bed;
    private final RxmOverTcpTest.Side rxm;
    private final int indexAtRxm;
    private int sent;

    private FakeRxmPeer(RxmConnectData request, Endpoint server, TcpTestBed bed, RxmOverTcpTest.Side rxm) {
        this.request = request;
        this.server = server;
        this.bed = bed;
        this.rxm = rxm;
        this.indexAtRxm = RxmConnectData.peerIndex(request.connId);
    }

    /** Accepts {@code rxm}'s connection request on {@code bed}'s listener, offering credits as {@code flowCtrl} says. */
    static FakeRxmPeer accept(RxmOverTcpTest.Side rxm, TcpTestBed bed, int flowCtrl) throws Exception {
        EqEntry event = new EqEntry();
        CqEntry[] none = new CqEntry[0];
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (bed.pepEq.read(event, 0) != 1) {
            rxm.txCq.read(none, 0);
            assertTrue(System.nanoTime() - deadline < 0, "no connection request");
        }
        assertEquals(Fi.FI_CONNREQ, event.event());
        RxmConnectData request = new RxmConnectData().decodeConnect(event.payload(), event.payloadLength(), EAGER);
        assertNull(request.problem, "rxm's connect data");
        Endpoint server = bed.domain.endpoint(event.info(), "fake-rxm");
        server.bind(bed.serverEq, 0);
        server.bind(bed.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        server.enable();
        FakeRxmPeer p = new FakeRxmPeer(request, server, bed, rxm);
        for (int i = 0; i < p.packets.length; i++) {
            p.packets[i] = ByteBuffer.allocateDirect(PACKET).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(0, server.recv(p.packets[i], null, Fi.FI_ADDR_UNSPEC, i));
        }
        RxmConnectData answer = new RxmConnectData();
        answer.connId = RxmConnectData.connId(ProcessHandle.current().pid(), INDEX);
        answer.rxSize = p.packets.length;
        answer.flowCtrl = flowCtrl;
        server.accept(answer.encodeAccept());
        while (bed.serverEq.read(event, 0) != 1) {
            rxm.txCq.read(none, 0);
            assertTrue(System.nanoTime() - deadline < 0, "not connected");
        }
        assertEquals(Fi.FI_CONNECTED, event.event());
        return p;
    }

    /**
     * {@code rxm} connects to {@code bed}'s listener by sending "hello" (8 bytes), which a peer
     * that offers no credits accepts and reads; the send has completed.
     */
    static FakeRxmPeer connected(RxmOverTcpTest.Side rxm, TcpTestBed bed) throws Exception {
        long toPeer = rxm.insert(bed.pep.getName());
        assertEquals(0, rxm.ep.send(RxmOverTcpTest.pattern(8, 1), null, toPeer, "hello"));
        FakeRxmPeer p = accept(rxm, bed, RxmWireDescriptor.FLOW_CTRL_OFF);
        assertEquals(RxmWireDescriptor.TYPE_EAGER, p.next().type, "the rxm side's hello");
        assertEquals("hello", RxmOverTcpTest.await(rxm.txCq, rxm, rxm).context());
        return p;
    }

    /** The next packet that arrived: its header in {@link #header}, its bytes in {@code packets[context]}. */
    CqEntry arrival() {
        CqEntry e = arrival(10_000);
        assertTrue(e != null, "no packet arrived");
        header.read(packets[(Integer) e.context()], 0);
        return e;
    }

    /** The next packet's header; its buffer posted again. */
    RxmPacketHeader next() throws Exception {
        int i = (Integer) arrival().context();
        assertEquals(0, server.recv(packets[i].clear(), null, Fi.FI_ADDR_UNSPEC, i));
        return header;
    }

    /** Asserts that no packet arrives for {@code ms} while the rxm side progresses. */
    void nothingFor(long ms) {
        CqEntry e = arrival(ms);
        if (e != null) {
            header.read(packets[(Integer) e.context()], 0);
            throw new AssertionError("a packet of type " + header.type + " arrived");
        }
    }

    /**
     * The next packet to arrive within {@code ms} while the rxm side is NOT progressed (null when none): what its
     * passes so far have put on the wire.
     */
    RxmPacketHeader nextWithoutProgress(long ms) throws Exception {
        CqEntry e = arrival(ms, false);
        if (e == null) {
            return null;
        }
        int i = (Integer) e.context();
        header.read(packets[i], 0);
        assertEquals(0, server.recv(packets[i].clear(), null, Fi.FI_ADDR_UNSPEC, i));
        return header;
    }

    private CqEntry arrival(long ms) {
        return arrival(ms, true);
    }

    private CqEntry arrival(long ms, boolean progressRxm) {
        CqEntry[] one = {new CqEntry()};
        CqEntry[] none = new CqEntry[0];
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            int rc = bed.serverCq.read(one, 1);
            if (rc == 1 && (one[0].flags() & Fi.FI_RECV) != 0) {
                return one[0];
            }
            assertTrue(rc == 1 || rc == -Errno.EAGAIN, "the fake peer's CQ: " + rc);
            if (progressRxm) {
                rxm.txCq.read(none, 0);
            }
        }
        return null;
    }

    /** A credit packet granting {@code n}. */
    void sendCredits(long n) throws Exception {
        send(RxmWireDescriptor.TYPE_CREDIT, RxmWireDescriptor.TYPE_CREDIT, n, 0);
    }

    /** An eager message of 8 zero bytes. */
    void sendEager() throws Exception {
        send(RxmWireDescriptor.TYPE_EAGER, RxmWireDescriptor.OP_MSG, 0, 8);
    }

    /**
     * One segment of message {@code msgId} (rxm's segmentation, type 1): the whole message's
     * claimed {@code size}, its number, its kind (first, middle, last) in the control data.
     */
    void sendSegment(long msgId, long size, int segNo, int kind, ByteBuffer payload) throws Exception {
        RxmPacketHeader h = header(RxmWireDescriptor.TYPE_SEGMENT, RxmWireDescriptor.OP_MSG, kind);
        h.msgId = msgId;
        h.size = size;
        h.segNo = segNo;
        h.segSize = payload.remaining();
        post(h, payload);
    }

    /**
     * A rendezvous request for message {@code msgId} of {@code size} bytes naming one sender
     * buffer per entry of {@code lengths} (addresses and keys made up: nothing is read from it).
     */
    void sendRendezvous(long msgId, long size, long... lengths) throws Exception {
        RxmPacketHeader h = header(RxmWireDescriptor.TYPE_RNDV_REQUEST, RxmWireDescriptor.OP_MSG, 0);
        h.msgId = msgId;
        h.size = size;
        ByteBuffer d = ByteBuffer.allocate(RxmWireDescriptor.RNDV_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < lengths.length; i++) {
            RxmPacketHeader.writeRendezvousIov(d, 0, i, 0x1000L * (i + 1), lengths[i], 0x77);
        }
        RxmPacketHeader.writeRendezvousCount(d, 0, lengths.length);
        post(h, d);
    }

    /** A packet of {@code type} with {@code payload} bytes of zeros and a header saying {@code size}. */
    void sendPacket(int type, long size, int payload) throws Exception {
        RxmPacketHeader h = header(type, RxmWireDescriptor.OP_MSG, 0);
        h.msgId = sent;
        h.size = size;
        post(h, ByteBuffer.allocate(payload));
    }

    /**
     * An atomic request as rxm sends it (type 6, op fetch): {@code FI_ATOMIC_READ} of {@code count}
     * 64-bit words at {@code addr} under {@code key} — an answer of {@code 8 × count} bytes for a
     * request of 160.
     */
    void sendAtomicRead(long addr, long key, long count) throws Exception {
        RxmPacketHeader h = header(RxmWireDescriptor.TYPE_ATOMIC, RxmWireDescriptor.OP_ATOMIC_FETCH, 0);
        h.msgId = sent;
        h.size = RxmWireDescriptor.ATOMIC_OPERANDS;
        h.tag = RxmWireDescriptor.DATATYPE_INT64 | (long) Fi.FI_ATOMIC_READ << 8 | 1L << 16; // datatype, op, ioc count
        ByteBuffer ioc = ByteBuffer.allocate(RxmWireDescriptor.ATOMIC_OPERANDS).order(ByteOrder.LITTLE_ENDIAN);
        ioc.putLong(RxmWireDescriptor.ATOMIC_IOC_ADDR, addr);
        ioc.putLong(RxmWireDescriptor.ATOMIC_IOC_COUNT, count);
        ioc.putLong(RxmWireDescriptor.ATOMIC_IOC_KEY, key);
        post(h, ioc);
    }

    /**
     * A packet of header {@code h} (its {@code conn_id} as given) and {@code payload}.
     *
     * @return 0, or the negative errno of the send (the connection ended)
     */
    int sendHeader(RxmPacketHeader h, ByteBuffer payload) {
        return trySend(packet(h, payload));
    }

    /**
     * As {@link #sendHeader}, with the byte at {@code offset} of the header then set to
     * {@code value} (the header's writer fixes the version bytes: a peer speaking another version).
     */
    int sendPatched(RxmPacketHeader h, ByteBuffer payload, int offset, int value) {
        ByteBuffer b = packet(h, payload);
        b.put(offset, (byte) value);
        return trySend(b);
    }

    /** The connection index the rxm side gave us: the {@code conn_id} its packets expect. */
    int indexAtRxm() {
        return indexAtRxm;
    }

    /** A packet of {@code n} bytes, fewer than an rxm header. */
    void sendShortPacket(int n) throws Exception {
        sendRaw(ByteBuffer.allocateDirect(n));
    }

    private void send(int type, int op, long ctrlData, int payload) throws Exception {
        RxmPacketHeader h = header(type, op, ctrlData);
        h.msgId = sent;
        h.size = payload;
        post(h, ByteBuffer.allocate(payload));
    }

    private RxmPacketHeader header(int type, int op, long ctrlData) {
        RxmPacketHeader h = new RxmPacketHeader();
        h.type = type;
        h.op = op;
        h.connId = indexAtRxm;
        h.ctrlData = ctrlData;
        return h;
    }

    private void post(RxmPacketHeader h, ByteBuffer payload) throws Exception {
        sendRaw(packet(h, payload));
    }

    /** Header {@code h} then {@code payload}, in a buffer of their length. */
    private static ByteBuffer packet(RxmPacketHeader h, ByteBuffer payload) {
        int n = payload.remaining();
        ByteBuffer b = ByteBuffer.allocateDirect(RxmWireDescriptor.HEADER_LENGTH + n).order(ByteOrder.LITTLE_ENDIAN);
        h.write(b, 0);
        b.put(RxmWireDescriptor.HEADER_LENGTH, payload, payload.position(), n);
        b.limit(RxmWireDescriptor.HEADER_LENGTH + n);
        return b;
    }

    private void sendRaw(ByteBuffer b) throws Exception {
        assertEquals(0, trySend(b));
    }

    /** Sends {@code b}, driving the rxm side while our queue is full: 0 or the send's negative errno. */
    private int trySend(ByteBuffer b) {
        int rc;
        CqEntry[] none = new CqEntry[0];
        while ((rc = server.send(b, null, 0, "fake-" + sent)) == -Errno.EAGAIN) {
            rxm.txCq.read(none, 0); // the rxm side reads what we sent (MANUAL progress)
            Thread.onSpinWait();
        }
        sent++;
        return rc;
    }
}
