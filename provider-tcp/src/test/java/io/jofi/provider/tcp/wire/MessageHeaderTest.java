package io.jofi.provider.tcp.wire;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_DELIVERY_COMPLETE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_TAGGED;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.HDR_SIZE_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_MSG;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_OFFSET;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_RESPONSE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_TAGGED;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_WRITE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.RMA_IOV_COUNT_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Message headers of docs/TCP-WIRE.md "Messages": every hex example encoded and decoded byte for byte
 * in the byte orders the spec gives, the extension layouts, and every case of docs/TCP-WIRE.md "Bad input" with its own code.
 */
class MessageHeaderTest {

    private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final long MAX = 1L << 20;

    private static String encodeHex(final MessageHeader header) {
        final ByteBuffer dst = ByteBuffer.allocate(256);
        final int written = header.encode(dst);
        assertEquals(dst.position(), written);
        final byte[] out = new byte[written];
        dst.flip().get(out);
        return Hex.of(out);
    }

    /** Decodes {@code hex} (header, then payload) and checks the header consumed exactly hdr_size. */
    private static MessageHeader decode(final String hex, final ByteOrder order, final int expectedHdrSize) {
        final byte[] wire = Hex.bytes(hex);
        final MessageHeader header = new MessageHeader(order);
        // the buffer's own order never matters
        for (final ByteOrder bufferOrder : new ByteOrder[] {BE, LE}) {
            final ByteBuffer src = ByteBuffer.wrap(wire).order(bufferOrder);
            assertEquals(expectedHdrSize, header.decode(src, MAX), hex);
            assertEquals(expectedHdrSize, src.position());
            assertEquals(wire.length, header.size(), "size covers header and payload: " + hex);
        }
        return header;
    }

    @Test
    void oneByteMessageInBothOrders() {
        final MessageHeader le = decode("03 00 0000 00 00 10 00 1100000000000000 00", LE, 16);
        final MessageHeader be = decode("03 00 0000 00 00 10 00 0000000000000011 00", BE, 16);
        for (final MessageHeader h : new MessageHeader[] {le, be}) {
            assertEquals(3, h.version());
            assertEquals(OP_MSG, h.op());
            assertEquals(0, h.flags());
            assertEquals(1, h.payloadLength());
            assertFalse(h.isAck());
            assertFalse(h.ackRequested());
        }
        assertEquals("0300000000001000" + "1100000000000000", encodeHex(new MessageHeader(LE).payloadLength(1)));
        assertEquals("0300000000001000" + "0000000000000011", encodeHex(new MessageHeader().payloadLength(1)));
    }

    @Test
    void sixtyFourByteMessage() {
        final MessageHeader h = decode("03 00 0000 00 00 10 00 5000000000000000" + Hex.zeros(64), LE, 16);
        assertEquals(64, h.payloadLength());
        assertEquals("0300000000001000" + "5000000000000000", encodeHex(new MessageHeader(LE).payloadLength(64)));
        assertEquals("0300000000001000" + "0000000000000050", encodeHex(new MessageHeader(BE).payloadLength(64)));
    }

    @Test
    void fourByteMessageWithAckWantedInBothOrders() {
        final MessageHeader le = decode("03 00 0400 00 00 10 00 1400000000000000 00000000", LE, 16);
        final MessageHeader be = decode("03 00 0004 00 00 10 00 0000000000000014 00000000", BE, 16);
        for (final MessageHeader h : new MessageHeader[] {le, be}) {
            assertEquals(FLAG_DELIVERY_COMPLETE, h.flags());
            assertTrue(h.ackRequested());
            assertEquals(4, h.payloadLength());
        }
        assertEquals("0300040000001000" + "1400000000000000",
            encodeHex(new MessageHeader(LE).flags(FLAG_DELIVERY_COMPLETE).payloadLength(4)));
        assertEquals("0300000400001000" + "0000000000000014",
            encodeHex(new MessageHeader(BE).flags(FLAG_DELIVERY_COMPLETE).payloadLength(4)));
    }

    @Test
    void ackInBothOrders() {
        final MessageHeader le = decode("03 00 0000 02 00 10 00 1000000000000000", LE, 16);
        final MessageHeader be = decode("03 00 0000 02 00 10 00 0000000000000010", BE, 16);
        for (final MessageHeader h : new MessageHeader[] {le, be}) {
            assertTrue(h.isAck());
            assertEquals(0, h.payloadLength());
        }
        assertEquals("0300000002001000" + "1000000000000000", encodeHex(new MessageHeader(LE).ack()));
        assertEquals("0300000002001000" + "0000000000000010", encodeHex(new MessageHeader(BE).ack()));
    }

    @Test
    void remoteCqDataExampleAndItsBigEndianForm() {
        final String payload = Hex.zeros(17);
        final MessageHeader le = decode("03 00 0100 00 00 18 00 2900000000000000 1807f6e5d4c3b2a1" + payload, LE, 24);
        // the same header with big-endian conversion: flags, size and the CQ data word swapped
        final MessageHeader be = decode("03 00 0001 00 00 18 00 0000000000000029 a1b2c3d4e5f60718" + payload, BE, 24);
        for (final MessageHeader h : new MessageHeader[] {le, be}) {
            assertTrue(h.hasCqData());
            assertEquals(0xa1b2c3d4e5f60718L, h.cqData());
            assertEquals(17, h.payloadLength());
        }
        assertEquals("0300010000001800" + "2900000000000000" + "1807f6e5d4c3b2a1",
            encodeHex(new MessageHeader(LE).cqData(0xa1b2c3d4e5f60718L).payloadLength(17)));
        assertEquals("0300000100001800" + "0000000000000029" + "a1b2c3d4e5f60718",
            encodeHex(new MessageHeader(BE).cqData(0xa1b2c3d4e5f60718L).payloadLength(17)));
    }

    @Test
    void idIsWrittenAndDecodedButNeverChecked() {
        final MessageHeader h = new MessageHeader().id(0x1ff).payloadLength(0);
        assertEquals("03000000000010ff" + "0000000000000010", encodeHex(h));
        final MessageHeader d = decode("03 00 0000 00 00 10 7a 0000000000000010", BE, 16);
        assertEquals(0x7a, d.id());
    }

    @Test
    void versionOfDataMessagesIsNotChecked() {
        final MessageHeader d = decode("09 00 0000 00 00 10 00 0000000000000011 00", BE, 16);
        assertEquals(9, d.version());
    }

    @Test
    void taggedMessageCarriesTheTagAfterTheCqData() {
        final MessageHeader out = new MessageHeader().op(OP_TAGGED).cqData(0x1122334455667788L)
            .tag(0x0102030405060708L).payloadLength(3);
        final String hex = encodeHex(out);
        assertEquals("0301000100002000" + "0000000000000023" + "1122334455667788" + "0102030405060708", hex);
        final MessageHeader in = decode(hex + "aabbcc", BE, 32);
        assertEquals(OP_TAGGED, in.op());
        assertEquals(0x1122334455667788L, in.cqData());
        assertEquals(0x0102030405060708L, in.tag());
        assertEquals(3, in.payloadLength());

        final MessageHeader noData = decode("03 01 0000 00 00 18 00 0000000000000018 0000000000000abc", BE, 24);
        assertEquals(0xabcL, noData.tag());
        assertFalse(noData.hasCqData());
    }

    @Test
    void flagBit7IsATaggedMessageSentAsOpZero() {
        final String hex = encodeHex(new MessageHeader().op(OP_MSG).flags(FLAG_TAGGED).tag(42).payloadLength(0));
        assertEquals("0300008000001800" + "0000000000000018" + "000000000000002a", hex);
        final MessageHeader in = decode(hex, BE, 24);
        assertTrue(in.hasTag());
        assertEquals(42, in.tag());
    }

    @Test
    void rmaWriteWithCqDataAndFourDescriptorsIsTheLargestHeader() {
        final MessageHeader out = new MessageHeader().op(OP_WRITE).cqData(7).rmaIovCount(4).payloadLength(10);
        for (int i = 0; i < 4; i++) {
            out.rmaIov(i, 0x1000L * (i + 1), 100 + i, 0xabc0 + i);
        }
        final ByteBuffer buffer = ByteBuffer.allocate(200);
        assertEquals(120, out.encode(buffer));
        assertEquals(120, buffer.get(HDR_SIZE_OFFSET));
        assertEquals(4, buffer.get(RMA_IOV_COUNT_OFFSET));
        // layout: CQ data at 16, then descriptors of 24 bytes from 24
        assertEquals(7, buffer.getLong(16));
        assertEquals(0x1000L, buffer.getLong(24));
        assertEquals(100, buffer.getLong(32));
        assertEquals(0xabc0, buffer.getLong(40));
        assertEquals(0x4000L, buffer.getLong(24 + 3 * 24));
        buffer.flip();
        final MessageHeader in = new MessageHeader();
        assertEquals(120, in.decode(buffer, MAX));
        assertEquals(130, in.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(0x1000L * (i + 1), in.rmaAddr(i));
            assertEquals(100 + i, in.rmaLen(i));
            assertEquals(0xabc0 + i, in.rmaKey(i));
        }
    }

    /** JOFI's atomic ops exist only for a decoder told the connection negotiated them. */
    @Test
    void atomicOpsDecodeOnlyOnAJofiConnection() {
        final MessageHeader request = new MessageHeader().op(TcpWireDescriptor.OP_ATOMIC_REQUEST).rmaIovCount(1)
            .rmaIov(0, 0x1000, 8, 0x77).payloadLength(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        final String hex = encodeHex(request);
        assertEquals("0305000000012800" + "0000000000000040" + "0000000000001000" + "0000000000000008"
            + "0000000000000077", hex, "TcpWireDescriptor's diagram");
        assertEquals(WireStatus.UNKNOWN_OP, new MessageHeader().decode(ByteBuffer.wrap(Hex.bytes(hex)), MAX));
        final MessageHeader in = new MessageHeader();
        assertEquals(40, in.decode(ByteBuffer.wrap(Hex.bytes(hex)), MAX, TcpWireDescriptor.MAX_JOFI_OP));
        assertEquals(0x77, in.rmaKey(0));
        final String response = encodeHex(new MessageHeader().op(TcpWireDescriptor.OP_ATOMIC_RESPONSE).rmaIovCount(1)
            .payloadLength(TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD));
        assertEquals("0306000000011000" + "0000000000000018", response, "a bare header");
        assertEquals(16, in.decode(ByteBuffer.wrap(Hex.bytes(response)), MAX, TcpWireDescriptor.MAX_JOFI_OP));
        final byte[] seven = Hex.bytes(response);
        seven[1] = 7;
        assertEquals(WireStatus.UNKNOWN_OP, in.decode(ByteBuffer.wrap(seven), MAX, TcpWireDescriptor.MAX_JOFI_OP));
    }

    /**
     * libfabric 1.17 acks an RMA write with the write's rma_iov_cnt copied (captured between
     * JOFI and the C peer): an ack is a bare base header whatever rma_iov_cnt and flags say.
     */
    @Test
    void anAckOfAnRmaWriteCarriesTheCopiedDescriptorCountAndIsStillBare() {
        final MessageHeader h = decode("03 00 0000 02 01 10 00 0000000000000010", BE, 16);
        assertTrue(h.isAck());
        assertEquals(0, h.rmaIovCount(), "the copied count means nothing on an ack (TcpWireDescriptor.usesRmaIovs)");
        assertEquals(0, h.payloadLength());
        assertFalse(h.hasCqData());
        final MessageHeader withFlags = decode("03 04 0001 02 01 10 00 0000000000000010", BE, 16);
        assertTrue(withFlags.isAck(), "copied flags and op do not make extensions follow an ack");
        assertFalse(withFlags.hasCqData());
        assertEquals(16, TcpWireDescriptor.headerLength(TcpWireDescriptor.OP_WRITE, 1, 1, TcpWireDescriptor.OP_DATA_ACK));
        final MessageHeader encoded = new MessageHeader().op(TcpWireDescriptor.OP_WRITE).rmaIovCount(1).rmaIov(0, 1, 2, 3)
            .opData(TcpWireDescriptor.OP_DATA_ACK).payloadLength(0);
        assertEquals("03040000020110000000000000000010", encodeHex(encoded), "encoded bare too");
    }

    @Test
    void readRequestCarriesDescriptorsAndReadResponseIsABareBaseHeader() {
        final MessageHeader request = new MessageHeader().op(OP_READ_REQUEST).rmaIovCount(2)
            .rmaIov(0, 1, 2, 3).rmaIov(1, 4, 5, 6).payloadLength(0);
        assertEquals(16 + 48, TcpWireDescriptor.headerLength(OP_READ_REQUEST, 0, 2));
        final String hex = encodeHex(request);
        assertEquals(64 * 2, hex.length());
        assertEquals(2, decode(hex, BE, 64).rmaIovCount());

        // libfabric answers with a copy of the request header: rma_iov_cnt 2, hdr_size 16
        final MessageHeader response = decode("03 03 0000 00 02 10 00 0000000000000017" + Hex.zeros(7), BE, 16);
        assertEquals(OP_READ_RESPONSE, response.op());
        assertEquals(0, response.rmaIovCount(), "the copied count means nothing on a response");
        assertEquals(7, response.payloadLength());
        assertEquals("0303000000021000" + "0000000000000017",
            encodeHex(new MessageHeader().op(OP_READ_RESPONSE).rmaIovCount(2).payloadLength(7)));
    }

    @Test
    void readResponseIgnoresExtensionFlagsCopiedFromTheRequest() {
        // found by the property test: flags bit 7 and bit 0 on a read response must not make the
        // decoder read a tag or CQ data beyond the 16-byte header
        final ByteBuffer src = ByteBuffer.wrap(Hex.bytes("03 03 0081 00 01 10 00 0000000000000010"));
        final MessageHeader h = new MessageHeader();
        assertEquals(16, h.decode(src, MAX));
        assertFalse(h.hasTag());
        assertFalse(h.hasCqData());
        assertEquals(0, h.tag());
        assertEquals("0303008100011000" + "0000000000000010",
            encodeHex(new MessageHeader().op(OP_READ_RESPONSE).flags(FLAG_TAGGED).cqData(5).rmaIovCount(1)));
    }

    @Test
    void encodeNeedsRoomForTheWholeHeaderAndRefusesImpossibleHeaders() {
        final ByteBuffer small = ByteBuffer.allocate(23);
        assertEquals(0, new MessageHeader().cqData(1).encode(small));
        assertEquals(0, small.position());
        final MessageHeader tooBig = new MessageHeader().op(OP_WRITE).flags(FLAG_TAGGED).cqData(1).rmaIovCount(4);
        assertThrows(IllegalStateException.class, () -> tooBig.encode(ByteBuffer.allocate(256)));
        assertThrows(IllegalArgumentException.class, () -> new MessageHeader().op(7));
        assertThrows(IllegalArgumentException.class, () -> new MessageHeader().rmaIovCount(5));
        assertThrows(IllegalArgumentException.class, () -> new MessageHeader().payloadLength(-1));
    }

    // ---------------------------------------------------------------- bad input (docs/TCP-WIRE.md "Bad input")

    private static byte[] validMessage() {
        return Hex.bytes("03 00 0000 00 00 10 00 0000000000000011 00");
    }

    /** Decodes a whole bad header, then checks nothing was consumed and the holder is unchanged. */
    private static void assertBad(final byte[] wire, final int expected) {
        final MessageHeader header = new MessageHeader();
        header.decode(ByteBuffer.wrap(Hex.bytes("03 00 0000 02 00 10 00 0000000000000010")), MAX);
        final ByteBuffer src = ByteBuffer.wrap(wire);
        assertEquals(expected, header.decode(src, MAX), WireStatus.describe(expected));
        assertEquals(0, src.position(), "nothing consumed");
        assertTrue(header.isAck(), "holder unchanged");
        assertEquals(16, header.size());
    }

    @Test
    void hdrSizeBelowSixteen() {
        for (int hdrSize = 0; hdrSize < 16; hdrSize++) {
            final byte[] wire = validMessage();
            wire[HDR_SIZE_OFFSET] = (byte) hdrSize;
            assertBad(wire, WireStatus.HDR_SIZE_TOO_SMALL);
        }
    }

    @Test
    void hdrSizeAbove120() {
        for (int hdrSize = 121; hdrSize < 256; hdrSize++) {
            final byte[] wire = validMessage();
            wire[HDR_SIZE_OFFSET] = (byte) hdrSize;
            assertBad(wire, WireStatus.HDR_SIZE_TOO_LARGE);
        }
    }

    @Test
    void hdrSizeNotMatchingFlagsOpAndExtensions() {
        // CQ data flag without the 8 bytes
        assertBad(Hex.bytes("03 00 0001 00 00 10 00 0000000000000011 00"), WireStatus.HDR_SIZE_MISMATCH);
        // 8 extension bytes nobody asked for
        assertBad(Hex.bytes("03 00 0000 00 00 18 00 0000000000000018" + Hex.zeros(8)), WireStatus.HDR_SIZE_MISMATCH);
        // tagged without a tag
        assertBad(Hex.bytes("03 01 0000 00 00 10 00 0000000000000010"), WireStatus.HDR_SIZE_MISMATCH);
        // a write announcing 2 descriptors but sized for 1
        assertBad(Hex.bytes("03 04 0000 00 02 28 00 0000000000000028" + Hex.zeros(24)), WireStatus.HDR_SIZE_MISMATCH);
        // tag + CQ data + 4 descriptors would be 128 bytes: no hdr_size up to 120 can match
        assertBad(Hex.bytes("03 01 0001 00 04 78 00 0000000000000078" + Hex.zeros(104)), WireStatus.HDR_SIZE_MISMATCH);
        // a read response is 16 bytes whatever its rma_iov_cnt says
        assertBad(Hex.bytes("03 03 0000 00 01 28 00 0000000000000028" + Hex.zeros(24)), WireStatus.HDR_SIZE_MISMATCH);
    }

    @Test
    void sizeBelowHdrSize() {
        for (final String size : new String[] {"0000000000000000", "000000000000000f", "0000000000000017"}) {
            final String hex = "03 00 0001 00 00 18 00" + size + Hex.zeros(8);
            assertBad(Hex.bytes(hex), WireStatus.SIZE_BELOW_HDR_SIZE);
        }
    }

    @Test
    void payloadAboveTheMaximumMessageSize() {
        final ByteBuffer at = ByteBuffer.allocate(16);
        at.put(Hex.bytes("03 00 0000 00 00 10 00")).putLong(16 + MAX).flip();
        assertEquals(16, new MessageHeader().decode(at, MAX), "exactly the maximum is fine");
        final ByteBuffer over = ByteBuffer.allocate(16);
        over.put(Hex.bytes("03 00 0000 00 00 10 00")).putLong(16 + MAX + 1).flip();
        assertEquals(WireStatus.MESSAGE_TOO_LARGE, new MessageHeader().decode(over, MAX));
        assertEquals(0, over.position());
        // sizes of 2^63 and more are unsigned, hence too large, not "below hdr_size"
        assertBad(Hex.bytes("03 00 0000 00 00 10 00 8000000000000000"), WireStatus.MESSAGE_TOO_LARGE);
        assertBad(Hex.bytes("03 00 0000 00 00 10 00 ffffffffffffffff"), WireStatus.MESSAGE_TOO_LARGE);
        // the maximum applies to the payload, not to hdr_size + payload
        final ByteBuffer zeroMax = ByteBuffer.wrap(Hex.bytes("03 00 0001 00 00 18 00 0000000000000018" + Hex.zeros(8)));
        assertEquals(24, new MessageHeader().decode(zeroMax, 0));
    }

    @Test
    void unknownOp() {
        for (int op = 5; op < 256; op++) {
            final byte[] wire = validMessage();
            wire[OP_OFFSET] = (byte) op;
            assertBad(wire, WireStatus.UNKNOWN_OP);
            // reported as soon as the op byte is there
            assertEquals(WireStatus.UNKNOWN_OP, new MessageHeader().decode(ByteBuffer.wrap(wire, 0, 2), MAX));
        }
    }

    @Test
    void moreThanFourRmaDescriptors() {
        for (int count = 5; count < 256; count++) {
            final byte[] wire = Hex.bytes("03 04 0000 00 00 10 00 0000000000000010");
            wire[RMA_IOV_COUNT_OFFSET] = (byte) count;
            assertBad(wire, WireStatus.TOO_MANY_RMA_IOVS);
            assertEquals(WireStatus.TOO_MANY_RMA_IOVS, new MessageHeader().decode(ByteBuffer.wrap(wire, 0, 6), MAX));
        }
    }

    /**
     * docs/TCP-WIRE.md "Accepted fields": libfabric 1.17 never clears rma_iov_cnt when it reuses a transmit entry,
     * so a message (or an ack) sent after an RMA operation carries that operation's count. Its
     * receiver ignores the field for ops without descriptors; so does JOFI (decoded as 0).
     */
    @Test
    void aStaleRmaIovCountOnAMessageIsIgnored() {
        // op msg, stale count 3, hdr_size 16, 5 bytes of payload
        MessageHeader h = decode("03 00 0000 00 03 10 00 0000000000000015 0102030405", BE, 16);
        assertEquals(OP_MSG, h.op());
        assertEquals(0, h.rmaIovCount());
        assertEquals(5, h.payloadLength());
        // tagged (op 1) with CQ data, stale count 1: 16 + 8 + 8
        h = decode("03 01 0001 00 01 20 00 0000000000000020 0000000000000009 0000000000000007", BE, 32);
        assertEquals(OP_TAGGED, h.op());
        assertEquals(9, h.cqData());
        assertEquals(7, h.tag());
        assertEquals(0, h.rmaIovCount());
        // op 0 + flag bit 7 (tagged through rxm), stale count 4, little-endian
        h = decode("03 00 8000 00 04 18 00 1800000000000000 0700000000000000", LE, 24);
        assertTrue(h.hasTag());
        assertEquals(7, h.tag());
        // a count libfabric cannot leave (above 4) is ignored all the same: the field means nothing here
        h = decode("03 00 0000 00 c8 10 00 0000000000000010", BE, 16);
        assertEquals(0, h.rmaIovCount());
        // an ack with a stale count (seen on the wire after an RMA write)
        h = decode("03 00 0000 02 07 10 00 0000000000000010", BE, 16);
        assertTrue(h.isAck());
        // ops with descriptors still count them: a write's hdr_size must cover its count
        assertBad(Hex.bytes("03 04 0000 00 01 10 00 0000000000000010"), WireStatus.HDR_SIZE_MISMATCH);
        assertBad(Hex.bytes("03 02 0000 00 05 10 00 0000000000000010"), WireStatus.TOO_MANY_RMA_IOVS);
    }

    @Test
    void everyPrefixOfAValidHeaderNeedsMoreAndConsumesNothing() {
        final MessageHeader out = new MessageHeader().op(OP_WRITE).cqData(9).rmaIovCount(3).payloadLength(5);
        final ByteBuffer full = ByteBuffer.allocate(120);
        final int length = out.encode(full);
        for (int prefix = 0; prefix < length; prefix++) {
            final ByteBuffer src = ByteBuffer.wrap(full.array(), 0, prefix);
            assertEquals(WireStatus.NEED_MORE, new MessageHeader().decode(src, MAX), "prefix " + prefix);
            assertEquals(0, src.position());
        }
    }

    @Test
    void decodesFromThePositionAndLeavesThePayload() {
        final byte[] wire = Hex.bytes("eeee 03 00 0000 00 00 10 00 0000000000000012 abcd");
        final ByteBuffer src = ByteBuffer.wrap(wire);
        src.position(2);
        assertEquals(16, new MessageHeader().decode(src, MAX));
        assertEquals(18, src.position());
        assertEquals(2, src.remaining());
    }
}
