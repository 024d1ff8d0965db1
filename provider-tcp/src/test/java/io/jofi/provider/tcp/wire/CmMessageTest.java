package io.jofi.provider.tcp.wire;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_TYPE_ACCEPT;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_TYPE_REJECT;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CM_TYPE_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CONN_DATA_BIG_ENDIAN;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CONN_DATA_LITTLE_ENDIAN;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.CONN_DATA_REJECT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The CM messages of docs/TCP-WIRE.md "Connection handshake", byte for byte, and every bad CM input. */
class CmMessageTest {

    /** 24 zero bytes: seg_no, conn_id, msg_id. */
    private static final String ZEROS = Hex.zeros(4 + 8 + 8);

    // docs/TCP-WIRE.md's hex examples (little-endian C sides).
    private static final String REQUEST = "03 00 0000" + ZEROS + "0100000000000000";
    private static final String REQUEST_WITH_DATA = "03 00 000a" + ZEROS + "0100000000000000 436c69656e7444617461";
    private static final String ACCEPT = "03 01 0000" + ZEROS + "0100000000000000";
    private static final String ACCEPT_WITH_DATA = "03 01 0006" + ZEROS + "0100000000000000 414343455054";
    private static final String REJECT = "03 06 000b" + ZEROS + "0000000000000000 52454a4543542d44415441";

    private static byte[] ascii(final String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] encode(final CmMessage message) {
        final ByteBuffer dst = ByteBuffer.allocate(512);
        final int written = message.encode(dst);
        assertEquals(dst.position(), written);
        final byte[] out = new byte[written];
        dst.flip().get(out);
        return out;
    }

    private static void assertDecodes(final String hex, final int type, final long connData, final byte[] data) {
        final byte[] wire = Hex.bytes(hex);
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            final ByteBuffer src = ByteBuffer.wrap(wire).order(order);
            final CmMessage message = new CmMessage();
            assertEquals(wire.length, message.decode(src), hex);
            assertEquals(wire.length, src.position(), "consumed everything");
            assertEquals(TcpWireDescriptor.VERSION, message.version());
            assertEquals(type, message.type());
            assertEquals(connData, message.connData());
            assertArrayEquals(data, message.dataCopy());
        }
    }

    @Test
    void decodesEveryHexExampleOfTheSpec() {
        assertDecodes(REQUEST, CM_TYPE_REQUEST, CONN_DATA_LITTLE_ENDIAN, new byte[0]);
        assertDecodes(REQUEST_WITH_DATA, CM_TYPE_REQUEST, CONN_DATA_LITTLE_ENDIAN, ascii("ClientData"));
        assertDecodes(ACCEPT, CM_TYPE_ACCEPT, CONN_DATA_LITTLE_ENDIAN, new byte[0]);
        assertDecodes(ACCEPT_WITH_DATA, CM_TYPE_ACCEPT, CONN_DATA_LITTLE_ENDIAN, ascii("ACCEPT"));
        assertDecodes(REJECT, CM_TYPE_REJECT, CONN_DATA_REJECT, ascii("REJECT-DATA"));
    }

    @Test
    void encodesEveryHexExampleOfTheSpecAsALittleEndianSenderWould() {
        final byte[] none = new byte[0];
        assertEquals(Hex.of(Hex.bytes(REQUEST)),
            Hex.of(encode(new CmMessage().set(CM_TYPE_REQUEST, none, 0, 0).connData(CONN_DATA_LITTLE_ENDIAN))));
        assertEquals(Hex.of(Hex.bytes(REQUEST_WITH_DATA)),
            Hex.of(encode(new CmMessage().set(CM_TYPE_REQUEST, ascii("ClientData"), 0, 10).connData(CONN_DATA_LITTLE_ENDIAN))));
        assertEquals(Hex.of(Hex.bytes(ACCEPT)),
            Hex.of(encode(new CmMessage().set(CM_TYPE_ACCEPT, null, 0, 0).connData(CONN_DATA_LITTLE_ENDIAN))));
        assertEquals(Hex.of(Hex.bytes(ACCEPT_WITH_DATA)),
            Hex.of(encode(new CmMessage().set(CM_TYPE_ACCEPT, ascii("xxACCEPT"), 2, 6).connData(CONN_DATA_LITTLE_ENDIAN))));
        // a reject carries conn_data 0 without any override
        assertEquals(Hex.of(Hex.bytes(REJECT)),
            Hex.of(encode(new CmMessage().set(CM_TYPE_REJECT, ascii("REJECT-DATA"), 0, 11))));
    }

    @Test
    void jofiDeclaresBigEndianWhateverTheBufferOrder() {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            final ByteBuffer dst = ByteBuffer.allocate(64).order(order);
            new CmMessage().set(CM_TYPE_REQUEST, ascii("ClientData"), 0, 10).encode(dst);
            final byte[] out = new byte[dst.position()];
            dst.flip().get(out);
            assertEquals(Hex.of(Hex.bytes("03 00 000a" + ZEROS + "0000000000000001 436c69656e7444617461")), Hex.of(out));
            assertEquals(order, dst.order(), "the buffer's order is left alone");
        }
        final CmMessage decoded = new CmMessage();
        decoded.decode(ByteBuffer.wrap(Hex.bytes("03 01 0000" + ZEROS + "0000000000000001")));
        assertEquals(CONN_DATA_BIG_ENDIAN, decoded.connData());
        assertEquals(ByteOrder.BIG_ENDIAN, decoded.declaredByteOrder());
    }

    @Test
    void declaredByteOrderOfLittleEndianAndReject() {
        final CmMessage message = new CmMessage();
        message.decode(ByteBuffer.wrap(Hex.bytes(REQUEST)));
        assertEquals(ByteOrder.LITTLE_ENDIAN, message.declaredByteOrder());
        message.decode(ByteBuffer.wrap(Hex.bytes(REJECT)));
        assertNull(message.declaredByteOrder());
    }

    @Test
    void everyPrefixNeedsMoreAndConsumesNothing() {
        final byte[] wire = Hex.bytes(REQUEST_WITH_DATA);
        for (int length = 0; length < wire.length; length++) {
            final ByteBuffer src = ByteBuffer.wrap(wire, 0, length);
            final CmMessage message = new CmMessage();
            assertEquals(WireStatus.NEED_MORE, message.decode(src), "prefix of " + length);
            assertEquals(0, src.position());
            assertEquals(0, message.dataLength(), "holder unchanged");
        }
    }

    @Test
    void decodesFromTheBufferPositionAndLeavesWhatFollows() {
        final byte[] wire = Hex.bytes("ffff" + ACCEPT_WITH_DATA + "0300");
        final ByteBuffer src = ByteBuffer.wrap(wire);
        src.position(2);
        final CmMessage message = new CmMessage();
        assertEquals(32 + 6, message.decode(src));
        assertEquals(2 + 32 + 6, src.position());
        assertArrayEquals(ascii("ACCEPT"), message.dataCopy());
    }

    @Test
    void wrongVersionIsReportedFromTheFirstByte() {
        for (final int version : new int[] {0, 1, 2, 4, 0xff}) {
            final ByteBuffer src = ByteBuffer.wrap(new byte[] {(byte) version});
            assertEquals(WireStatus.CM_WRONG_VERSION, new CmMessage().decode(src));
            assertEquals(0, src.position());
        }
        final byte[] wire = Hex.bytes(ACCEPT);
        wire[0] = 2;
        assertEquals(WireStatus.CM_WRONG_VERSION, new CmMessage().decode(ByteBuffer.wrap(wire)));
    }

    @Test
    void everyUnknownTypeIsABadType() {
        for (int type = 0; type < 256; type++) {
            final byte[] wire = Hex.bytes(REQUEST);
            wire[1] = (byte) type;
            final ByteBuffer src = ByteBuffer.wrap(wire);
            final int expected = type == 0 || type == 1 || type == 6 ? wire.length : WireStatus.CM_BAD_TYPE;
            assertEquals(expected, new CmMessage().decode(src), "type " + type);
            // found as soon as the type byte is there
            if (expected < 0) {
                assertEquals(WireStatus.CM_BAD_TYPE, new CmMessage().decode(ByteBuffer.wrap(wire, 0, 2)));
            }
        }
    }

    @Test
    void connectionDataAbove256IsRefusedAsSoonAsSegSizeArrives() {
        final byte[] wire = Hex.bytes("03 00 0101" + ZEROS + "0100000000000000");
        assertEquals(WireStatus.CM_DATA_TOO_LONG, new CmMessage().decode(ByteBuffer.wrap(wire, 0, 4)));
        assertEquals(WireStatus.CM_DATA_TOO_LONG, new CmMessage().decode(ByteBuffer.wrap(Hex.bytes("03 01 ffff"))));
        // exactly 256 is fine
        final ByteBuffer max = ByteBuffer.allocate(32 + 256);
        max.put(Hex.bytes("03 00 0100" + ZEROS + "0100000000000000")).position(0);
        final CmMessage message = new CmMessage();
        assertEquals(32 + 256, message.decode(max));
        assertEquals(256, message.dataLength());
    }

    @Test
    void aFailedDecodeLeavesTheHolderAsItWas() {
        final CmMessage message = new CmMessage();
        message.decode(ByteBuffer.wrap(Hex.bytes(ACCEPT_WITH_DATA)));
        final byte[] bad = Hex.bytes(REJECT);
        bad[0] = 9;
        assertEquals(WireStatus.CM_WRONG_VERSION, message.decode(ByteBuffer.wrap(bad)));
        assertEquals(CM_TYPE_ACCEPT, message.type());
        assertArrayEquals(ascii("ACCEPT"), message.dataCopy());
    }

    @Test
    void encodingRefusesWhatCannotTravel() {
        final CmMessage message = new CmMessage().set(CM_TYPE_ACCEPT, ascii("ok"), 0, 2);
        assertThrows(IllegalArgumentException.class, () -> message.set(2, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> message.set(CM_TYPE_REQUEST, new byte[257], 0, 257));
        assertThrows(IllegalArgumentException.class, () -> message.set(CM_TYPE_REQUEST, null, 0, -1));
        assertEquals(CM_TYPE_ACCEPT, message.type(), "nothing changed");
        assertArrayEquals(ascii("ok"), message.dataCopy());
        final ByteBuffer small = ByteBuffer.allocate(33);
        assertThrows(IllegalArgumentException.class, () -> message.encode(small));
        assertEquals(0, small.position());
    }

    @Test
    void roundTripsEveryLengthUpTo256() {
        final byte[] payload = new byte[256];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 7 + 3);
        }
        final ByteBuffer buffer = ByteBuffer.allocate(32 + 256);
        final CmMessage in = new CmMessage();
        final CmMessage out = new CmMessage();
        for (int length = 0; length <= 256; length++) {
            buffer.clear();
            out.set(CM_TYPE_REQUEST, payload, 0, length).encode(buffer);
            buffer.flip();
            assertEquals(32 + length, in.decode(buffer));
            assertEquals(length, in.dataLength());
            for (int i = 0; i < length; i++) {
                assertEquals(payload[i], in.dataAt(i));
            }
        }
    }
}
