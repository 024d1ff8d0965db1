package io.jofi.provider.tcp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The checks behind the wire property tests ({@link WirePropertiesTest} with fixed seeds in
 * every build, {@link WireFuzzLongRunTest} with random seeds under {@code -Pfuzz}). Each
 * method fails with an assertion, never by looping or by letting a decoder exception out.
 */
final class WireFuzzChecks {

    private WireFuzzChecks() {
    }

    /** How a stream ended: the sticky error (negative) or 0, and what was decoded. */
    record Outcome(int status, long consumed, int frames, boolean clean) {
    }

    /** Receives what {@link #drive} decodes. */
    interface Sink {
        /** A header was decoded (the reader's holder, valid until the next decode). */
        default void header(final int frame, final MessageHeader header) {
        }

        /** Payload bytes of {@code frame} moved into a destination. */
        default void payload(final int frame, final ByteBuffer bytes) {
        }
    }

    private static final Sink NO_SINK = new Sink() {
    };

    /**
     * Feeds {@code bytes} to a {@link FrameReader} in pieces of at most {@code chunk} bytes
     * through a read buffer of {@link FrameReader#MIN_READ_BUFFER} bytes, as an endpoint
     * does: decode, move payload (copied for even frames, skipped for odd ones), compact, read
     * more. Asserts on every step that the reader never loops (a step budget linear in the
     * input), never gets stuck with a full buffer, never consumes more than arrived, and never
     * reports a header or payload size it cannot justify.
     */
    static Outcome drive(final byte[] bytes, final int chunk, final ByteOrder order, final long max, final Sink sink) {
        final FrameReader reader = new FrameReader(max, order);
        final ByteBuffer read = ByteBuffer.allocate(FrameReader.MIN_READ_BUFFER);
        final ByteBuffer scratch = ByteBuffer.allocate(7);
        final int stepLimit = 4 * bytes.length + 8;
        int steps = 0;
        int fed = 0;
        long consumed = 0;
        int frames = 0;
        while (true) {
            read.flip();
            while (true) {
                if (++steps > stepLimit) {
                    fail("decoder does not make progress: " + steps + " steps for " + bytes.length + " bytes");
                }
                if (reader.inPayload()) {
                    final long due = reader.payloadRemaining();
                    final int n;
                    // frames counts decoded headers: the current frame's index is frames - 1
                    if (((frames - 1) & 1) == 0) {
                        scratch.clear();
                        n = reader.payloadTo(read, scratch);
                        scratch.flip();
                        sink.payload(frames - 1, scratch);
                    } else {
                        n = reader.skip(read);
                    }
                    assertEquals(due - n, reader.payloadRemaining());
                    if (n == 0) {
                        break;
                    }
                    consumed += n;
                } else {
                    final int before = read.position();
                    final int status = reader.decode(read);
                    if (status <= 0) {
                        assertEquals(before, read.position(), "consumed bytes without decoding");
                        if (status < 0) {
                            assertEquals(status, reader.error());
                            assertEquals(status, reader.decode(read), "error is sticky");
                            return new Outcome(status, consumed, frames, false);
                        }
                        break;
                    }
                    assertEquals(status, read.position() - before, "reported length = consumed length");
                    checkJustified(reader.header(), status, max);
                    assertEquals(reader.header().payloadLength(), reader.payloadRemaining());
                    consumed += status;
                    frames++;
                    sink.header(frames - 1, reader.header());
                }
            }
            read.compact();
            assertTrue(consumed <= fed, "consumed " + consumed + " of " + fed + " bytes fed");
            if (fed == bytes.length) {
                return new Outcome(0, consumed, frames, consumed == bytes.length && !reader.inPayload());
            }
            final int n = Math.min(chunk, Math.min(read.remaining(), bytes.length - fed));
            if (n == 0) {
                fail("read buffer full (" + read.position() + " bytes) and the decoder still needs more");
            }
            read.put(bytes, fed, n);
            fed += n;
        }
    }

    /** A decoded header only ever reports what its own bytes justify. */
    static void checkJustified(final MessageHeader header, final int consumed, final long max) {
        checkJustified(header, consumed, max, TcpWireDescriptor.MAX_OP);
    }

    static void checkJustified(final MessageHeader header, final int consumed, final long max, final int maxOp) {
        assertEquals(header.hdrSize(), consumed);
        assertTrue(header.hdrSize() >= TcpWireDescriptor.BASE_HEADER_LENGTH && header.hdrSize() <= TcpWireDescriptor.MAX_HEADER_LENGTH,
            "hdr_size " + header.hdrSize());
        assertTrue(header.op() <= maxOp, "op " + header.op());
        assertTrue(header.rmaIovCount() <= TcpWireDescriptor.MAX_RMA_IOV_COUNT, "rma_iov_cnt " + header.rmaIovCount());
        assertEquals(TcpWireDescriptor.headerLength(header.op(), header.flags(), header.rmaIovCount(), header.opData()), header.hdrSize());
        assertTrue(header.payloadLength() >= 0 && header.payloadLength() <= max, "payload " + header.payloadLength());
        assertEquals(header.hdrSize() + header.payloadLength(), header.size());
    }

    /**
     * Direct decoder calls on {@code bytes} from every start offset (header and CM decoder):
     * no exception, nothing consumed unless decoded, never more than available; and from
     * offset 0 every prefix agrees with the whole (NEED_MORE, or the same result).
     */
    static void checkDirect(final byte[] bytes, final ByteOrder order, final long max) {
        final MessageHeader header = new MessageHeader(order);
        final CmMessage cm = new CmMessage();
        for (int offset = 0; offset <= bytes.length; offset++) {
            final ByteBuffer src = ByteBuffer.wrap(bytes, offset, bytes.length - offset);
            final int h = header.decode(src, max);
            checkStatus(h, src, offset, bytes.length);
            if (h > 0) {
                checkJustified(header, h, max);
            }
            // a connection that negotiated JOFI's extensions accepts ops 5 and 6 too
            src.position(offset);
            final int j = header.decode(src, max, TcpWireDescriptor.MAX_JOFI_OP);
            checkStatus(j, src, offset, bytes.length);
            if (j > 0) {
                checkJustified(header, j, max, TcpWireDescriptor.MAX_JOFI_OP);
            }
            src.position(offset);
            final int c = cm.decode(src);
            checkStatus(c, src, offset, bytes.length);
            if (c > 0) {
                assertEquals(TcpWireDescriptor.CM_HEADER_LENGTH + cm.dataLength(), c);
                assertTrue(cm.dataLength() <= TcpWireDescriptor.CM_MAX_DATA_LENGTH);
            }
        }
        checkPrefixes(bytes, prefix -> new MessageHeader(order).decode(prefix, max));
        checkPrefixes(bytes, prefix -> new MessageHeader(order).decode(prefix, max, TcpWireDescriptor.MAX_JOFI_OP));
        checkPrefixes(bytes, prefix -> new CmMessage().decode(prefix));
    }

    private static void checkStatus(final int status, final ByteBuffer src, final int offset, final int length) {
        if (status > 0) {
            assertTrue(status <= length - offset, "decoded " + status + " of " + (length - offset) + " bytes");
            assertEquals(offset + status, src.position());
        } else {
            assertEquals(offset, src.position(), "nothing consumed on " + WireStatus.describe(status));
            assertTrue(status == WireStatus.NEED_MORE || WireStatus.describe(status).indexOf("unknown wire status") < 0,
                "undocumented status " + status);
        }
    }

    /** A decoder call on a prefix of the input. */
    interface PrefixDecoder {
        int decode(ByteBuffer prefix);
    }

    private static void checkPrefixes(final byte[] bytes, final PrefixDecoder decoder) {
        final int whole = decoder.decode(ByteBuffer.wrap(bytes));
        for (int length = 0; length < bytes.length; length++) {
            final int part = decoder.decode(ByteBuffer.wrap(bytes, 0, length));
            if (whole > 0 && length < whole) {
                assertEquals(WireStatus.NEED_MORE, part, "prefix " + length + " of a " + whole + "-byte header");
            } else if (part != WireStatus.NEED_MORE) {
                assertEquals(whole, part, "prefix " + length + " disagrees with the whole input");
            }
        }
    }

    /** The payload byte {@code i} of frame {@code frame} in generated streams. */
    static byte payloadByte(final int frame, final long i) {
        return (byte) (frame * 31 + i * 7 + 1);
    }

    /** Encodes {@code specs} back to back, each followed by its patterned payload. */
    static byte[] encodeStream(final List<HeaderSpec> specs, final ByteOrder order) {
        long total = 0;
        for (final HeaderSpec spec : specs) {
            total += TcpWireDescriptor.headerLength(spec.op(), spec.flags(), spec.rmaIovCount(), spec.opData()) + spec.payloadLength();
        }
        final ByteBuffer out = ByteBuffer.allocate((int) total);
        final MessageHeader header = new MessageHeader(order);
        for (int frame = 0; frame < specs.size(); frame++) {
            final HeaderSpec spec = specs.get(frame);
            assertTrue(spec.applyTo(header).encode(out) > 0);
            for (long i = 0; i < spec.payloadLength(); i++) {
                out.put(payloadByte(frame, i));
            }
        }
        assertEquals(0, out.remaining());
        return out.array();
    }

    /** A valid stream decodes to exactly its headers and payloads, whatever the chunking. */
    static void checkValidStream(final List<HeaderSpec> specs, final int chunk, final ByteOrder order) {
        final byte[] bytes = encodeStream(specs, order);
        final long[] payloadSeen = new long[specs.size()];
        final Outcome outcome = drive(bytes, chunk, order, WireArbitraries.MAX_MESSAGE_SIZE, new Sink() {
            @Override
            public void header(final int frame, final MessageHeader header) {
                assertNull(specs.get(frame).mismatch(header));
            }

            @Override
            public void payload(final int frame, final ByteBuffer payload) {
                while (payload.hasRemaining()) {
                    assertEquals(payloadByte(frame, payloadSeen[frame]), payload.get(), "payload byte of frame " + frame);
                    payloadSeen[frame]++;
                }
            }
        });
        assertEquals(0, outcome.status(), WireStatus.describe(outcome.status()));
        assertTrue(outcome.clean());
        assertEquals(specs.size(), outcome.frames());
        for (int frame = 0; frame < specs.size(); frame += 2) {
            assertEquals(specs.get(frame).payloadLength(), payloadSeen[frame]);
        }
    }

    /** Arbitrary bytes: the stream decoder and the direct decoders hold every invariant. */
    static void checkArbitrary(final byte[] bytes, final int chunk, final ByteOrder order, final long max) {
        drive(bytes, chunk, order, max, NO_SINK);
        checkDirect(bytes, order, max);
    }

    /** A header round-trips through encode/decode at any buffer offset, in any buffer order. */
    static void checkRoundTrip(final HeaderSpec spec, final ByteOrder order, final int offset, final ByteOrder bufferOrder) {
        final MessageHeader out = spec.applyTo(new MessageHeader(order));
        final ByteBuffer buffer = ByteBuffer.allocate(offset + TcpWireDescriptor.MAX_HEADER_LENGTH).order(bufferOrder);
        buffer.position(offset);
        final int written = out.encode(buffer);
        assertEquals(TcpWireDescriptor.headerLength(spec.op(), spec.flags(), spec.rmaIovCount(), spec.opData()), written);
        buffer.flip().position(offset);
        final MessageHeader in = new MessageHeader(order);
        assertEquals(written, in.decode(buffer, WireArbitraries.MAX_MESSAGE_SIZE));
        assertNull(spec.mismatch(in));
        assertEquals(bufferOrder, buffer.order());
    }

    /** A CM message round-trips with any type and connection data up to 256 bytes. */
    static void checkCmRoundTrip(final int type, final byte[] data) {
        final ByteBuffer buffer = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + TcpWireDescriptor.CM_MAX_DATA_LENGTH);
        final CmMessage out = new CmMessage().set(type, data, 0, data.length);
        assertEquals(32 + data.length, out.encode(buffer));
        buffer.flip();
        final CmMessage in = new CmMessage();
        assertEquals(32 + data.length, in.decode(buffer));
        assertEquals(type, in.type());
        assertEquals(type == TcpWireDescriptor.CM_TYPE_REJECT ? 0L : 1L, in.connData());
        assertTrue(java.util.Arrays.equals(data, in.dataCopy()));
    }

    /** The encoding of a CM message JOFI would send. */
    static byte[] encodeCm(final int type, final byte[] data) {
        final ByteBuffer buffer = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH + data.length);
        new CmMessage().set(type, data, 0, data.length).encode(buffer);
        return buffer.array();
    }
}
