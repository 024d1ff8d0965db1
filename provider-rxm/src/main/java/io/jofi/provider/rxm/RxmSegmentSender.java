package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.HEADER_LENGTH;

import io.jofi.Errno;
import io.jofi.Msg;
import java.nio.ByteBuffer;

/**
 * Sends a message above the eager limit and at most the SAR limit as rxm's segments
 * ({@link RxmWireDescriptor#TYPE_SEGMENT}, what libfabric's rxm sends in that range over verbs):
 * each segment a packet of its own with the whole message's header, {@code seg_size} bytes of
 * payload (the eager limit, the rest in the last), its number, and its kind (first, middle,
 * last) in the control data; {@code msg_id} is the message's transmit's index, which tells the
 * receiver's {@link RxmSegmentAssembly} the messages of one connection apart.
 *
 * <p>The application's transmit is the last segment, so its MSG completion is the message's
 * (the segments before it went out on the same connection, in order); the others are pooled
 * transmits nobody hears of. All packets are built before the first is posted: the first
 * decides — a full MSG queue or too few free transmits answers {@code -EAGAIN} with nothing
 * sent — and once it went, the rest follow it, queued behind it on the connection when the MSG
 * queue is full (the progress pass posts them in order, as a connection's pending sends).
 *
 * <p>Called under the endpoint's lock; allocates nothing.
 */
final class RxmSegmentSender {
    private final RxmSendQueue packets;
    private final RxmTransmitPool transmits;
    private final int segmentSize;
    /** The transmits of the message being sent, in order (its own last). */
    private final RxmTransmit[] parts;

    RxmSegmentSender(RxmSendQueue packets, RxmTransmitPool transmits, RxmSettings settings) {
        this.packets = packets;
        this.transmits = transmits;
        this.segmentSize = settings.eagerLimit();
        this.parts = new RxmTransmit[Math.max(1, settings.maxSegments())];
    }

    /**
     * Sends {@code length} bytes from {@code buf} (or {@code msg}'s iovs) in segments, {@code t}
     * (admitted for the message, connection set) the last; {@code h} holds the message's header.
     *
     * @return 0, or a negative errno with nothing sent (the caller gives {@code t} back)
     */
    int send(RxmTransmit t, RxmPacketHeader h, ByteBuffer buf, Msg msg, long length, long postFlags) {
        int count = (int) ((length + segmentSize - 1) / segmentSize);
        if (count > parts.length) {
            return -Errno.EMSGSIZE; // above the SAR limit: the caller chose rendezvous
        }
        for (int i = 0; i < count - 1; i++) {
            RxmTransmit s = transmits.take();
            if (s == null) {
                for (int j = 0; j < i; j++) {
                    transmits.give(parts[j]);
                }
                return -Errno.EAGAIN; // the RDM transmit queue is full
            }
            s.kind = RxmTransmit.Kind.SEGMENT;
            s.connection = t.connection;
            parts[i] = s;
        }
        t.kind = RxmTransmit.Kind.EAGER;
        parts[count - 1] = t;
        h.type = RxmWireDescriptor.TYPE_SEGMENT;
        h.msgId = t.index;
        long offset = 0;
        for (int i = 0; i < count; i++) {
            RxmTransmit s = parts[i];
            int n = (int) Math.min(segmentSize, length - offset);
            h.segSize = n;
            h.segNo = i;
            h.ctrlData = i == 0 ? RxmWireDescriptor.SEGMENT_FIRST
                    : i == count - 1 ? RxmWireDescriptor.SEGMENT_LAST : RxmWireDescriptor.SEGMENT_MIDDLE;
            ByteBuffer p = s.packet;
            p.clear();
            h.write(p, 0);
            copy(buf, msg, offset, p, HEADER_LENGTH, n);
            p.limit(HEADER_LENGTH + n);
            s.postFlags = i == count - 1 ? postFlags : 0;
            offset += n;
        }
        int rc = packets.submit(parts[0]);
        if (rc != 0) {
            for (int i = 0; i < count - 1; i++) {
                transmits.give(parts[i]);
            }
            return rc;
        }
        for (int i = 1; i < count; i++) {
            RxmTransmit s = parts[i];
            RxmConnection c = s.connection;
            rc = c.pendingHead != null || !c.isConnected() ? -Errno.EAGAIN : RxmSendPath.postNow(s);
            if (rc == -Errno.EAGAIN) {
                packets.queuePending(c, s); // behind the segments before it: the pass posts them in order
            } else if (rc != 0) {
                // the MSG endpoint refused a segment for good: the rest cannot complete the
                // message either, and the last (the application's) fails with the refusal
                for (int j = i; j < count; j++) {
                    packets.failTransmit(parts[j], -rc);
                }
                break;
            }
        }
        for (int i = 0; i < count; i++) {
            parts[i] = null;
        }
        return 0;
    }

    /** Copies {@code n} bytes from {@code offset} of the message's bytes ({@code buf}, else {@code msg}'s iovs) to {@code at} of {@code p}. */
    private static void copy(ByteBuffer buf, Msg msg, long offset, ByteBuffer p, int at, int n) {
        if (buf != null) {
            p.put(at, buf, buf.position() + (int) offset, n);
            return;
        }
        long skip = offset;
        for (int i = 0; i < msg.iovCount() && n > 0; i++) {
            ByteBuffer b = msg.iov(i);
            int k = b.remaining();
            if (skip >= k) {
                skip -= k;
                continue;
            }
            int take = (int) Math.min(k - skip, n);
            p.put(at, b, b.position() + (int) skip, take);
            at += take;
            n -= take;
            skip = 0;
        }
    }
}
