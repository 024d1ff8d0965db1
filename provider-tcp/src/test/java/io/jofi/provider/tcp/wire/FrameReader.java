package io.jofi.provider.tcp.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The incremental decoder of one connection's inbound message stream, as the wire tests and
 * the fuzz checks drive it (a test harness: the provider's {@code TcpReceiver} reads frames
 * straight from the socket into posted buffers its own way): header bytes arrive
 * in pieces, and once a header is complete the payload length is known, so the endpoint can
 * move the payload straight into a posted receive buffer (or discard it, or stage it as an
 * unexpected message) without a copy through an intermediate frame.
 *
 * <p>Two states. <b>Header</b>: {@link #decode(ByteBuffer)} looks at whatever has arrived in
 * the connection's read buffer (in read mode: position = first unread byte) and returns
 * {@link WireStatus#NEED_MORE} (nothing consumed: compact, read more, call again), a negative
 * {@link WireStatus} code (the peer is broken: tear the connection down; the code stays,
 * every later call returns it), or the header length it consumed, after which
 * {@link #header()} describes the message and the reader is in the <b>payload</b> state with
 * {@link #payloadRemaining()} bytes to go. The endpoint then moves the payload with any mix of
 * {@link #payloadTo(ByteBuffer, ByteBuffer)} (from the read buffer into a destination),
 * {@link #payloadRead(long)} (it read bytes from the channel straight into its destination)
 * and {@link #skip(ByteBuffer)} / {@link #skipped(long)} (truncated or discarded bytes). When
 * {@link #payloadRemaining()} reaches 0 the message is complete and the reader is back in the
 * header state — immediately, for a header without payload such as an acknowledgement.
 *
 * <p>Any buffer of at least {@link #MIN_READ_BUFFER} bytes can hold a whole header, so a
 * compacted read buffer of that size always makes progress. No allocation after construction;
 * the header holder is reused (valid until the next {@link #decode}). Single-threaded: one
 * reader per connection, driven by the connection's progress.
 */
public final class FrameReader {

    /** A read buffer of at least this many bytes holds any header (120). */
    public static final int MIN_READ_BUFFER = TcpWireDescriptor.MAX_HEADER_LENGTH;

    private final MessageHeader header;
    private long maxMessageSize;
    private long payloadRemaining;
    private boolean inPayload;
    private int error;

    /**
     * A reader of big-endian headers (every JOFI connection).
     *
     * @param maxMessageSize the largest payload accepted; larger is
     *                       {@link WireStatus#MESSAGE_TOO_LARGE}
     */
    public FrameReader(final long maxMessageSize) {
        this(maxMessageSize, ByteOrder.BIG_ENDIAN);
    }

    /**
     * A reader of headers in the given byte order.
     *
     * @param maxMessageSize the largest payload accepted
     * @param byteOrder      the connection's header byte order
     */
    public FrameReader(final long maxMessageSize, final ByteOrder byteOrder) {
        if (maxMessageSize < 0) {
            throw new IllegalArgumentException("negative maxMessageSize " + maxMessageSize);
        }
        this.maxMessageSize = maxMessageSize;
        this.header = new MessageHeader(byteOrder);
    }

    /**
     * Decodes the next header from {@code src} if the reader is between messages.
     *
     * @param src the connection's read buffer in read mode
     * @return the header length consumed (the header is in {@link #header()}),
     *         {@link WireStatus#NEED_MORE}, or a negative {@link WireStatus} code (sticky)
     * @throws IllegalStateException if called while a payload is still due (a programming
     *                               error: the caller must move the payload first)
     */
    public int decode(final ByteBuffer src) {
        if (error != 0) {
            return error;
        }
        if (inPayload) {
            throw new IllegalStateException(payloadRemaining + " payload bytes of the current message are still due");
        }
        final int result = header.decode(src, maxMessageSize);
        if (result > 0) {
            payloadRemaining = header.payloadLength();
            inPayload = payloadRemaining > 0;
        } else if (result < 0) {
            error = result;
        }
        return result;
    }

    /**
     * Copies payload bytes of the current message from {@code src} into {@code dst}: as many
     * as both have and the message still owes. Advances both positions.
     *
     * @param src the connection's read buffer in read mode
     * @param dst the destination (a posted receive buffer, an unexpected-message buffer)
     * @return the number of bytes copied (0 between messages)
     */
    public int payloadTo(final ByteBuffer src, final ByteBuffer dst) {
        final int n = (int) Math.min(payloadRemaining, Math.min(src.remaining(), dst.remaining()));
        if (n <= 0) {
            return 0;
        }
        final int limit = src.limit();
        src.limit(src.position() + n);
        dst.put(src);
        src.limit(limit);
        consumed(n);
        return n;
    }

    /**
     * Records payload bytes the endpoint read from the channel straight into its destination
     * (the read buffer was empty and the rest of the payload was due).
     *
     * @param bytes the number of bytes read, at most {@link #payloadRemaining()}
     * @throws IllegalArgumentException for a negative count or more than is due (nothing changed)
     */
    public void payloadRead(final long bytes) {
        if (bytes < 0 || bytes > payloadRemaining) {
            throw new IllegalArgumentException(bytes + " payload bytes read, " + payloadRemaining + " due");
        }
        consumed(bytes);
    }

    /**
     * Discards payload bytes of the current message that are in {@code src} (a truncated
     * receive, a discarded message).
     *
     * @param src the connection's read buffer in read mode
     * @return the number of bytes discarded
     */
    public int skip(final ByteBuffer src) {
        final int n = (int) Math.min(payloadRemaining, src.remaining());
        if (n <= 0) {
            return 0;
        }
        src.position(src.position() + n);
        consumed(n);
        return n;
    }

    /**
     * Records payload bytes the endpoint discarded by reading them from the channel into a
     * scratch buffer.
     *
     * @param bytes the number of bytes discarded, at most {@link #payloadRemaining()}
     * @throws IllegalArgumentException for a negative count or more than is due (nothing changed)
     */
    public void skipped(final long bytes) {
        payloadRead(bytes);
    }

    private void consumed(final long bytes) {
        payloadRemaining -= bytes;
        if (payloadRemaining == 0) {
            inPayload = false;
        }
    }

    /**
     * The header of the current (or last) message; reused, valid until the next
     * {@link #decode}.
     *
     * @return the header holder
     */
    public MessageHeader header() {
        return header;
    }

    /**
     * Payload bytes of the current message not yet moved; 0 between messages.
     *
     * @return the count
     */
    public long payloadRemaining() {
        return payloadRemaining;
    }

    /**
     * Whether a payload is due (the caller must move it before the next {@link #decode}).
     *
     * @return {@code true} in the payload state
     */
    public boolean inPayload() {
        return inPayload;
    }

    /**
     * The sticky error of this stream.
     *
     * @return 0, or the negative {@link WireStatus} code that broke the stream
     */
    public int error() {
        return error;
    }

    /**
     * Changes the largest payload accepted from the next header on (fi_setopt of the
     * endpoint's max message size before the connection carries data).
     *
     * @param maxMessageSize the largest payload, at least 0
     */
    public void maxMessageSize(final long maxMessageSize) {
        if (maxMessageSize < 0) {
            throw new IllegalArgumentException("negative maxMessageSize " + maxMessageSize);
        }
        this.maxMessageSize = maxMessageSize;
    }

    /** Back to the initial state (a pooled reader reused for a new connection). */
    public void reset() {
        payloadRemaining = 0;
        inPayload = false;
        error = 0;
        header.clear();
    }
}
