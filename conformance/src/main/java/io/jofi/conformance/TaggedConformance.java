package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.TaggedMsg;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Tagged messages (fi_tagged(3)): matching by {@code (tag ^ sent) & ~ignore == 0}, the tag
 * and flags in the completion, unexpected messages waiting for their receive, remote CQ data,
 * tinject, FI_PEEK / FI_CLAIM / FI_DISCARD, and cancel (R13).
 */
public abstract class TaggedConformance extends EndpointTest {
    private static final long TAG_A = 0x1100_0000_0000_00a1L;
    private static final long TAG_B = 0x2200_0000_0000_00b2L;

    private EndpointPair tagged() throws FabricException {
        return pair(Fi.FI_TAGGED);
    }

    /** A tagged message completes with its tag and FI_TAGGED on both sides. */
    @Test
    void taggedMessageCarriesItsTag() throws FabricException {
        EndpointPair p = tagged();
        ByteBuffer rbuf = zeroed(32);
        Object rctx = new Object();
        post(() -> p.b().ep().trecv(rbuf, null, ANY, TAG_A, 0, rctx), "trecv");
        Object sctx = new Object();
        post(() -> p.a().ep().tsend(pattern(20, 8), null, p.a().peer(), TAG_A, sctx), "tsend");
        CqEntry rx = rxCompletion(p.b(), "the tagged receive");
        assertSame(rctx, rx.context(), "context");
        assertEquals(TAG_A, rx.tag(), "the completion's tag is the sent tag");
        assertEquals(20, rx.len(), "len");
        assertFlags(Fi.FI_TAGGED | Fi.FI_RECV, rx.flags(), "tagged receive");
        assertPattern(rbuf, 0, 20, 8, "tagged data");
        CqEntry tx = txCompletion(p.a(), "the tagged send");
        assertSame(sctx, tx.context(), "context");
        assertFlags(Fi.FI_TAGGED | Fi.FI_SEND, tx.flags(), "tagged send");
    }

    /** Each message goes to the receive whose tag matches, whatever the posting order. */
    @Test
    void receivesMatchByTag() throws FabricException {
        EndpointPair p = tagged();
        ByteBuffer ra = zeroed(8);
        ByteBuffer rb = zeroed(8);
        post(() -> p.b().ep().trecv(ra, null, ANY, TAG_A, 0, "A"), "trecv A");
        post(() -> p.b().ep().trecv(rb, null, ANY, TAG_B, 0, "B"), "trecv B");
        post(() -> p.a().ep().tsend(pattern(8, 0xb0), null, p.a().peer(), TAG_B, "sB"), "tsend B");
        post(() -> p.a().ep().tsend(pattern(8, 0xa0), null, p.a().peer(), TAG_A, "sA"), "tsend A");
        for (int i = 0; i < 2; i++) {
            CqEntry rx = rxCompletion(p.b(), "tagged receive " + i);
            if ("A".equals(rx.context())) {
                assertEquals(TAG_A, rx.tag());
            } else {
                assertEquals("B", rx.context());
                assertEquals(TAG_B, rx.tag());
            }
        }
        assertPattern(ra, 0, 8, 0xa0, "the A receive got the A message");
        assertPattern(rb, 0, 8, 0xb0, "the B receive got the B message");
    }

    /** ignore bits: a receive matches any tag equal outside the ignored bits; the completion reports the sent tag. */
    @Test
    void ignoreMaskWidensTheMatch() throws FabricException {
        EndpointPair p = tagged();
        post(() -> p.b().ep().trecv(zeroed(8), null, ANY, 0x1200, 0xff, "wide"), "trecv 0x1200/0xff");
        post(() -> p.a().ep().tsend(pattern(4, 0), null, p.a().peer(), 0x12ab, "s"), "tsend 0x12ab");
        CqEntry rx = rxCompletion(p.b(), "the masked match");
        assertEquals(0x12ab, rx.tag(), "the completion's tag is the one sent");
    }

    /** A message whose tag matches no receive waits (unexpected) until a matching receive is posted. */
    @Test
    void unmatchedMessageWaitsForItsReceive() throws FabricException {
        EndpointPair p = tagged();
        post(() -> p.a().ep().tsend(pattern(8, 0x30), null, p.a().peer(), TAG_A, "s"), "tsend A");
        post(() -> p.b().ep().trecv(zeroed(8), null, ANY, TAG_B, 0, "B"), "trecv B");
        await().settle();
        assertEquals(-Errno.EAGAIN, p.b().rxCq().read(new CqEntry[] {new CqEntry()}, 1), "the B receive does not take the A message");
        ByteBuffer ra = zeroed(8);
        post(() -> p.b().ep().trecv(ra, null, ANY, TAG_A, 0, "A"), "trecv A");
        CqEntry rx = rxCompletion(p.b(), "the A receive");
        assertEquals("A", rx.context());
        assertPattern(ra, 0, 8, 0x30, "A data");
        assertEquals(0, p.b().ep().cancel("B"), "cancel the B receive (R13)");
        assertEquals(Errno.ECANCELED, rxError(p.b(), "the cancelled B receive").err(), "ECANCELED (R13)");
    }

    /** tsendData carries remote CQ data and the tag; tinject sends without a completion. */
    @Test
    void tsendDataAndTinject() throws FabricException {
        EndpointPair p = tagged();
        requireCqData(p);
        post(() -> p.b().ep().trecv(zeroed(8), null, ANY, TAG_A, 0, "d"), "trecv");
        post(() -> p.a().ep().tsendData(pattern(4, 0), null, 99L, p.a().peer(), TAG_A, "sd"), "tsendData");
        CqEntry rx = rxCompletion(p.b(), "the tsendData receive");
        assertFlags(Fi.FI_REMOTE_CQ_DATA | Fi.FI_TAGGED, rx.flags(), "tsendData receive");
        assertEquals(99L, rx.data(), "remote CQ data");
        assertEquals(TAG_A, rx.tag(), "tag");
        txCompletion(p.a(), "tsendData");
        ByteBuffer r = zeroed(16);
        post(() -> p.b().ep().trecv(r, null, ANY, TAG_B, 0, "i"), "trecv");
        ByteBuffer s = pattern(16, 0x60);
        post(() -> p.a().ep().tinject(s, p.a().peer(), TAG_B), "tinject");
        s.put(0, (byte) 0);
        assertEquals(TAG_B, rxCompletion(p.b(), "the tinject receive").tag());
        assertPattern(r, 0, 16, 0x60, "tinject copied the buffer at the call");
        await().settle();
        assertEquals(-Errno.EAGAIN, p.a().txCq().read(new CqEntry[] {new CqEntry()}, 1), "tinject generates no completion");
    }

    /**
     * fi_tagged FI_PEEK: with no matching message the peek completes with an ENOMSG error; with
     * one, it completes with its tag and length and leaves it to be received.
     */
    @Test
    void peekFindsWithoutConsuming() throws FabricException {
        EndpointPair p = tagged();
        TaggedMsg peek = new TaggedMsg();
        peek.buffer(zeroed(8), null).addr(ANY).context("peek");
        peek.tag(TAG_A).ignore(0);
        post(() -> p.b().ep().trecvMsg(peek, Fi.FI_PEEK), "peek with nothing there");
        CqErrEntry e = rxError(p.b(), "the peek that found nothing");
        assertEquals(Errno.ENOMSG, e.err(), "a peek without a match is ENOMSG: " + e);
        sendDelivered(p, TAG_A, 12, 0x70);
        post(() -> p.b().ep().trecvMsg(peek, Fi.FI_PEEK), "peek with a message there");
        CqEntry found = rxCompletion(p.b(), "the peek that finds the message");
        assertEquals(TAG_A, found.tag(), "peek reports the tag");
        assertEquals(12, found.len(), "peek reports the length");
        ByteBuffer r = zeroed(16);
        post(() -> p.b().ep().trecv(r, null, ANY, TAG_A, 0, "real"), "trecv after peek");
        assertEquals("real", rxCompletion(p.b(), "the receive after the peek").context());
        assertPattern(r, 0, 12, 0x70, "the peeked message is still received");
    }

    /** fi_tagged FI_PEEK | FI_CLAIM, then FI_CLAIM with the same context: the claimed message is received by the claim. */
    @Test
    void claimReceivesThePeekedMessage() throws FabricException {
        EndpointPair p = tagged();
        sendDelivered(p, TAG_B, 10, 0x11);
        Object ctx = new Object();
        ByteBuffer r = zeroed(16);
        TaggedMsg m = new TaggedMsg();
        m.buffer(r, null).addr(ANY).context(ctx);
        m.tag(TAG_B).ignore(0);
        post(() -> p.b().ep().trecvMsg(m, Fi.FI_PEEK | Fi.FI_CLAIM), "peek and claim");
        assertSame(ctx, rxCompletion(p.b(), "the peek with FI_CLAIM").context());
        post(() -> p.b().ep().trecvMsg(m, Fi.FI_CLAIM), "claim");
        CqEntry rx = rxCompletion(p.b(), "the claim");
        assertSame(ctx, rx.context());
        assertEquals(10, rx.len());
        assertPattern(r, 0, 10, 0x11, "claimed data");
    }

    /** fi_tagged FI_PEEK | FI_DISCARD: the matching message is discarded and no later receive gets it. */
    @Test
    void discardDropsThePeekedMessage() throws FabricException {
        EndpointPair p = tagged();
        sendDelivered(p, TAG_A, 8, 0x22);
        TaggedMsg m = new TaggedMsg();
        m.buffer(zeroed(8), null).addr(ANY).context("discard");
        m.tag(TAG_A).ignore(0);
        post(() -> p.b().ep().trecvMsg(m, Fi.FI_PEEK | Fi.FI_DISCARD), "peek and discard");
        rxCompletion(p.b(), "the discarding peek");
        post(() -> p.b().ep().trecv(zeroed(8), null, ANY, TAG_A, 0, "late"), "trecv after the discard");
        await().settle();
        assertEquals(-Errno.EAGAIN, p.b().rxCq().read(new CqEntry[] {new CqEntry()}, 1), "the discarded message is gone");
        assertEquals(0, p.b().ep().cancel("late"), "cancel the late receive");
        rxError(p.b(), "the cancelled late receive");
    }

    /** Sends a tagged message with FI_DELIVERY_COMPLETE and waits for its completion: it is then at the target. */
    private void sendDelivered(EndpointPair p, long tag, int n, int seed) throws FabricException {
        ByteBuffer s = pattern(n, seed);
        TaggedMsg m = new TaggedMsg();
        m.buffer(s, desc(s)).addr(p.a().peer()).context("delivered");
        m.tag(tag);
        post(() -> p.a().ep().tsendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "tsendMsg with FI_DELIVERY_COMPLETE");
        txCompletion(p.a(), "delivery of the tagged message");
    }
}
