package io.jofi.provider.rxm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact layouts of rxm's connection data and packet header, as the C structs of libfabric
 * 1.17 lay them out on a little-endian host (union rxm_cm_data, struct rxm_pkt = ofi_ctrl_hdr +
 * ofi_op_hdr, struct rxm_rndv_hdr).
 */
class RxmWireCodecTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void connectDataIsTheCStructConnect() {
        RxmConnectData d = new RxmConnectData();
        d.port = 0x1234;
        d.rxSize = 128;
        d.connId = RxmConnectData.connId(0x0000_4d2L, 7);
        byte[] bytes = d.encodeConnect();
        // version 1, little-endian 2, ctrl 4, op 3 | port LE | flow ctrl off 2, pad | eager 16384 | rx 128 | id
        assertEquals("01020403" + "3412" + "0200" + "00400000" + "80000000" + "07000000d2040000", HEX.formatHex(bytes));
        RxmConnectData back = new RxmConnectData().decodeConnect(bytes, bytes.length, 16384);
        assertNull(back.problem);
        assertEquals(0x1234, back.port);
        assertEquals(7, RxmConnectData.peerIndex(back.connId));
        assertEquals(0x4d2, RxmConnectData.pid(back.connId));
    }

    @Test
    void connectDataOfAnotherVersionOrEagerLimitIsRefused() {
        byte[] bytes = new RxmConnectData().encodeConnect();
        assertNotNull(new RxmConnectData().decodeConnect(bytes, bytes.length, 8192).problem);
        bytes[0] = 2;
        assertNotNull(new RxmConnectData().decodeConnect(bytes, bytes.length, 16384).problem);
        bytes[0] = 1;
        bytes[1] = 1; // big-endian peer
        assertNotNull(new RxmConnectData().decodeConnect(bytes, bytes.length, 16384).problem);
        assertNotNull(new RxmConnectData().decodeConnect(bytes, 10, 16384).problem);
    }

    @Test
    void connectDataNamingListeningPortZeroIsRefused() {
        RxmConnectData d = new RxmConnectData();
        d.port = 0;
        byte[] bytes = d.encodeConnect();
        assertEquals("listening port 0", new RxmConnectData().decodeConnect(bytes, bytes.length, 16384).problem);
        d.port = 1;
        bytes = d.encodeConnect();
        assertNull(new RxmConnectData().decodeConnect(bytes, bytes.length, 16384).problem);
    }

    @Test
    void acceptAndRejectData() {
        RxmConnectData d = new RxmConnectData();
        d.connId = RxmConnectData.connId(0x10, 3);
        d.rxSize = 4096;
        assertEquals("0300000010000000" + "00100000" + "02000000", HEX.formatHex(d.encodeAccept()));
        RxmConnectData back = new RxmConnectData().decodeAccept(d.encodeAccept(), 16);
        assertEquals(3, RxmConnectData.peerIndex(back.connId));
        assertEquals(RxmWireDescriptor.FLOW_CTRL_OFF, back.flowCtrl);
        byte[] reject = RxmConnectData.encodeReject(RxmWireDescriptor.REJECT_ALREADY);
        assertEquals("0102", HEX.formatHex(reject));
        assertEquals(RxmWireDescriptor.REJECT_ALREADY, RxmConnectData.rejectReason(reject, 2));
        assertEquals(RxmWireDescriptor.REJECT_REFUSED, RxmConnectData.rejectReason(new byte[] {2, 2}, 2));
        assertEquals(RxmWireDescriptor.REJECT_REFUSED, RxmConnectData.rejectReason(null, 0));
    }

    @Test
    void eagerPacketHeaderIsCtrlHeaderThenOpHeader() {
        RxmPacketHeader h = new RxmPacketHeader();
        h.type = RxmWireDescriptor.TYPE_EAGER;
        h.connId = 5;
        h.op = RxmWireDescriptor.OP_TAGGED;
        h.flags = RxmWireDescriptor.FLAG_REMOTE_CQ_DATA;
        h.size = 17;
        h.data = 0x0123456789abcdefL;
        h.tag = 0xa1b2L;
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        h.write(b, 0);
        String expected = "04" + "00" + "0000" + "00000000" + "0500000000000000" + "0000000000000000" + "0000000000000000"
                + "02" + "00" + "01" + "00" + "00000200" + "1100000000000000" + "efcdab8967452301" + "b2a1000000000000";
        assertEquals(expected, HEX.formatHex(b.array()));
        RxmPacketHeader r = new RxmPacketHeader().read(b, 0);
        assertTrue(r.hasData());
        assertTrue(r.tagged());
        assertEquals(17, r.size);
        assertEquals(5, r.connId);
        assertEquals(0xa1b2L, r.tag);
    }

    @Test
    void rendezvousDescriptorIsFourRmaIovsThenCount() {
        ByteBuffer b = ByteBuffer.allocate(RxmWireDescriptor.HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH)
                .order(ByteOrder.LITTLE_ENDIAN);
        int at = RxmWireDescriptor.HEADER_LENGTH;
        RxmPacketHeader.writeRendezvousIov(b, at, 0, 0x1000, 65536, 0x2a);
        RxmPacketHeader.writeRendezvousCount(b, at, 1);
        byte[] d = new byte[RxmWireDescriptor.RNDV_LENGTH];
        b.get(at, d);
        byte[] expected = new byte[104];
        ByteBuffer e = ByteBuffer.wrap(expected).order(ByteOrder.LITTLE_ENDIAN);
        e.putLong(0, 0x1000).putLong(8, 65536).putLong(16, 0x2a).put(96, (byte) 1);
        assertArrayEquals(expected, d);
        assertEquals(1, RxmPacketHeader.rendezvousCount(b, at));
        assertEquals(65536, RxmPacketHeader.rendezvousLen(b, at, 0));
        assertEquals(0x2a, RxmPacketHeader.rendezvousKey(b, at, 0));
        assertEquals(168, RxmWireDescriptor.HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH);
    }
}
