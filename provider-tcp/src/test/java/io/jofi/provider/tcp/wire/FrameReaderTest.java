package io.jofi.provider.tcp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The incremental frame decoder over a connection's read buffer, as an endpoint drives it. */
class FrameReaderTest {

    private static final long MAX = 1 << 16;

    /** Three messages back to back: 5 bytes with CQ data, an ack, 3 bytes tagged. */
    private static byte[] stream() {
        final ByteBuffer out = ByteBuffer.allocate(256);
        new MessageHeader().cqData(0x77).payloadLength(5).encode(out);
        out.put(new byte[] {1, 2, 3, 4, 5});
        new MessageHeader().ack().encode(out);
        new MessageHeader().op(TcpWireDescriptor.OP_TAGGED).tag(9).payloadLength(3).encode(out);
        out.put(new byte[] {6, 7, 8});
        final byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    @Test
    void decodesAStreamArrivingOneByteAtATime() {
        final byte[] wire = stream();
        final FrameReader reader = new FrameReader(MAX);
        // the endpoint's read buffer: filled in write mode, decoded in read mode, compacted
        final ByteBuffer read = ByteBuffer.allocate(FrameReader.MIN_READ_BUFFER);
        final ByteBuffer payload = ByteBuffer.allocate(16);
        int messages = 0;
        final long[] cqData = new long[3];
        final long[] tags = new long[3];
        final boolean[] acks = new boolean[3];
        for (final byte b : wire) {
            read.put(b);
            read.flip();
            // move whatever can be moved, as the endpoint's read handler does
            boolean progress = true;
            while (progress) {
                if (reader.inPayload()) {
                    progress = reader.payloadTo(read, payload) > 0;
                    if (progress && !reader.inPayload()) {
                        messages++;
                    }
                } else {
                    final int status = reader.decode(read);
                    assertTrue(status >= 0, WireStatus.describe(status));
                    progress = status > 0;
                    if (progress) {
                        cqData[messages] = reader.header().cqData();
                        tags[messages] = reader.header().tag();
                        acks[messages] = reader.header().isAck();
                        if (!reader.inPayload()) {
                            messages++;
                        }
                    }
                }
            }
            read.compact();
        }
        assertEquals(0, read.position(), "every byte consumed");
        assertEquals(3, messages);
        assertEquals(0x77, cqData[0]);
        assertTrue(acks[1]);
        assertEquals(9, tags[2]);
        final byte[] got = new byte[payload.position()];
        payload.flip().get(got);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, got);
        assertEquals(0, reader.payloadRemaining());
    }

    @Test
    void payloadReadStraightIntoAPostedBufferAfterWhatIsAlreadyBuffered() {
        final FrameReader reader = new FrameReader(MAX);
        final ByteBuffer read = ByteBuffer.allocate(64);
        new MessageHeader().payloadLength(1000).encode(read);
        read.put(new byte[] {10, 11, 12, 13});
        read.flip();
        assertEquals(16, reader.decode(read));
        assertEquals(1000, reader.payloadRemaining());
        assertEquals(1000, reader.header().payloadLength());

        final ByteBuffer posted = ByteBuffer.allocate(1000);
        assertEquals(4, reader.payloadTo(read, posted));
        assertEquals(996, reader.payloadRemaining());
        // the endpoint now reads the channel into `posted` directly, in pieces
        reader.payloadRead(500);
        assertTrue(reader.inPayload());
        assertThrows(IllegalStateException.class, () -> reader.decode(read), "payload still due");
        assertThrows(IllegalArgumentException.class, () -> reader.payloadRead(497));
        assertEquals(496, reader.payloadRemaining(), "nothing changed by the refused call");
        reader.payloadRead(496);
        assertFalse(reader.inPayload());
        assertEquals(0, reader.payloadRemaining());
    }

    @Test
    void truncatedReceiveSkipsTheRestOfThePayload() {
        final FrameReader reader = new FrameReader(MAX);
        final ByteBuffer read = ByteBuffer.allocate(64);
        new MessageHeader().payloadLength(10).encode(read);
        read.put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        new MessageHeader().ack().encode(read);
        read.flip();
        assertEquals(16, reader.decode(read));
        final ByteBuffer small = ByteBuffer.allocate(4);
        assertEquals(4, reader.payloadTo(read, small));
        assertEquals(0, reader.payloadTo(read, small), "destination full");
        assertEquals(6, reader.skip(read));
        assertFalse(reader.inPayload());
        assertEquals(16, reader.decode(read), "the next message follows");
        assertTrue(reader.header().isAck());
        assertEquals(0, read.remaining());
    }

    @Test
    void skipStopsAtTheEndOfTheMessageAndSkippedCountsChannelReads() {
        final FrameReader reader = new FrameReader(MAX);
        final ByteBuffer read = ByteBuffer.allocate(64);
        new MessageHeader().payloadLength(20).encode(read);
        read.put(new byte[8]);
        read.flip();
        reader.decode(read);
        assertEquals(8, reader.skip(read));
        reader.skipped(12);
        assertFalse(reader.inPayload());
        assertEquals(0, reader.skip(read));
    }

    @Test
    void errorsAreStickyAndResetClearsThem() {
        final FrameReader reader = new FrameReader(MAX);
        final ByteBuffer bad = ByteBuffer.wrap(Hex.bytes("03 07 0000 00 00 10 00 0000000000000010"));
        assertEquals(WireStatus.UNKNOWN_OP, reader.decode(bad));
        assertEquals(0, bad.position());
        final ByteBuffer good = ByteBuffer.wrap(Hex.bytes("03 00 0000 02 00 10 00 0000000000000010"));
        assertEquals(WireStatus.UNKNOWN_OP, reader.decode(good), "a broken stream stays broken");
        assertEquals(WireStatus.UNKNOWN_OP, reader.error());
        assertEquals(0, good.position());
        reader.reset();
        assertEquals(0, reader.error());
        assertEquals(16, reader.decode(good));
    }

    @Test
    void maximumMessageSizeIsEnforcedAndAdjustable() {
        final FrameReader reader = new FrameReader(100);
        final ByteBuffer src = ByteBuffer.allocate(16);
        new MessageHeader().payloadLength(101).encode(src);
        src.flip();
        assertEquals(WireStatus.MESSAGE_TOO_LARGE, reader.decode(src));
        reader.reset();
        reader.maxMessageSize(101);
        assertEquals(16, reader.decode(src));
        assertThrows(IllegalArgumentException.class, () -> new FrameReader(-1));
    }

    @Test
    void littleEndianReaderDecodesTwoLittleEndianPeers() {
        final FrameReader reader = new FrameReader(MAX, ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer src = ByteBuffer.wrap(Hex.bytes("03 00 0400 00 00 10 00 1400000000000000 00000000"));
        assertEquals(16, reader.decode(src));
        assertTrue(reader.header().ackRequested());
        assertEquals(4, reader.payloadRemaining());
    }
}
