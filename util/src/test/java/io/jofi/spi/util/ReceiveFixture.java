package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import java.nio.ByteBuffer;

/**
 * A receive queue with a real CQ and counter, and a heap payload store, for the receive-side
 * tests: what a provider would do, minus the wire.
 */
final class ReceiveFixture implements AutoCloseable {
    final UtilCompletionQueue cq;
    final UtilCounter counter;
    final ReceiveQueue rq;
    final HeapPayload payload = new HeapPayload();
    final ArrivingMessage header = new ArrivingMessage();
    final CqEntry[] entries = {new CqEntry()};
    final long[] from = new long[1];
    final CqErrEntry err = new CqErrEntry();

    ReceiveFixture(int cqSize, int queueSize, int maxUnexpected, long maxBytes) throws FabricException {
        cq = new UtilCompletionQueue(new CqAttr().size(cqSize).format(CqFormat.TAGGED), "cq");
        counter = new UtilCounter(new CounterAttr(), "cntr");
        rq = new ReceiveQueue(queueSize, 4, maxUnexpected, maxBytes);
        rq.completion().bind(cq, true, counter);
    }

    ReceiveFixture() throws FabricException {
        this(64, 16, 64, 1 << 20);
    }

    /** The provider's heap storage: the handle is the message's bytes; a negative handleValue is a read error. */
    static final class HeapPayload implements UnexpectedPayload {
        int copies;
        int discards;

        @Override
        public long copyTo(UnexpectedMessage m, PostedReceive into) {
            copies++;
            if (m.handleValue() < 0) {
                return m.handleValue();
            }
            ByteBuffer b = (ByteBuffer) m.handle();
            return into.place(0, b, 0, b.capacity());
        }

        @Override
        public void discard(UnexpectedMessage m) {
            discards++;
        }
    }

    /** Posts a receive (reserving its room as a provider does); returns whether it took a message. */
    boolean post(PostedReceive r) {
        assertEquals(0, cq.reserve(), "CQ room for the receive");
        return rq.post(r);
    }

    PostedReceive recv(ByteBuffer buf, Object ctx) {
        return rq.newReceive().untagged(ctx, Fi.FI_ADDR_UNSPEC, Fi.FI_COMPLETION).buffer(buf);
    }

    PostedReceive trecv(ByteBuffer buf, Object ctx, long tag, long ignore) {
        return rq.newReceive().tagged(ctx, Fi.FI_ADDR_UNSPEC, tag, ignore, Fi.FI_COMPLETION).buffer(buf);
    }

    /** A whole message arrives from {@code src} (tcp's way: buffered when no receive matches). */
    void arrive(boolean tagged, long tag, byte[] bytes, long src) {
        header.set(tagged, tag, false, 0, src, null, bytes.length);
        PostedReceive r = rq.match(header);
        if (r != null) {
            int placed = r.place(0, ByteBuffer.wrap(bytes), 0, bytes.length);
            rq.complete(r, header, placed);
            return;
        }
        UnexpectedMessage u = rq.newUnexpected(bytes.length);
        u.set(tagged, tag, false, 0, src, null, bytes.length);
        u.payload(payload, ByteBuffer.wrap(bytes), 0);
        rq.arrived(u);
    }

    void arrive(byte[] bytes) {
        arrive(false, 0, bytes, Fi.FI_ADDR_NOTAVAIL);
    }

    /** Reads one success entry (fails the test if there is none). */
    CqEntry read() {
        int n = cq.readFrom(entries, 1, from);
        assertEquals(1, n, "one completion expected, got " + (n < 0 ? Errno.name(-n) : n));
        return entries[0];
    }

    /** Reads one error entry (fails the test if there is none). */
    CqErrEntry readErr() {
        assertEquals(-Errno.EAVAIL, cq.read(entries, 1), "an error completion at the head");
        assertEquals(1, cq.readErr(err, 0));
        return err;
    }

    void assertEmpty() {
        assertEquals(-Errno.EAGAIN, cq.read(entries, 1), "no completion expected");
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    @Override
    public void close() throws FabricException {
        cq.close();
        counter.close();
    }
}
