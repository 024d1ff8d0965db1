package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.HEADER_LENGTH;

import io.jofi.spi.util.ArrivingMessage;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UnexpectedMessage;
import java.nio.ByteBuffer;

/**
 * Puts together the segments of rxm's segmentation protocol ({@link RxmWireDescriptor#TYPE_SEGMENT}:
 * what libfabric's rxm sends between the eager limit and its SAR limit when its MSG provider
 * takes no dynamic receive buffers, e.g. verbs). The first segment is matched as a whole
 * message of the header's {@code size}; each segment's payload is placed after the ones before
 * it; the last completes the receive (or makes the unexpected message whole). Segments of one
 * message arrive in order on their connection; messages are told apart by {@code msg_id}.
 * Unexpected, a message's copy grows with the segments that came (doubling, up to the size the
 * header claims): a claimed size never becomes an allocation by itself (with rxm's credits every
 * packet is taken, so before this one first segment claiming 2 GiB allocated 2 GiB).
 */
final class RxmSegmentAssembly {
    private static final System.Logger LOG = System.getLogger(RxmSegmentAssembly.class.getName());

    /** One message being put together, pooled, on its connection's list. */
    static final class Message {
        final ArrivingMessage header = new ArrivingMessage();
        long msgId;
        PostedReceive receive;
        UnexpectedMessage unexpected;
        ByteBuffer copy;
        long offset;
        long placed;
        Message next;
    }

    /** The first copy of an unexpected segmented message: four segments of the default eager limit. */
    static final int FIRST_COPY = 4 * RxmWireDescriptor.DEFAULT_EAGER_LIMIT;

    private final ReceiveQueue rq;
    private Message free;

    RxmSegmentAssembly(ReceiveQueue rq) {
        this.rq = rq;
    }

    /**
     * A segment packet of {@code len} bytes in {@code b} whose header is {@code h}, from {@code c}.
     *
     * @param force a first segment that finds no receive is held unexpected even beyond the limits
     * @return false when a first segment found no receive and no room among the unexpected
     *         messages: nothing taken, the caller holds the packet back
     */
    boolean segment(RxmConnection c, ByteBuffer b, RxmPacketHeader h, int len, long src, boolean force) {
        int n = h.segSize;
        if (n < 0 || HEADER_LENGTH + n > len || h.size < 0 || h.size > Integer.MAX_VALUE) {
            LOG.log(System.Logger.Level.WARNING, "rxm: segment of " + len + " bytes says " + n + "/" + h.size + "; dropped");
            return true;
        }
        int kind = (int) (h.ctrlData & RxmWireDescriptor.SEGMENT_KIND_MASK);
        Message m;
        if (kind == RxmWireDescriptor.SEGMENT_FIRST) {
            m = start(c, h, src, force);
            if (m == null) {
                return false;
            }
        } else {
            m = find(c, h.msgId);
        }
        if (m == null) {
            LOG.log(System.Logger.Level.WARNING, "rxm: segment of unknown message " + h.msgId + " from " + c.peer + "; dropped");
            return true;
        }
        if (m.receive != null) {
            m.placed += m.receive.place(m.offset, b, HEADER_LENGTH, n);
        } else {
            ensureRoom(m, m.offset + n);
            int k = (int) Math.max(0, Math.min(n, m.copy.capacity() - m.offset));
            m.copy.put((int) m.offset, b, HEADER_LENGTH, k);
        }
        m.offset += n;
        if (kind == RxmWireDescriptor.SEGMENT_LAST) {
            finish(c, m);
        }
        return true;
    }

    /** A message's first segment: its receive, or room for it unexpected; null when neither (held back). */
    private Message start(RxmConnection c, RxmPacketHeader h, long src, boolean force) {
        Message m = free;
        if (m != null) {
            free = m.next;
        } else {
            m = new Message();
        }
        m.msgId = h.msgId;
        m.offset = 0;
        m.placed = 0;
        m.header.set(h.tagged(), h.tag, h.hasData(), h.data, src, c.peerName, h.size);
        PostedReceive r = rq.match(m.header);
        if (r != null) {
            m.receive = r;
        } else if (!force && !rq.admits(h.size)) {
            m.next = free;
            free = m;
            return null;
        } else {
            m.copy = ByteBuffer.allocate((int) Math.min(h.size, FIRST_COPY));
            UnexpectedMessage u = rq.newUnexpected(h.size);
            u.set(h.tagged(), h.tag, h.hasData(), h.data, src, c.peerName, h.size)
                    .payload(RxmUnexpectedCopy.INSTANCE, m.copy, -1).origin(c);
            rq.arriving(u);
            m.unexpected = u;
        }
        m.next = c.segments;
        c.segments = m;
        return m;
    }

    /**
     * Grows {@code m}'s unexpected copy to hold {@code end} bytes (at most the claimed size),
     * doubling, the bytes so far kept; the message's payload follows the new copy.
     */
    private static void ensureRoom(Message m, long end) {
        int cap = m.copy.capacity();
        long size = m.header.length();
        if (end <= cap || cap >= size) {
            return;
        }
        ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(size, Math.max(end, 2L * cap)));
        bigger.put(0, m.copy, 0, (int) m.offset);
        m.copy = bigger;
        m.unexpected.payload(RxmUnexpectedCopy.INSTANCE, bigger, -1);
    }

    private static Message find(RxmConnection c, long msgId) {
        for (Message m = c.segments; m != null; m = m.next) {
            if (m.msgId == msgId) {
                return m;
            }
        }
        return null;
    }

    private void finish(RxmConnection c, Message m) {
        unlink(c, m);
        if (m.receive != null) {
            rq.complete(m.receive, m.header, m.placed);
        } else {
            rq.arrived(m.unexpected);
        }
        recycle(m);
    }

    /** The connection ended: what it was putting together never completes. */
    void abandon(RxmConnection c, int err) {
        for (Message m = c.segments; m != null; ) {
            Message next = m.next;
            if (m.receive != null) {
                rq.failMessage(m.receive, m.header, err);
            } else {
                rq.abandon(m.unexpected, err);
            }
            recycle(m);
            m = next;
        }
        c.segments = null;
    }

    private static void unlink(RxmConnection c, Message m) {
        if (c.segments == m) {
            c.segments = m.next;
            return;
        }
        for (Message p = c.segments; p != null; p = p.next) {
            if (p.next == m) {
                p.next = m.next;
                return;
            }
        }
    }

    private void recycle(Message m) {
        m.receive = null;
        m.unexpected = null;
        m.copy = null;
        m.next = free;
        free = m;
    }
}
