package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The views a receive queue's scattering reads go through ({@link PostedReceive#scatterViews},
 * {@link ReceiveViews}): made once per buffer and found again whichever pooled receive carries
 * the buffer next (before, a receive that came back with another buffer duplicated a view
 * each time: 128 B per three-packet rxm message over tcp); never one view for two receives
 * in use at once (a sink posted in several receives, the same buffer twice in one receive),
 * and those too reuse what they made.
 */
class ReceiveViewsTest {
    private final ReceiveQueue rq = new ReceiveQueue(64, 4, 16, 1 << 20);

    private PostedReceive take(ByteBuffer... buffers) {
        PostedReceive r = rq.newReceive().untagged("ctx", Fi.FI_ADDR_UNSPEC, 0);
        for (ByteBuffer b : buffers) {
            r.buffer(b);
        }
        return r;
    }

    @Test
    void aBufferFindsItsViewInWhicheverPooledReceiveCarriesIt() {
        ByteBuffer[] bufs = {ByteBuffer.allocateDirect(64), ByteBuffer.allocateDirect(64), ByteBuffer.allocateDirect(64)};
        ByteBuffer[] first = new ByteBuffer[3];
        Set<ByteBuffer> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int round = 0; round < 10; round++) {
            PostedReceive[] rs = new PostedReceive[3];
            for (int i = 0; i < 3; i++) {
                // the pool is a stack: a round's receives come back in the order that reverses the pairs
                int k = round % 2 == 0 ? i : 2 - i;
                rs[i] = take(bufs[k]);
                ByteBuffer v = rs[i].scatterViews(64)[0];
                seen.add(v);
                if (round == 0) {
                    first[k] = v;
                } else {
                    assertSame(first[k], v, "round " + round + ": buffer " + k + "'s view");
                }
            }
            for (PostedReceive r : rs) {
                rq.recycle(r);
            }
        }
        assertEquals(3, seen.size(), "one view per buffer over ten rounds");
    }

    @Test
    void aBufferInSeveralReceivesAtOnceGetsAViewForEachAndKeepsThem() {
        ByteBuffer sink = ByteBuffer.allocateDirect(64);
        Set<ByteBuffer> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int round = 0; round < 10; round++) {
            PostedReceive[] rs = new PostedReceive[3];
            Set<ByteBuffer> thisRound = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 0; i < 3; i++) {
                rs[i] = take(sink);
                ByteBuffer v = rs[i].scatterViews(64)[0];
                thisRound.add(v);
                seen.add(v);
            }
            assertEquals(3, thisRound.size(), "round " + round + ": three receives in use, three views");
            for (int i = 2; i >= 0; i--) {
                rq.recycle(rs[i]);
            }
        }
        assertEquals(3, seen.size(), "made once, then reused: " + seen.size() + " views over ten rounds");
    }

    @Test
    void theSameBufferTwiceInOneReceiveGoesThroughTwoViews() {
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        PostedReceive r = take(b, b);
        ByteBuffer[] views = r.scatterViews(128);
        assertNotSame(views[0], views[1]);
        ByteBuffer[] again = r.scatterViews(128);
        assertSame(views[0], again[0]);
        assertSame(views[1], again[1]);
    }
}
