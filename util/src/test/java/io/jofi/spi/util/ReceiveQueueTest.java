package io.jofi.spi.util;

import static io.jofi.spi.util.ReceiveFixture.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Posting, matching, the unexpected queue and its limits, PEEK/CLAIM/DISCARD, cancel and teardown of {@link ReceiveQueue}. */
class ReceiveQueueTest {
    private ReceiveFixture f;

    @BeforeEach
    void open() throws Exception {
        f = new ReceiveFixture();
    }

    @AfterEach
    void close() throws Exception {
        f.close();
    }

    @Test
    void aPostedReceiveTakesTheArrivingMessage() {
        ByteBuffer buf = ByteBuffer.allocate(16);
        assertFalse(f.post(f.recv(buf, "r1")), "nothing waits: queued");
        f.arrive(bytes(5, 1));
        CqEntry e = f.read();
        assertEquals("r1", e.context());
        assertEquals(Fi.FI_RECV | Fi.FI_MSG, e.flags());
        assertEquals(5, e.len());
        assertSame(buf, e.buf());
        assertEquals(0, e.bufOffset());
        assertArrayEquals(bytes(5, 1), Arrays.copyOf(buf.array(), 5));
        assertEquals(0, buf.position(), "the caller's position is never touched");
        assertEquals(1, f.counter.read());
    }

    @Test
    void anUnexpectedMessageWaitsForItsReceiveAndArrivalOrderIsKept() {
        f.arrive(bytes(3, 10));
        f.arrive(bytes(4, 20));
        assertEquals(2, f.rq.unexpectedCount());
        assertEquals(7, f.rq.unexpectedBytes());
        ByteBuffer a = ByteBuffer.allocate(8);
        ByteBuffer b = ByteBuffer.allocate(8);
        assertTrue(f.post(f.recv(a, "a")), "takes the oldest at once");
        assertTrue(f.post(f.recv(b, "b")));
        assertEquals(3, f.read().len());
        assertEquals(4, f.read().len());
        assertArrayEquals(bytes(3, 10), Arrays.copyOf(a.array(), 3));
        assertArrayEquals(bytes(4, 20), Arrays.copyOf(b.array(), 4));
        assertEquals(0, f.rq.unexpectedCount());
        assertEquals(0, f.rq.unexpectedBytes());
        assertEquals(2, f.payload.copies);
    }

    @Test
    void receivesAreMatchedInPostingOrder() {
        f.post(f.recv(ByteBuffer.allocate(8), "first"));
        f.post(f.recv(ByteBuffer.allocate(8), "second"));
        f.arrive(bytes(1, 0));
        f.arrive(bytes(1, 0));
        assertEquals("first", f.read().context());
        assertEquals("second", f.read().context());
    }

    @Test
    void oneTagRuleIgnoreBitsMatchAnythingAndKindsNeverCross() {
        assertTrue(PostedReceive.tagMatches(0x12, 0x0F, 0x1F));
        assertFalse(PostedReceive.tagMatches(0x12, 0x0F, 0x22));
        f.post(f.trecv(ByteBuffer.allocate(8), "t", 0x1200, 0x00FF));
        f.arrive(bytes(2, 0)); // untagged: not for a tagged receive
        f.arrive(true, 0x1300, bytes(2, 0), Fi.FI_ADDR_NOTAVAIL); // other tag
        f.assertEmpty();
        f.arrive(true, 0x12AB, bytes(2, 0), Fi.FI_ADDR_NOTAVAIL);
        CqEntry e = f.read();
        assertEquals("t", e.context());
        assertEquals(Fi.FI_RECV | Fi.FI_TAGGED, e.flags());
        assertEquals(0x12AB, e.tag(), "the message's tag");
        assertEquals(2, f.rq.unexpectedCount(), "the other two wait");
    }

    @Test
    void anExactTagFindsTheOldestMessageOfThatTag() {
        for (int i = 0; i < 10; i++) {
            f.arrive(true, i % 3, bytes(1, i), Fi.FI_ADDR_NOTAVAIL);
        }
        ByteBuffer b = ByteBuffer.allocate(1);
        f.post(f.trecv(b, "t2", 2, 0));
        assertEquals(2, f.read().tag());
        assertEquals(2, b.get(0), "message 2 is the oldest tagged 2");
        f.post(f.trecv(b, "t2", 2, 0));
        assertEquals(5, b.get(0));
    }

    @Test
    void aDirectedReceiveTakesOnlyItsSender() {
        f.rq.directed(true);
        f.post(f.rq.newReceive().untagged("from7", 7, Fi.FI_COMPLETION).buffer(ByteBuffer.allocate(4)));
        f.arrive(false, 0, bytes(1, 0), 3);
        f.assertEmpty();
        f.arrive(false, 0, bytes(1, 0), 7);
        assertEquals("from7", f.read().context());
        // the message of sender 3 waits; a directed receive of 7 does not take it, one for any does
        f.post(f.rq.newReceive().untagged("from7again", 7, Fi.FI_COMPLETION).buffer(ByteBuffer.allocate(4)));
        f.assertEmpty();
        f.post(f.recv(ByteBuffer.allocate(4), "any"));
        assertEquals("any", f.read().context());
    }

    @Test
    void aDirectedPeekSeesOnlyItsSender() {
        f.rq.directed(true);
        f.arrive(true, 4, bytes(2, 0), 3);
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.rq.newReceive().tagged("p7", 7, 4, 0, Fi.FI_COMPLETION), Fi.FI_PEEK);
        assertEquals(Errno.ENOMSG, f.readErr().err());
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.rq.newReceive().tagged("p3", 3, 4, 0, Fi.FI_COMPLETION), Fi.FI_PEEK);
        assertEquals(2, f.read().len());
    }

    @Test
    void withoutDirectedRecvTheSourceOfAReceiveIsIgnored() {
        f.post(f.rq.newReceive().untagged("from7", 7, Fi.FI_COMPLETION).buffer(ByteBuffer.allocate(4)));
        f.arrive(false, 0, bytes(1, 0), 3);
        assertEquals("from7", f.read().context());
    }

    @Test
    void iovReceivesScatterTheMessage() {
        ByteBuffer a = ByteBuffer.allocate(3);
        ByteBuffer b = ByteBuffer.allocate(10);
        b.position(2);
        f.post(f.rq.newReceive().untagged("iov", Fi.FI_ADDR_UNSPEC, Fi.FI_COMPLETION).buffer(a).buffer(b));
        f.arrive(bytes(6, 1));
        assertEquals(6, f.read().len());
        assertArrayEquals(bytes(3, 1), a.array());
        assertArrayEquals(new byte[] {4, 5, 6}, Arrays.copyOfRange(b.array(), 2, 5));
    }

    @Test
    void scatterViewsAreTrimmedToTheMessageAndReused() {
        ByteBuffer a = ByteBuffer.allocate(4);
        ByteBuffer b = ByteBuffer.allocate(8);
        PostedReceive r = f.recv(a, "v").buffer(b);
        ByteBuffer[] views = r.scatterViews(6);
        assertEquals(4, views[0].remaining());
        assertEquals(2, views[1].remaining());
        ByteBuffer first = views[0];
        assertSame(first, r.scatterViews(12)[0], "the same buffer's view is reused");
        assertEquals(8, r.scatterViews(12)[1].remaining());
        f.rq.recycle(r);
    }

    @Test
    void theUnexpectedLimitsAdmitByCountAndBytes() throws Exception {
        try (ReceiveFixture g = new ReceiveFixture(64, 16, 2, 100)) {
            assertTrue(g.rq.admits(100));
            assertFalse(g.rq.admits(101), "over the byte limit");
            UnexpectedMessage u = g.rq.newUnexpected(60);
            assertFalse(g.rq.admits(41), "60 held while being read");
            assertTrue(g.rq.admits(40));
            u.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 1).payload(g.payload, ByteBuffer.allocate(1), 0);
            g.rq.arrived(u);
            g.arrive(bytes(1, 0));
            assertFalse(g.rq.admits(0), "two messages: the count limit");
            g.post(g.recv(ByteBuffer.allocate(4), "r"));
            assertTrue(g.rq.admits(39), "taken messages give their footprint back");
            assertEquals(1, g.rq.unexpectedBytes());
        }
    }

    @Test
    void remoteCqDataIsReportedWithItsFlag() {
        f.post(f.recv(ByteBuffer.allocate(4), "d"));
        f.header.set(false, 0, true, 0xABCDL, Fi.FI_ADDR_NOTAVAIL, null, 0);
        PostedReceive r = f.rq.match(f.header);
        f.rq.complete(r, f.header, 0);
        CqEntry e = f.read();
        assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_REMOTE_CQ_DATA, e.flags());
        assertEquals(0xABCDL, e.data());
    }

    @Test
    void aPayloadThatCannotBeReadFailsTheReceiveNamingTheMessage() {
        UnexpectedMessage u = f.rq.newUnexpected(8);
        u.set(true, 9, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 8).payload(f.payload, null, -Errno.ECONNRESET);
        f.rq.arrived(u);
        f.post(f.trecv(ByteBuffer.allocate(8), "t", 9, 0));
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ECONNRESET, e.err());
        assertEquals(9, e.tag());
        assertEquals(Fi.FI_RECV | Fi.FI_TAGGED, e.flags());
        assertEquals(1, f.counter.readErr());
        assertEquals(0, f.rq.unexpectedCount());
    }

    // ------------------------------------------------------------------ messages still arriving (shm's way)

    @Test
    void aReceiveTakesAMessageStillArrivingAndCompletesWhenItIsWhole() {
        UnexpectedMessage u = f.rq.newUnexpected(4);
        u.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 4).payload(f.payload, ByteBuffer.wrap(bytes(4, 3)), 0);
        f.rq.arriving(u);
        assertFalse(f.post(f.recv(ByteBuffer.allocate(8), "w")), "waits for the last bytes");
        f.assertEmpty();
        f.rq.arrived(u);
        assertEquals(4, f.read().len());
    }

    @Test
    void cancelingAReceiveThatWaitsLeavesTheMessageForTheNext() {
        UnexpectedMessage u = f.rq.newUnexpected(4);
        u.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 4).payload(f.payload, ByteBuffer.wrap(bytes(4, 3)), 0);
        f.rq.arriving(u);
        f.post(f.recv(ByteBuffer.allocate(8), "w"));
        assertEquals(0, f.rq.cancel("w"));
        assertEquals(Errno.ECANCELED, f.readErr().err());
        f.rq.arrived(u);
        assertEquals(1, f.rq.unexpectedCount(), "it waits queued");
        f.post(f.recv(ByteBuffer.allocate(8), "next"));
        assertEquals("next", f.read().context());
    }

    @Test
    void anAbandonedMessageFailsTheReceiveThatWaitsForIt() {
        UnexpectedMessage u = f.rq.newUnexpected(4);
        u.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 4).payload(f.payload, null, 0);
        f.rq.arriving(u);
        f.post(f.recv(ByteBuffer.allocate(8), "w"));
        f.rq.abandon(u, Errno.ECONNRESET);
        CqErrEntry e = f.readErr();
        assertEquals("w", e.context());
        assertEquals(Errno.ECONNRESET, e.err());
        assertEquals(0, f.rq.unexpectedCount());
        assertEquals(0, f.rq.unexpectedBytes());
    }

    // ------------------------------------------------------------------ FI_PEEK, FI_CLAIM, FI_DISCARD

    @Test
    void peekReportsAndLeavesTheMessage() {
        UnexpectedMessage u = f.rq.newUnexpected(3);
        u.set(true, 5, true, 77, Fi.FI_ADDR_NOTAVAIL, null, 3).payload(f.payload, ByteBuffer.wrap(bytes(3, 0)), 0);
        f.rq.arrived(u);
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.trecv(ByteBuffer.allocate(0), "p", 5, 0), Fi.FI_PEEK);
        CqEntry e = f.read();
        assertEquals("p", e.context());
        assertEquals(3, e.len());
        assertEquals(5, e.tag());
        assertEquals(77, e.data());
        assertEquals(Fi.FI_RECV | Fi.FI_TAGGED | Fi.FI_REMOTE_CQ_DATA, e.flags());
        assertEquals(0, f.counter.read(), "a peek is not a received message");
        assertEquals(1, f.rq.unexpectedCount(), "still there");
        assertEquals(0, f.payload.copies, "nothing copied");
    }

    @Test
    void peekFindingNothingIsEnomsg() {
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.trecv(ByteBuffer.allocate(0), "p", 5, 0), Fi.FI_PEEK);
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ENOMSG, e.err());
        assertEquals(5, e.tag());
        assertEquals(0, f.counter.readErr());
    }

    @Test
    void peekClaimSetsAsideForTheClaimOfTheSameContext() {
        f.arrive(true, 5, bytes(3, 1), Fi.FI_ADDR_NOTAVAIL);
        Object ctx = "claim";
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.trecv(ByteBuffer.allocate(0), ctx, 5, 0), Fi.FI_PEEK | Fi.FI_CLAIM);
        f.read();
        f.post(f.trecv(ByteBuffer.allocate(8), "other", 5, 0));
        f.assertEmpty(); // the claimed message is not for another receive
        assertEquals(0, f.cq.reserve());
        ByteBuffer into = ByteBuffer.allocate(8);
        assertTrue(f.rq.claim(f.trecv(into, ctx, 0, 0), Fi.FI_CLAIM));
        CqEntry e = f.read();
        assertEquals(ctx, e.context());
        assertEquals(3, e.len());
        assertArrayEquals(bytes(3, 1), Arrays.copyOf(into.array(), 3));
        assertEquals(0, f.cq.reserve());
        PostedReceive none = f.trecv(into, ctx, 0, 0);
        assertFalse(f.rq.claim(none, Fi.FI_CLAIM), "nothing claimed any more");
        f.cq.unreserve();
        f.rq.recycle(none);
    }

    @Test
    void discardDropsThroughThePayload() {
        f.arrive(true, 5, bytes(3, 1), Fi.FI_ADDR_NOTAVAIL);
        f.arrive(true, 6, bytes(3, 1), Fi.FI_ADDR_NOTAVAIL);
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.trecv(ByteBuffer.allocate(0), "pd", 5, 0), Fi.FI_PEEK | Fi.FI_DISCARD);
        assertEquals(3, f.read().len());
        assertEquals(1, f.payload.discards);
        assertEquals(1, f.rq.unexpectedCount());
        // claim | discard of a claimed one: a completion of length 0
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.trecv(ByteBuffer.allocate(0), "c", 6, 0), Fi.FI_PEEK | Fi.FI_CLAIM);
        f.read();
        assertEquals(0, f.cq.reserve());
        assertTrue(f.rq.claim(f.trecv(ByteBuffer.allocate(0), "c", 0, 0), Fi.FI_CLAIM | Fi.FI_DISCARD));
        CqEntry e = f.read();
        assertEquals(0, e.len());
        assertEquals(6, e.tag());
        assertEquals(2, f.payload.discards);
        assertEquals(0, f.rq.unexpectedCount());
        assertEquals(0, f.counter.read() + f.counter.readErr());
    }

    // ------------------------------------------------------------------ cancel, teardown

    @Test
    void cancelFailsThePendingReceiveOnce() {
        ByteBuffer buf = ByteBuffer.allocate(4);
        f.post(f.trecv(buf, "c", 1, 0));
        assertEquals(0, f.rq.cancel("c"));
        CqErrEntry e = f.readErr();
        assertEquals("c", e.context());
        assertEquals(Errno.ECANCELED, e.err());
        assertEquals(Fi.FI_RECV | Fi.FI_TAGGED, e.flags());
        assertEquals(0, e.len());
        assertEquals(1, f.counter.readErr());
        assertEquals(-Errno.ENOENT, f.rq.cancel("c"));
        assertEquals(-Errno.ENOENT, f.rq.cancel("never"));
        f.arrive(true, 1, bytes(1, 0), Fi.FI_ADDR_NOTAVAIL);
        f.assertEmpty();
    }

    @Test
    void aReceiveBeingFilledIsNotPendingAnyMore() {
        f.post(f.recv(ByteBuffer.allocate(4), "c"));
        f.header.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 2);
        PostedReceive r = f.rq.match(f.header);
        assertNotNull(r);
        assertEquals(-Errno.ENOENT, f.rq.cancel("c"));
        f.rq.fail(r, Errno.ECONNRESET, 7, new byte[] {1});
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ECONNRESET, e.err());
        assertEquals(7, e.provErrno());
    }

    @Test
    void failPostedFailsEveryPostedReceiveAndKeepsTheUnexpected() {
        f.arrive(true, 42, bytes(1, 0), Fi.FI_ADDR_NOTAVAIL);
        f.post(f.recv(ByteBuffer.allocate(4), "a"));
        f.post(f.trecv(ByteBuffer.allocate(4), "b", 1, 0));
        byte[] why = {9};
        f.rq.failPosted(Errno.ECONNRESET, 104, why);
        for (String ctx : new String[] {"a", "b"}) {
            CqErrEntry e = f.readErr();
            assertEquals(ctx, e.context());
            assertEquals(Errno.ECONNRESET, e.err());
            assertEquals(104, e.provErrno());
        }
        assertEquals(0, f.rq.postedCount(false) + f.rq.postedCount(true));
        assertEquals(1, f.rq.unexpectedCount(), "what arrived stays receivable");
        f.post(f.trecv(ByteBuffer.allocate(4), "late", 42, 0));
        assertEquals("late", f.read().context());
    }

    @Test
    void discardPostedWritesNothingAndGivesTheRoomBack() throws Exception {
        try (ReceiveFixture g = new ReceiveFixture(2, 16, 64, 1024)) {
            int cap = g.cq.capacity();
            for (int i = 0; i < cap; i++) {
                g.post(g.recv(ByteBuffer.allocate(4), i));
            }
            assertEquals(-Errno.EAGAIN, g.cq.reserve(), "the CQ is fully reserved");
            g.rq.discardPosted();
            g.assertEmpty();
            assertEquals(-Errno.EAGAIN, g.cq.readErr(g.err, 0));
            assertEquals(0, g.counter.read() + g.counter.readErr());
            assertEquals(0, g.cq.reserve(), "the room came back");
        }
    }

    @Test
    void canPostCountsEachKind() throws Exception {
        try (ReceiveFixture g = new ReceiveFixture(64, 2, 64, 1024)) {
            g.post(g.recv(ByteBuffer.allocate(1), 1));
            g.post(g.recv(ByteBuffer.allocate(1), 2));
            assertFalse(g.rq.canPost(false));
            assertTrue(g.rq.canPost(true));
        }
    }

    @Test
    void thePoolsStopGrowing() {
        for (int round = 0; round < 100; round++) {
            f.arrive(bytes(2, 0));
            f.post(f.recv(ByteBuffer.allocate(4), round));
            f.post(f.recv(ByteBuffer.allocate(4), round));
            f.arrive(bytes(2, 0));
            f.read();
            f.read();
        }
        assertTrue(f.rq.created() <= 3, f.rq.created() + " objects for at most 2 receives and 1 message at a time");
    }

    /**
     * The tag index and the intrusive lists: 200 000 queued messages of distinct tags taken
     * newest first by exact-tag receives. One removal costing the list (an array list, a scan)
     * would take minutes; O(1) takes well under a second.
     */
    @Test
    void takingQueuedMessagesInAnyOrderCostsO1Each() throws Exception {
        int n = 200_000;
        try (ReceiveFixture g = new ReceiveFixture(4, 16, n, Long.MAX_VALUE)) {
            ByteBuffer empty = ByteBuffer.allocate(0);
            byte[] none = new byte[0];
            for (int i = 0; i < n; i++) {
                g.arrive(true, i, none, Fi.FI_ADDR_NOTAVAIL);
            }
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                for (int i = n - 1; i >= 0; i--) {
                    assertTrue(g.post(g.trecv(empty, null, i, 0)));
                    assertEquals(i, g.read().tag());
                }
            });
            assertEquals(0, g.rq.unexpectedCount());
        }
    }

    @Test
    void aDroppedMessageStillArrivingIsRecycledOnceWhole() {
        UnexpectedMessage u = f.rq.newUnexpected(4);
        u.set(true, 3, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 4).payload(f.payload, null, 0);
        f.rq.arriving(u);
        assertEquals(0, f.cq.reserve());
        f.rq.peek(f.trecv(ByteBuffer.allocate(0), "p", 3, 0), Fi.FI_PEEK | Fi.FI_DISCARD);
        assertEquals(4, f.read().len());
        assertNull(f.rq.firstUnexpected(true), "no longer receivable");
        assertEquals(0, f.payload.discards, "its bytes are still being written");
        f.rq.arrived(u);
        assertEquals(1, f.payload.discards);
        assertEquals(0, f.rq.unexpectedCount());
        f.post(f.trecv(ByteBuffer.allocate(4), "t", 3, 0));
        f.assertEmpty();
    }
}
