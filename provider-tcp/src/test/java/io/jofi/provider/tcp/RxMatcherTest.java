package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.UtilCompletionQueue;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The receive matcher on its own (the state an MSG endpoint owns and an RDM endpoint shares
 * among its connections), completing into a real util CQ: FI_DIRECTED_RECV by sender, tag and
 * ignore bits (fi_tagged(3)), order, unexpected messages, FI_PEEK/FI_CLAIM/FI_DISCARD, the
 * owed ack of a message taken from the unexpected queue, multi-receive parts (fi_msg(3)), and
 * the unexpected limits.
 */
class RxMatcherTest {
    private static final long A = 7;
    private static final long B = 9;

    private final UtilCompletionQueue cq;
    private final RxMatcher m;
    private final CqEntry[] one = {new CqEntry()};
    private final List<Long> acked = new ArrayList<>();
    private final RxMatcher.Source origin = new RxMatcher.Source() {
        @Override
        public void ackTaken() {
            acked.add(-1L);
        }

        @Override
        public void ackTaken(long seq) {
            acked.add(seq);
        }
    };

    RxMatcherTest() throws Exception {
        cq = new UtilCompletionQueue(new CqAttr().format(CqFormat.TAGGED).size(64), "cq");
        m = new RxMatcher(16, 4, 1024);
        m.cq(cq);
    }

    @AfterEach
    void close() throws Exception {
        cq.close();
    }

    private RxOp recv(Object ctx, long src, boolean tagged, long tag, long ignore, int size) {
        assertEquals(0, cq.reserve());
        RxOp op = m.take();
        op.context = ctx;
        op.complete = true;
        op.src = src;
        op.tagged = tagged;
        op.tag = tag;
        op.ignore = ignore;
        ByteBuffer b = ByteBuffer.allocate(size);
        op.buffer(0, b);
        op.count = 1;
        op.buf = b;
        op.capacity = size;
        return op;
    }

    private Unexpected arrive(long src, boolean tagged, long tag, int len, boolean ackOwed) {
        assertTrue(m.hasRoomFor(len));
        Unexpected u = m.buffer(len, false, 0, ackOwed, src, origin, tagged, tag);
        u.ackSeq = 100 + tag;
        for (int i = 0; i < len; i++) {
            u.data.put((byte) (tag + i));
        }
        u.data.flip();
        m.arrived(u);
        return u;
    }

    private CqEntry next() {
        assertEquals(1, cq.read(one, 1), "a completion");
        return one[0];
    }

    @Test
    void directedReceivesMatchOnlyTheirSender() {
        m.post(recv("fromB", B, false, 0, 0, 8));
        m.post(recv("any", Fi.FI_ADDR_UNSPEC, false, 0, 0, 8));
        RxOp forA = m.match(A, false, 0);
        assertEquals("any", forA.context, "a message from A skips the receive directed at B");
        RxOp forB = m.match(B, false, 0);
        assertEquals("fromB", forB.context);
        assertNull(m.match(A, false, 0), "nothing left");
        m.complete(forA, 0, 0, false, 0, A, 0);
        assertEquals(A, cqSrcOfNext());
        m.complete(forB, 0, 0, false, 0, B, 0);
    }

    private long cqSrcOfNext() {
        long[] src = new long[1];
        assertEquals(1, cq.readFrom(one, 1, src));
        return src[0];
    }

    @Test
    void tagsMatchOutsideTheIgnoredBitsInPostingOrder() {
        m.post(recv("exact", Fi.FI_ADDR_UNSPEC, true, 0x1200, 0, 8));
        m.post(recv("wide", Fi.FI_ADDR_UNSPEC, true, 0x1200, 0xff, 8));
        m.post(recv("msg", Fi.FI_ADDR_UNSPEC, false, 0, 0, 8));
        assertEquals("wide", m.match(A, true, 0x12ab).context, "only the wide receive accepts 0x12ab");
        assertEquals("exact", m.match(A, true, 0x1200).context, "the first posted that accepts 0x1200");
        assertNull(m.match(A, true, 0x1200), "tagged messages never take an untagged receive");
        assertEquals("msg", m.match(A, false, 0).context);
    }

    @Test
    void aReceiveTakesTheOldestUnexpectedMessageItAccepts() {
        arrive(A, true, 5, 3, false);
        arrive(B, true, 5, 4, false);
        arrive(A, true, 6, 5, false);
        assertTrue(m.post(recv("fromB", B, true, 5, 0, 8)), "takes B's message at once");
        CqEntry c = next();
        assertEquals("fromB", c.context());
        assertEquals(4, c.len());
        assertEquals(Fi.FI_RECV | Fi.FI_TAGGED, c.flags());
        assertTrue(m.post(recv("six", Fi.FI_ADDR_UNSPEC, true, 6, 0, 8)));
        assertEquals(5, next().len());
        assertTrue(m.post(recv("five", Fi.FI_ADDR_UNSPEC, true, 0, 0xff, 8)));
        assertEquals(3, next().len());
        assertFalse(m.hasUnexpected());
    }

    @Test
    void truncationReportsWhatWasLeftOut() {
        arrive(A, false, 0, 10, false);
        m.post(recv("small", Fi.FI_ADDR_UNSPEC, false, 0, 0, 4));
        assertEquals(-Errno.EAVAIL, cq.read(one, 1));
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertEquals(Errno.ETRUNC, e.err());
        assertEquals(4, e.len());
        assertEquals(6, e.olen());
    }

    @Test
    void anOwedAckIsSentWhenAReceiveTakesTheMessage() {
        arrive(A, true, 1, 2, true);
        arrive(A, true, 2, 2, true);
        assertTrue(acked.isEmpty());
        m.post(recv("two", Fi.FI_ADDR_UNSPEC, true, 2, 0, 8));
        assertEquals(List.of(102L), acked, "the ack of the message taken, with its sequence number");
        m.post(recv("one", Fi.FI_ADDR_UNSPEC, true, 1, 0, 8));
        assertEquals(List.of(102L, 101L), acked);
    }

    @Test
    void peekClaimAndDiscard() {
        RxOp peek = recv("p", Fi.FI_ADDR_UNSPEC, true, 3, 0, 8);
        m.peek(peek, Fi.FI_PEEK);
        assertEquals(-Errno.EAVAIL, cq.read(one, 1), "nothing to peek at: an error completion");
        CqErrEntry e = new CqErrEntry();
        cq.readErr(e, 0);
        assertEquals(Errno.ENOMSG, e.err());

        arrive(A, true, 3, 6, true);
        m.peek(recv("p", Fi.FI_ADDR_UNSPEC, true, 3, 0, 8), Fi.FI_PEEK);
        CqEntry found = next();
        assertEquals(6, found.len());
        assertEquals(3, found.tag());
        assertTrue(m.hasUnexpected(), "a peek leaves the message");

        Object claimer = new Object();
        m.peek(recv(claimer, Fi.FI_ADDR_UNSPEC, true, 3, 0, 8), Fi.FI_PEEK | Fi.FI_CLAIM);
        next();
        assertFalse(m.post(recv("other", Fi.FI_ADDR_UNSPEC, true, 3, 0, 8)), "a claimed message is reserved");
        RxOp claim = recv(claimer, Fi.FI_ADDR_UNSPEC, true, 3, 0, 8);
        assertTrue(m.claim(claim, Fi.FI_CLAIM));
        CqEntry got = next();
        assertSame(claimer, got.context());
        assertEquals(6, got.len());
        assertEquals(List.of(103L), acked, "the owed ack went when the claim took it");
        assertFalse(m.claim(recv(claimer, Fi.FI_ADDR_UNSPEC, true, 3, 0, 8), Fi.FI_CLAIM), "nothing left to claim");
        cq.unreserve();

        arrive(A, true, 4, 2, false);
        m.peek(recv("d", Fi.FI_ADDR_UNSPEC, true, 4, 0, 8), Fi.FI_PEEK | Fi.FI_DISCARD);
        next();
        assertFalse(m.hasUnexpected(), "discarded");
        assertTrue(m.hasRoomFor(1024), "its memory is given back");
    }

    @Test
    void aMultiReceiveBufferIsFilledInPartsAndReleased() {
        RxOp multi = recv("multi", Fi.FI_ADDR_UNSPEC, false, 0, 0, 100);
        multi.multi = true;
        multi.minFree = 30;
        arrive(A, false, 0, 40, false);
        assertFalse(m.post(multi), "one message placed, room left: stays posted");
        CqEntry first = next();
        assertSame(multi.buf, first.buf(), "buf is the posted buffer");
        assertEquals(0, first.bufOffset());
        assertEquals(40, first.len());
        assertEquals(Fi.FI_RECV | Fi.FI_MSG, first.flags());
        RxOp part = m.match(A, false, 0, 35);
        assertEquals(40, part.bufOffset, "the next part starts after the first message");
        assertTrue(part.releases, "25 bytes would be left, below 30: this part releases the buffer");
        m.complete(part, 35, 0, false, 0, A, 0);
        CqEntry last = next();
        assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_MULTI_RECV, last.flags());
        assertEquals(40, last.bufOffset());
        assertNull(m.match(A, false, 0), "released");
        assertEquals(-Errno.EAGAIN, cq.read(one, 1), "two completions for two messages, no more");
    }

    @Test
    void unexpectedMessagesAreBoundedByCountAndBytes() {
        arrive(A, false, 0, 1000, false);
        assertFalse(m.hasRoomFor(100), "bytes limit");
        m.post(recv("r", Fi.FI_ADDR_UNSPEC, false, 0, 0, 1000));
        next();
        for (int i = 0; i < 4; i++) {
            arrive(A, false, 0, 1, false);
        }
        assertFalse(m.hasRoomFor(1), "count limit");
    }

    @Test
    void cancelFailsThePostedReceive() {
        m.post(recv("c", Fi.FI_ADDR_UNSPEC, true, 1, 0, 8));
        assertEquals(0, m.cancel("c"));
        assertEquals(-Errno.ENOENT, m.cancel("c"));
        CqErrEntry e = new CqErrEntry();
        assertEquals(-Errno.EAVAIL, cq.read(one, 1));
        cq.readErr(e, 0);
        assertEquals(Errno.ECANCELED, e.err());
        assertEquals(Fi.FI_RECV | Fi.FI_TAGGED, e.flags());
    }
}
