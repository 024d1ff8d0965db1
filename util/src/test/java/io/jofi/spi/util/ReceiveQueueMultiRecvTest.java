package io.jofi.spi.util;

import static io.jofi.spi.util.ReceiveFixture.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Multi-receive buffers ({@code fi_msg(3)} {@code FI_MULTI_RECV}, {@code FI_OPT_MIN_MULTI_RECV}):
 * one message after another at the next free bytes, {@code FI_MULTI_RECV} on the completion
 * that comes last, CQ room for every part, no unsolicited completion.
 */
class ReceiveQueueMultiRecvTest {
    private ReceiveFixture f;

    @BeforeEach
    void open() throws Exception {
        f = new ReceiveFixture();
    }

    @AfterEach
    void close() throws Exception {
        f.close();
    }

    private PostedReceive multi(ByteBuffer buf, Object ctx, long minFree, long flags) {
        return f.rq.newReceive().untagged(ctx, Fi.FI_ADDR_UNSPEC, flags).buffer(buf).multiReceive(minFree);
    }

    @Test
    void messagesLandOneAfterAnotherAndTheLastReleasesTheBuffer() {
        ByteBuffer buf = ByteBuffer.allocate(100);
        buf.position(10);
        assertFalse(f.post(multi(buf, "m", 30, Fi.FI_COMPLETION)));
        f.arrive(bytes(40, 1));
        f.arrive(bytes(40, 50));
        CqEntry e = f.read();
        assertEquals(Fi.FI_RECV | Fi.FI_MSG, e.flags(), "not the last: no FI_MULTI_RECV");
        assertSame(buf, e.buf(), "the buffer object posted");
        assertEquals(10, e.bufOffset());
        assertEquals(40, e.len());
        e = f.read();
        assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_MULTI_RECV, e.flags(), "10 left < 30: released");
        assertEquals(50, e.bufOffset());
        assertArrayEquals(bytes(40, 1), Arrays.copyOfRange(buf.array(), 10, 50));
        assertArrayEquals(bytes(40, 50), Arrays.copyOfRange(buf.array(), 50, 90));
        assertEquals(0, f.rq.postedCount(false), "no longer posted");
        f.arrive(bytes(1, 0));
        f.assertEmpty();
        assertEquals(1, f.rq.unexpectedCount(), "the next message waits");
        assertEquals(2, f.counter.read());
    }

    @Test
    void aPostedBufferTakesTheWaitingMessagesAtOnce() {
        f.arrive(bytes(20, 1));
        f.arrive(bytes(20, 2));
        f.arrive(bytes(20, 3));
        ByteBuffer buf = ByteBuffer.allocate(50);
        assertTrue(f.post(multi(buf, "m", 16, Fi.FI_COMPLETION)), "used up by the waiting messages");
        assertEquals(0, f.read().bufOffset());
        CqEntry e = f.read();
        assertEquals(20, e.bufOffset());
        assertEquals(Fi.FI_MULTI_RECV, e.flags() & Fi.FI_MULTI_RECV, "10 left < 16");
        assertEquals(1, f.rq.unexpectedCount());
    }

    @Test
    void aMessageLongerThanWhatIsLeftIsTruncated() {
        ByteBuffer buf = ByteBuffer.allocate(50);
        f.post(multi(buf, "m", 1, Fi.FI_COMPLETION));
        f.arrive(bytes(40, 1));
        f.arrive(bytes(30, 1));
        assertEquals(40, f.read().len());
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ETRUNC, e.err());
        assertEquals(10, e.len());
        assertEquals(20, e.olen());
        assertEquals(Fi.FI_MULTI_RECV, e.flags() & Fi.FI_MULTI_RECV, "full: released");
    }

    @Test
    void selectiveCompletionWritesOnlyTheRelease() {
        ByteBuffer buf = ByteBuffer.allocate(30);
        f.post(multi(buf, "m", 11, 0));
        f.arrive(bytes(10, 1));
        f.assertEmpty();
        f.arrive(bytes(10, 1));
        CqEntry e = f.read();
        assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_MULTI_RECV, e.flags());
        assertEquals(10, e.bufOffset());
        assertEquals(2, f.counter.read(), "both messages counted");
    }

    @Test
    void aFullCqReleasesTheBufferEarlyInsteadOfOverrunningIt() throws Exception {
        try (ReceiveFixture g = new ReceiveFixture(2, 16, 64, 1 << 20)) {
            int cap = g.cq.capacity();
            g.post(g.rq.newReceive().untagged("m", Fi.FI_ADDR_UNSPEC, Fi.FI_COMPLETION)
                    .buffer(ByteBuffer.allocate(1000)).multiReceive(1));
            for (int i = 1; i < cap; i++) {
                g.arrive(bytes(1, i)); // each part takes room of its own
            }
            g.arrive(bytes(1, 0)); // no room left: this part takes the buffer's and releases it
            for (int i = 1; i < cap; i++) {
                assertEquals(0, g.read().flags() & Fi.FI_MULTI_RECV);
            }
            assertEquals(Fi.FI_MULTI_RECV, g.read().flags() & Fi.FI_MULTI_RECV);
            assertFalse(g.cq.isOverrun());
            assertEquals(0, g.rq.postedCount(false));
        }
    }

    @Test
    void partsFilledAtTheSameTimeReleaseTheBufferWhenTheLastCompletes() {
        ByteBuffer buf = ByteBuffer.allocate(20);
        f.post(multi(buf, "m", 5, Fi.FI_COMPLETION));
        ArrivingMessage h1 = new ArrivingMessage().set(false, 0, false, 0, 1, null, 10);
        ArrivingMessage h2 = new ArrivingMessage().set(false, 0, false, 0, 2, null, 10);
        PostedReceive p1 = f.rq.match(h1);
        PostedReceive p2 = f.rq.match(h2);
        assertNotNull(p1);
        assertNotNull(p2);
        assertNotSameParts(p1, p2);
        assertEquals(0, f.rq.postedCount(false), "released by the second part");
        f.rq.complete(p2, h2, p2.place(0, ByteBuffer.wrap(bytes(10, 2)), 0, 10));
        CqEntry e = f.read();
        assertEquals(0, e.flags() & Fi.FI_MULTI_RECV, "the first part still writes into the buffer");
        assertEquals(10, e.bufOffset());
        f.rq.complete(p1, h1, p1.place(0, ByteBuffer.wrap(bytes(10, 1)), 0, 10));
        e = f.read();
        assertEquals(Fi.FI_MULTI_RECV, e.flags() & Fi.FI_MULTI_RECV, "the last completion releases it");
        assertEquals(0, e.bufOffset());
        assertArrayEquals(bytes(10, 1), Arrays.copyOfRange(buf.array(), 0, 10));
        assertArrayEquals(bytes(10, 2), Arrays.copyOfRange(buf.array(), 10, 20));
    }

    private static void assertNotSameParts(PostedReceive a, PostedReceive b) {
        assertFalse(a == b, "each message its own part");
        assertSame(a.parent(), b.parent());
    }

    @Test
    void cancelingABufferReleasesIt() {
        f.post(multi(ByteBuffer.allocate(20), "m", 5, Fi.FI_COMPLETION));
        assertEquals(0, f.rq.cancel("m"));
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ECANCELED, e.err());
        assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_MULTI_RECV, e.flags());
        f.arrive(bytes(1, 0));
        f.assertEmpty();
    }

    @Test
    void cancelingABufferWhosePartIsBeingFilledLeavesTheReleaseToThePart() {
        f.post(multi(ByteBuffer.allocate(100), "m", 5, Fi.FI_COMPLETION));
        ArrivingMessage h = new ArrivingMessage().set(false, 0, false, 0, 1, null, 10);
        PostedReceive p = f.rq.match(h);
        assertEquals(0, f.rq.cancel("m"));
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ECANCELED, e.err());
        assertEquals(0, e.flags() & Fi.FI_MULTI_RECV, "the buffer is still written into");
        f.rq.complete(p, h, 10);
        assertEquals(Fi.FI_MULTI_RECV, f.read().flags() & Fi.FI_MULTI_RECV);
        f.assertEmpty();
    }

    @Test
    void aBufferTakesOnlyWholeMessagesAndOneThatBecomesWholeLater() {
        UnexpectedMessage u = f.rq.newUnexpected(4);
        u.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, null, 4).payload(f.payload, ByteBuffer.wrap(bytes(4, 7)), 0);
        f.rq.arriving(u);
        ByteBuffer buf = ByteBuffer.allocate(64);
        assertFalse(f.post(multi(buf, "m", 1, Fi.FI_COMPLETION)));
        f.assertEmpty();
        f.rq.arrived(u);
        CqEntry e = f.read();
        assertEquals(4, e.len());
        assertArrayEquals(bytes(4, 7), Arrays.copyOf(buf.array(), 4));
        assertNull(f.rq.firstUnexpected(false));
    }

    @Test
    void aPartWhoseMessageCannotBeReadFailsAndTheBufferStaysPosted() {
        f.post(multi(ByteBuffer.allocate(64), "m", 8, Fi.FI_COMPLETION));
        UnexpectedMessage u = f.rq.newUnexpected(16);
        u.set(false, 0, true, 5, Fi.FI_ADDR_NOTAVAIL, null, 16).payload(f.payload, null, -Errno.ECONNRESET);
        f.rq.arrived(u);
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ECONNRESET, e.err());
        assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_REMOTE_CQ_DATA, e.flags());
        assertEquals(5, e.data());
        assertEquals(1, f.rq.postedCount(false), "the buffer stays posted");
        f.arrive(bytes(4, 1));
        assertEquals(16, f.read().bufOffset(), "the failed message's bytes stay used");
    }

    @Test
    void withoutSelectiveCompletionEveryPartIsWritten() {
        f.rq.completion().bind(f.cq, false, f.counter);
        f.post(multi(ByteBuffer.allocate(30), "m", 11, 0));
        f.arrive(bytes(10, 1));
        assertEquals(0, f.read().flags() & Fi.FI_MULTI_RECV);
        f.arrive(bytes(10, 1));
        assertEquals(Fi.FI_MULTI_RECV, f.read().flags() & Fi.FI_MULTI_RECV);
    }

    @Test
    void failPostedReleasesBuffers() {
        f.post(multi(ByteBuffer.allocate(20), "m", 5, Fi.FI_COMPLETION));
        f.rq.failPosted(Errno.ECANCELED, 0, null);
        CqErrEntry e = f.readErr();
        assertEquals(Fi.FI_MULTI_RECV, e.flags() & Fi.FI_MULTI_RECV);
    }
}
