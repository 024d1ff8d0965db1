package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The answers of receive posting that fi_endpoint(3) leaves to the provider, one for every
 * provider (docs/API.md "Endpoints"): {@code FI_OPT_MIN_MULTI_RECV}'s default, 0 and negative
 * values, and {@code FI_MULTI_RECV} in the receive op flags, which makes {@code recv} a
 * multi-receive and does not apply to {@code trecv}. Providers without {@code FI_MULTI_RECV}
 * skip these.
 */
public abstract class ReceivePostingConformance extends EndpointTest {
    /** {@code FI_OPT_MIN_MULTI_RECV} until set, on every provider (docs/API.md). */
    private static final long DEFAULT_MIN_MULTI_RECV = 64;

    /** One default: 64 bytes on every provider, on both sides of a pair. */
    @Test
    void minMultiRecvHasOneDefault() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_MULTI_RECV));
        assertEquals(DEFAULT_MIN_MULTI_RECV, p.a().ep().getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV),
                "default FI_OPT_MIN_MULTI_RECV on side a");
        assertEquals(DEFAULT_MIN_MULTI_RECV, p.b().ep().getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV),
                "default FI_OPT_MIN_MULTI_RECV on side b");
    }

    /**
     * 0 is a size ({@code size_t}): taken and read back; a buffer is then released once it is
     * full — not after the first message, which leaves room.
     */
    @Test
    void minMultiRecvZeroIsTakenAndReleasesABufferOnceFull() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_MULTI_RECV)
                .beforeEnable(s -> s.ep().setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, 0)));
        assertEquals(0, p.b().ep().getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV), "FI_OPT_MIN_MULTI_RECV set to 0");
        ByteBuffer buf = zeroed(80);
        Msg m = new Msg().buffer(buf, desc(buf)).addr(ANY).context("multi");
        post(() -> p.b().ep().recvMsg(m, Fi.FI_MULTI_RECV), "recvMsg with FI_MULTI_RECV");
        List<CqEntry> messages = sendAndReceive(p, 2); // the second fills it: released
        assertEquals(0, messages.get(0).flags() & Fi.FI_MULTI_RECV, "40 of 80 bytes left: the buffer stays posted");
    }

    /** A negative value is no size: {@code EINVAL}, and the option keeps the value it had. */
    @Test
    void minMultiRecvNegativeIsEinvalAndChangesNothing() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_MULTI_RECV)
                .beforeEnable(s -> s.ep().setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, 16)));
        for (long bad : new long[] {-1, Long.MIN_VALUE}) {
            FabricException e = assertThrows(FabricException.class,
                    () -> p.b().ep().setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, bad),
                    "setOpt(FI_OPT_MIN_MULTI_RECV, " + bad + ")");
            assertEquals(Errno.EINVAL, e.errno(), "errno of setOpt(FI_OPT_MIN_MULTI_RECV, " + bad + "): " + e);
            assertEquals(16, p.b().ep().getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV),
                    "the option after the refused " + bad);
        }
    }

    /**
     * {@code FI_MULTI_RECV} in the receive op flags: {@code recv} posts a multi-receive buffer,
     * as {@code recvMsg(FI_MULTI_RECV)} does — two messages land in the one buffer.
     */
    @Test
    void multiRecvInTheOpFlagsMakesRecvAMultiReceive() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_MULTI_RECV).rxOpFlags(Fi.FI_MULTI_RECV)
                .beforeEnable(s -> s.ep().setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, 16)));
        ByteBuffer buf = zeroed(90);
        MemoryRegion d = desc(buf);
        post(() -> p.b().ep().recv(buf, d, ANY, "multi"), "recv with FI_MULTI_RECV in the op flags");
        List<CqEntry> messages = sendAndReceive(p, 2); // 10 bytes left, below 16: released
        for (int i = 0; i < 2; i++) {
            assertSame(buf, messages.get(i).buf(), "message " + i + " lands in the one posted buffer");
            assertEquals("multi", messages.get(i).context(), "context of message " + i);
        }
        assertEquals(40, Math.abs(messages.get(1).bufOffset() - messages.get(0).bufOffset()), "one after another");
    }

    /**
     * A tagged receive takes one message: the op flags' {@code FI_MULTI_RECV} does not apply to
     * {@code trecv} (libfabric's tagged receives ignore it) — neither refused nor a buffer that
     * takes the next message too.
     */
    @Test
    void multiRecvInTheOpFlagsDoesNotApplyToTrecv() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_TAGGED | Fi.FI_MULTI_RECV).rxOpFlags(Fi.FI_MULTI_RECV));
        ByteBuffer first = zeroed(256);
        ByteBuffer second = zeroed(256);
        MemoryRegion d1 = desc(first);
        MemoryRegion d2 = desc(second);
        post(() -> p.b().ep().trecv(first, d1, ANY, 7, 0, "first"), "trecv with FI_MULTI_RECV in the op flags");
        post(() -> p.b().ep().trecv(second, d2, ANY, 7, 0, "second"), "a second trecv");
        for (int i = 0; i < 2; i++) {
            ByteBuffer s = pattern(40, 50 * i);
            post(() -> p.a().ep().tsend(s, null, p.a().peer(), 7, "s"), "tsend " + i);
        }
        CqEntry one = rxCompletion(p.b(), "the first tagged message");
        CqEntry two = rxCompletion(p.b(), "the second tagged message");
        assertEquals("first", one.context(), "the first message goes to the first trecv");
        assertEquals("second", two.context(), "the second message goes to the second trecv, not into the first buffer");
        assertFlags(Fi.FI_RECV | Fi.FI_TAGGED, one.flags(), "completion of a trecv posted with FI_MULTI_RECV in the op flags");
        assertEquals(0, two.flags() & Fi.FI_MULTI_RECV, "no multi-receive release on a tagged receive");
        assertPattern(first, 0, 40, 0, "the first message");
        assertPattern(second, 0, 40, 50, "the second message");
    }

    /**
     * Sends {@code n} messages of 40 bytes from a to b and returns b's {@code n} receive
     * completions in order, once one of them (or a release-only entry) released the
     * multi-receive buffer.
     */
    private List<CqEntry> sendAndReceive(EndpointPair p, int n) {
        for (int i = 0; i < n; i++) {
            ByteBuffer s = pattern(40, 50 * i);
            post(() -> p.a().ep().send(s, null, p.a().peer(), "s"), "send " + i);
        }
        List<CqEntry> messages = new ArrayList<>();
        boolean released = false;
        // every caller's buffer is released by its last message: wait for that too
        while (messages.size() < n || !released) {
            CqEntry rx = rxCompletion(p.b(), "multi-receive completion (messages so far " + messages.size()
                    + (messages.size() < n ? ")" : ", then the release: FI_MULTI_RECV)"));
            released |= (rx.flags() & Fi.FI_MULTI_RECV) != 0;
            if ((rx.flags() & Fi.FI_RECV) != 0) {
                assertEquals(40, rx.len(), "len of message " + messages.size());
                messages.add(rx);
            }
        }
        return messages;
    }
}
