package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.CqWaitCond;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Messages (fi_msg(3)) between an endpoint pair and the completions they produce (fi_cq(3)):
 * contexts, flags and lengths (R16), remote CQ data, inject, truncation (R12), errors out of
 * band (R2), cancel (R13), close with receives pending (fi_endpoint(3)), readFrom and FI_SOURCE_ERR (R10), selective completion (R2),
 * multi-receive, CQ credits (R6), counters, completion levels (R11), FD readiness and
 * threshold reads with real completions (R4, R5), and ENOSYS for operations outside the caps.
 */
public abstract class MsgConformance extends EndpointTest {

    /** fi_msg: a send reaches a posted receive; contexts come back by identity; flags and len are set; buffers do not move. */
    @Test
    void sendReachesAPostedReceive() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        ByteBuffer rbuf = zeroed(64);
        rbuf.position(8).limit(48);
        Object rctx = new Object();
        post(() -> p.b().ep().recv(rbuf, null, ANY, rctx), "recv");
        ByteBuffer sbuf = pattern(32, 3);
        sbuf.position(4).limit(24);
        Object sctx = new Object();
        post(() -> p.a().ep().send(sbuf, null, p.a().peer(), sctx), "send");
        CqEntry tx = txCompletion(p.a(), "the send");
        assertSame(sctx, tx.context(), "the send completion's context is the very object passed (identity rule)");
        assertFlags(Fi.FI_SEND | Fi.FI_MSG, tx.flags(), "send completion");
        CqEntry rx = rxCompletion(p.b(), "the receive");
        assertSame(rctx, rx.context(), "the receive completion's context");
        assertFlags(Fi.FI_RECV | Fi.FI_MSG, rx.flags(), "receive completion");
        assertEquals(20, rx.len(), "len is the size of the received message");
        for (int i = 0; i < 20; i++) {
            assertEquals((byte) (3 + 4 + i), rbuf.get(8 + i), "received byte " + i + " lands at the receive buffer's position");
        }
        assertUnmoved(sbuf, 4, 24, "send buffer");
        assertUnmoved(rbuf, 8, 48, "receive buffer");
    }

    /**
     * fi_msg(3): a message sent before its receive is posted is delivered to the receive posted
     * later, and then both complete. The send's completion is awaited only after the receive
     * is posted: fi_msg(3) does not promise that a send completes while the peer has no
     * receive posted (an RC queue pair answers "receiver not ready" and retries until one is,
     * as libfabric's verbs provider does), only that the message is not lost.
     */
    @Test
    void unexpectedMessageMeetsALaterReceive() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        requireResourceManagement(p);
        ByteBuffer sbuf = pattern(100, 7);
        post(() -> p.a().ep().send(sbuf, null, p.a().peer(), "s"), "send");
        await().settle(); // give the message time to reach the peer before any receive exists
        ByteBuffer rbuf = zeroed(128);
        post(() -> p.b().ep().recv(rbuf, null, ANY, "r"), "recv");
        CqEntry rx = rxCompletion(p.b(), "the receive of the earlier message");
        assertEquals(100, rx.len());
        assertPattern(rbuf, 0, 100, 7, "received data");
        assertEquals("s", txCompletion(p.a(), "the send of the earlier message").context());
    }

    /**
     * docs/API.md: messages up to max_msg_size go through whole: 16 MiB on a provider that promises
     * the minimums (max_msg_size at least that), else the advertised max_msg_size (capped at
     * 16 MiB).
     */
    @Test
    void largestMessageGoesThrough() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        long max = p.a().info().epAttr().maxMsgSize();
        if (offersApiMinimums()) {
            assertTrue(max >= 16L << 20, "max_msg_size >= 16 MiB: " + max);
        }
        assertTrue(max > 0, "max_msg_size: " + max);
        int n = (int) Math.min(16L << 20, max);
        ByteBuffer rbuf = zeroed(n);
        post(() -> p.b().ep().recv(rbuf, null, ANY, "r"), "recv");
        ByteBuffer sbuf = pattern(n, 11);
        post(() -> p.a().ep().send(sbuf, null, p.a().peer(), "s"), "send of " + n + " bytes");
        CqEntry rx = rxCompletion(p.b(), "the receive of " + n + " bytes");
        assertEquals(n, rx.len(), "len");
        assertPattern(rbuf, 0, n, 11, n + " bytes received");
        txCompletion(p.a(), "the send of " + n + " bytes");
    }

    /** docs/API.md: heap buffers are accepted wherever a copy is possible. */
    @Test
    void heapBuffersAreAccepted() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        Assumptions.assumeTrue((fx.domainInfo().domainAttr().mrMode() & Fi.FI_MR_LOCAL) == 0,
                "provider " + fx.provider() + " requires FI_MR_LOCAL registration, which needs direct buffers");
        ByteBuffer rbuf = ByteBuffer.allocate(50);
        post(() -> p.b().ep().recv(rbuf, null, ANY, "r"), "recv into a heap buffer");
        ByteBuffer sbuf = ByteBuffer.wrap(new byte[] {9, 8, 7, 6, 5});
        post(() -> p.a().ep().send(sbuf, null, p.a().peer(), "s"), "send from a heap buffer");
        assertEquals(5, rxCompletion(p.b(), "heap receive").len());
        assertArrayEquals(new byte[] {9, 8, 7, 6, 5}, Arrays.copyOf(rbuf.array(), 5), "heap data");
        txCompletion(p.a(), "heap send");
    }

    /** Messages on one pair arrive in order when the endpoint orders sends (FI_ORDER_SAS). */
    @Test
    void messagesArriveInOrder() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        requireSendOrder(p);
        ByteBuffer[] r = new ByteBuffer[5];
        for (int i = 0; i < 5; i++) {
            ByteBuffer b = r[i] = zeroed(8);
            Object ctx = i;
            post(() -> p.b().ep().recv(b, null, ANY, ctx), "recv " + i);
        }
        for (int i = 0; i < 5; i++) {
            ByteBuffer s = pattern(8, 10 * i);
            post(() -> p.a().ep().send(s, null, p.a().peer(), "s"), "send " + i);
        }
        for (int i = 0; i < 5; i++) {
            CqEntry rx = rxCompletion(p.b(), "receive " + i);
            assertEquals(i, rx.context(), "receives complete in posting order");
            assertPattern(r[i], 0, 8, 10 * i, "message " + i + " in send order");
        }
    }

    private static void requireSendOrder(EndpointPair p) {
        Assumptions.assumeTrue((p.a().info().txAttr().msgOrder() & Fi.FI_ORDER_SAS) != 0,
                "provider lacks FI_ORDER_SAS (send-after-send ordering) on " + p.type().fiName());
    }

    /**
     * fi_msg senddata / fi_cq "data": remote CQ data reaches the receive completion with
     * FI_REMOTE_CQ_DATA, all cq_data_size bytes of it (fi_domain(3): 8 on a provider that
     * promises docs/API.md's minimums; the low cq_data_size bytes elsewhere).
     */
    @Test
    void sendDataCarriesRemoteCqData() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        long width = p.a().info().domainAttr().cqDataSize();
        if (offersApiMinimums()) {
            assertTrue(width >= 8, "docs/API.md: remote CQ data is 8 bytes on every provider: cq_data_size " + width);
        }
        Assumptions.assumeTrue(width > 0, "provider " + fx.provider() + " lacks remote CQ data (cq_data_size 0)");
        ByteBuffer rbuf = zeroed(16);
        post(() -> p.b().ep().recv(rbuf, null, ANY, "r"), "recv");
        long data = 0x0123456789abcdefL & (width >= 8 ? -1L : (1L << (8 * width)) - 1);
        post(() -> p.a().ep().sendData(pattern(4, 0), null, data, p.a().peer(), "s"), "sendData");
        CqEntry rx = rxCompletion(p.b(), "the receive with remote CQ data");
        assertFlags(Fi.FI_REMOTE_CQ_DATA | Fi.FI_RECV, rx.flags(), "receive with remote CQ data");
        assertEquals(data, rx.data(), "the remote CQ data, all " + Math.min(8, width) + " bytes (cq_data_size)");
        txCompletion(p.a(), "sendData");
    }

    /** fi_inject: copies the buffer before returning and generates no completion; injectData carries CQ data. */
    @Test
    void injectCopiesAndDoesNotComplete() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        ByteBuffer r1 = zeroed(64);
        ByteBuffer r2 = zeroed(64);
        post(() -> p.b().ep().recv(r1, null, ANY, "r1"), "recv");
        ByteBuffer s = pattern(64, 21);
        post(() -> p.a().ep().inject(s, p.a().peer()), "inject of inject_size bytes");
        for (int i = 0; i < 64; i++) {
            s.put(i, (byte) 0x55); // reusable at once
        }
        rxCompletion(p.b(), "the injected message");
        assertPattern(r1, 0, 64, 21, "injected data is what the buffer held at the call");
        if (p.a().info().domainAttr().cqDataSize() > 0) {
            post(() -> p.b().ep().recv(r2, null, ANY, "r2"), "recv");
            post(() -> p.a().ep().injectData(pattern(8, 1), 77L, p.a().peer()), "injectData");
            CqEntry rx = rxCompletion(p.b(), "the injectData message");
            assertFlags(Fi.FI_REMOTE_CQ_DATA, rx.flags(), "injectData receive");
            assertEquals(77L, rx.data(), "injectData's CQ data");
        }
        await().settle();
        assertEquals(-Errno.EAGAIN, p.a().txCq().read(new CqEntry[] {new CqEntry()}, 1),
                "inject and injectData generate no transmit completion");
    }

    /**
     * {@code FI_INJECT} as a transmit op flag (fi_endpoint(3) {@code tx_attr->op_flags}; fabtests'
     * {@code fi_msg_inject -A inject}): a plain send copies its buffer at the call, and unlike
     * {@code fi_inject} it still completes (fi_msg(3)).
     */
    @Test
    void injectAsATransmitOpFlagStillCompletes() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).txOpFlags(Fi.FI_INJECT));
        ByteBuffer r1 = zeroed(64);
        post(() -> p.b().ep().recv(r1, null, ANY, "r1"), "recv");
        ByteBuffer s = pattern(64, 23);
        post(() -> p.a().ep().send(s, null, p.a().peer(), "s1"), "send with FI_INJECT in the op flags");
        for (int i = 0; i < 64; i++) {
            s.put(i, (byte) 0x55); // reusable at once
        }
        rxCompletion(p.b(), "the message sent with FI_INJECT");
        assertPattern(r1, 0, 64, 23, "the data is what the buffer held at the call");
        CqEntry tx = txCompletion(p.a(), "a send with FI_INJECT in the op flags");
        assertEquals("s1", tx.context(), "the send's context");
    }

    /** R12: a message larger than the receive buffer is an ETRUNC error with len placed and olen discarded. */
    @Test
    void truncatedMessageIsAnErrorCompletion() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        ByteBuffer rbuf = zeroed(8);
        Object rctx = new Object();
        post(() -> p.b().ep().recv(rbuf, null, ANY, rctx), "recv of 8 bytes");
        post(() -> p.a().ep().send(pattern(20, 5), null, p.a().peer(), "s"), "send of 20 bytes");
        CqErrEntry e = rxError(p.b(), "the truncated receive");
        assertEquals(Errno.ETRUNC, e.err(), "err of a truncated receive (R12): " + e);
        assertSame(rctx, e.context(), "context of the error completion");
        assertEquals(8, e.len(), "len: the bytes placed (R12)");
        assertEquals(12, e.olen(), "olen: the bytes discarded (R12)");
        assertPattern(rbuf, 0, 8, 5, "the placed part");
        assertTrue(p.b().rxCq().strerror(e.provErrno(), e.errData()) != null, "strerror of the error (R3)");
    }

    /**
     * R2: with an error between two successes, read returns the success before it, then
     * -EAVAIL until readErr takes the error, then the success after it.
     */
    @Test
    void errorsAreReportedOutOfBandInOrder() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        requireSendOrder(p);
        ByteBuffer r0 = zeroed(32);
        ByteBuffer r1 = zeroed(4);
        ByteBuffer r2 = zeroed(32);
        post(() -> p.b().ep().recv(r0, null, ANY, "ok-0"), "recv 0");
        post(() -> p.b().ep().recv(r1, null, ANY, "truncated-1"), "recv 1");
        post(() -> p.b().ep().recv(r2, null, ANY, "ok-2"), "recv 2");
        for (int i = 0; i < 3; i++) {
            ByteBuffer s = pattern(16, i);
            post(() -> p.a().ep().send(s, null, p.a().peer(), "s"), "send " + i);
        }
        List<Object> outcomes = new ArrayList<>();
        CqEntry[] buf = {new CqEntry(), new CqEntry(), new CqEntry()};
        CqErrEntry err = new CqErrEntry();
        await().until(() -> {
            int rc = p.b().rxCq().read(buf, 3);
            if (rc > 0) {
                for (int i = 0; i < rc; i++) {
                    outcomes.add(buf[i].context());
                }
            } else if (rc == -Errno.EAVAIL) {
                assertEquals(-Errno.EAVAIL, p.b().rxCq().read(buf, 3), "-EAVAIL until readErr takes the error (R2)");
                assertEquals(1, p.b().rxCq().readErr(err, 0), "readErr after -EAVAIL");
                outcomes.add("error:" + err.context());
            } else if (rc != -Errno.EAGAIN) {
                fail("read returned " + rc);
            }
            return outcomes.size() >= 3;
        }, "three receive outcomes");
        assertEquals(List.of("ok-0", "error:truncated-1", "ok-2"), outcomes,
                "successes before the error, the error out of band, then the rest (R2)");
        assertEquals(-Errno.EAGAIN, p.b().rxCq().readErr(err, 0), "readErr with nothing left (R2)");
    }

    /** R13: cancel of a pending receive completes it with ECANCELED; a second cancel is -ENOENT. */
    @Test
    void cancelCompletesAPendingReceiveWithEcanceled() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        Object rctx = new Object();
        post(() -> p.b().ep().recv(zeroed(16), null, ANY, rctx), "recv");
        assertEquals(0, p.b().ep().cancel(rctx), "cancel of a pending receive (R13)");
        CqErrEntry e = rxError(p.b(), "the cancelled receive");
        assertEquals(Errno.ECANCELED, e.err(), "err of a cancelled receive (R13): " + e);
        assertSame(rctx, e.context(), "context of the cancelled receive");
        assertEquals(-Errno.ENOENT, p.b().ep().cancel(rctx), "cancel of an operation no longer pending (R13)");
        assertEquals(-Errno.ENOENT, p.b().ep().cancel(new Object()), "cancel of an unknown context (R13)");
    }

    /**
     * fi_endpoint(3) fi_close: "Outstanding operations posted to the endpoint when fi_close is
     * called will be discarded. Discarded operations will silently be dropped, with no
     * completions reported." Receives pending at close leave nothing on the endpoint's
     * (still open) CQ — no success, no error — and are not counted on its counter; the CQ and
     * the counter then close (R9: nothing is bound to them any more).
     */
    @Test
    void closeDiscardsPendingReceivesWithoutCompletions() throws FabricException {
        Counter recvCounter = fx.openCounter(new CounterAttr(), "recv-counter");
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).beforeEnable(side -> {
            if (side.label().equals("a")) {
                side.ep().bind(recvCounter, Fi.FI_RECV);
            }
        }));
        PeerSide closing = p.a();
        post(() -> closing.ep().recv(zeroed(16), null, ANY, "first"), "recv");
        post(() -> closing.ep().recv(zeroed(16), null, ANY, "second"), "recv");
        fx.close(closing.ep());
        await().settle();
        assertEquals(-Errno.EAGAIN, closing.rxCq().read(new CqEntry[] {new CqEntry()}, 1),
                "fi_endpoint(3) fi_close: discarded receives report no completion");
        assertEquals(-Errno.EAGAIN, closing.rxCq().readErr(new CqErrEntry(), 0),
                "fi_endpoint(3) fi_close: discarded receives report no error completion either");
        assertEquals(0, recvCounter.read(), "discarded receives are not counted");
        assertEquals(0, recvCounter.readErr(), "discarded receives are not counted as errors");
        fx.close(closing.rxCq());
        fx.close(closing.txCq());
        fx.close(recvCounter);
    }

    /** R10: readFrom reports the sender's fi_addr_t (FI_SOURCE), else FI_ADDR_NOTAVAIL. */
    @Test
    void readFromReportsTheSender() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        post(() -> p.b().ep().recv(zeroed(16), null, ANY, "r"), "recv");
        post(() -> p.a().ep().send(pattern(4, 0), null, p.a().peer(), "s"), "send");
        long[] src = {12345};
        await().completionFrom(p.b().rxCq(), new CqEntry(), src, "the receive (readFrom)");
        boolean source = (p.b().info().caps() & Fi.FI_SOURCE) != 0 && p.type() != EpType.MSG;
        if (source) {
            assertEquals(p.b().peer(), src[0], "readFrom: the sender's fi_addr_t in the receiver's AV (R10)");
        } else {
            assertEquals(Fi.FI_ADDR_NOTAVAIL, src[0], "readFrom without FI_SOURCE (or without an AV) (R10)");
        }
    }

    /** R10: with FI_SOURCE and a sender not in the AV, readFrom gives FI_ADDR_NOTAVAIL. */
    @Test
    void unknownSenderIsNotAvailable() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_SOURCE).type(EpType.RDM));
        assertEquals(0, p.b().av().remove(new long[] {p.b().peer()}, 0), "removing the sender from the receiver's AV");
        post(() -> p.b().ep().recv(zeroed(16), null, ANY, "r"), "recv");
        post(() -> p.a().ep().send(pattern(4, 0), null, p.a().peer(), "s"), "send");
        long[] src = {12345};
        await().completionFrom(p.b().rxCq(), new CqEntry(), src, "the receive from a sender not in the AV");
        assertEquals(Fi.FI_ADDR_NOTAVAIL, src[0], "a sender not in the AV (R10)");
    }

    /**
     * R10 / fi_cq(3) FI_EADDRNOTAVAIL: with FI_SOURCE_ERR, a sender not in the AV turns the
     * completion into an EADDRNOTAVAIL error carrying the raw address in errData, ready for
     * av.insert; the data was received.
     */
    @Test
    void sourceErrReportsTheUnknownSendersAddress() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR).type(EpType.RDM));
        assertEquals(0, p.b().av().remove(new long[] {p.b().peer()}, 0), "removing the sender from the receiver's AV");
        ByteBuffer rbuf = zeroed(16);
        post(() -> p.b().ep().recv(rbuf, null, ANY, "r"), "recv");
        post(() -> p.a().ep().send(pattern(6, 40), null, p.a().peer(), "s"), "send");
        CqErrEntry e = rxError(p.b(), "the EADDRNOTAVAIL completion");
        assertEquals(Errno.EADDRNOTAVAIL, e.err(), "err with FI_SOURCE_ERR and an unknown sender (R10): " + e);
        assertEquals(6, e.len(), "the data was received");
        assertPattern(rbuf, 0, 6, 40, "received data");
        byte[] raw = Arrays.copyOf(e.errData(), e.errDataSize());
        assertArrayEquals(p.a().name(), raw, "errData is the sender's raw address (R10)");
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        assertEquals(1, p.b().av().insert(new byte[][] {raw}, fi, 0, null), "the raw address is ready for av.insert");
    }

    /** fi_cq(3) / R2: with FI_SELECTIVE_COMPLETION only operations flagged FI_COMPLETION complete. */
    @Test
    void selectiveCompletionReportsOnlyFlaggedOperations() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).txBindFlags(Fi.FI_SELECTIVE_COMPLETION));
        for (int i = 0; i < 2; i++) {
            post(() -> p.b().ep().recv(zeroed(16), null, ANY, "r"), "recv");
        }
        post(() -> p.a().ep().send(pattern(4, 0), null, p.a().peer(), "silent"), "send without FI_COMPLETION");
        Msg m = new Msg().buffer(pattern(4, 0), null).addr(p.a().peer()).context("loud");
        post(() -> p.a().ep().sendMsg(m, Fi.FI_COMPLETION), "sendMsg with FI_COMPLETION");
        rxCompletion(p.b(), "first message");
        rxCompletion(p.b(), "second message");
        CqEntry tx = txCompletion(p.a(), "the FI_COMPLETION send");
        assertEquals("loud", tx.context(), "only the send flagged FI_COMPLETION completes");
        await().settle();
        assertEquals(-Errno.EAGAIN, p.a().txCq().read(new CqEntry[] {new CqEntry()}, 1), "no completion for the unflagged send");
    }

    /** R2: an operation posted without FI_COMPLETION on a selective endpoint still reports its failure. */
    @Test
    void selectiveCompletionStillReportsErrors() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).rxBindFlags(Fi.FI_SELECTIVE_COMPLETION));
        Msg m = new Msg().buffer(zeroed(4), null).addr(ANY).context("quiet-small");
        post(() -> p.b().ep().recvMsg(m, 0), "recvMsg without FI_COMPLETION");
        post(() -> p.a().ep().send(pattern(16, 0), null, p.a().peer(), "s"), "send of 16 bytes");
        CqErrEntry e = rxError(p.b(), "the truncation of a receive posted without FI_COMPLETION");
        assertEquals(Errno.ETRUNC, e.err(), "err (R2, R12): " + e);
    }

    /** fi_msg FI_MULTI_RECV: messages fill one buffer; buf() is the posted buffer, bufOffset where each starts; FI_MULTI_RECV marks the release. */
    @Test
    void multiReceiveFillsOneBuffer() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_MULTI_RECV)
                .beforeEnable(s -> s.ep().setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, 64)));
        assertEquals(64, p.b().ep().getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV), "FI_OPT_MIN_MULTI_RECV");
        ByteBuffer big = zeroed(256);
        Msg m = new Msg().buffer(big, desc(big)).addr(ANY).context("multi");
        post(() -> p.b().ep().recvMsg(m, Fi.FI_MULTI_RECV), "recvMsg with FI_MULTI_RECV");
        for (int i = 0; i < 5; i++) {
            ByteBuffer s = pattern(40, 50 * i);
            post(() -> p.a().ep().send(s, null, p.a().peer(), "s"), "send " + i);
        }
        boolean[] seen = new boolean[5];
        boolean released = false;
        int messages = 0;
        while (messages < 5 || !released) {
            CqEntry rx = rxCompletion(p.b(), "multi-receive completion (messages so far " + messages + ")");
            assertEquals("multi", rx.context(), "context of a multi-receive completion");
            if ((rx.flags() & Fi.FI_MULTI_RECV) != 0) {
                released = true;
            }
            if ((rx.flags() & Fi.FI_RECV) == 0) {
                assertEquals(Fi.FI_MULTI_RECV, rx.flags() & ~Fi.FI_MSG, "a release-only completion carries only FI_MULTI_RECV");
                continue;
            }
            assertSame(big, rx.buf(), "buf() is the posted buffer itself, never a slice");
            assertEquals(40, rx.len(), "len");
            int seed = big.get(rx.bufOffset()) & 0xff;
            assertTrue(seed % 50 == 0 && seed / 50 < 5 && !seen[seed / 50], "message at offset " + rx.bufOffset() + " is a fresh one");
            seen[seed / 50] = true;
            assertPattern(big, rx.bufOffset(), 40, seed, "message at offset " + rx.bufOffset());
            messages++;
        }
        assertTrue(released, "the buffer is released (FI_MULTI_RECV) once less than FI_OPT_MIN_MULTI_RECV remains");
    }

    /**
     * R6 with FI_MULTI_RECV (R6): every message that lands in a multi-receive
     * buffer needs room in the CQ like a posted receive. On a CQ of two entries, one buffer with
     * room for all, five messages: each arrives with its completion and the CQ never overruns
     * — the provider releases the buffer early (FI_MULTI_RECV) when the CQ has no room left,
     * holding further messages until the next buffer is posted, which this test does whenever
     * it sees a release, reading completions as they come.
     */
    @Test
    void multiReceiveOnASmallCqLosesNothing() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_MULTI_RECV)
                .rxCq(new CqAttr().format(CqFormat.TAGGED).size(2))
                .beforeEnable(s -> s.ep().setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, 16)));
        List<ByteBuffer> buffers = new ArrayList<>();
        ByteBuffer first = zeroed(1024);
        buffers.add(first);
        Msg m = new Msg().buffer(first, desc(first)).addr(ANY).context(first);
        post(() -> p.b().ep().recvMsg(m, Fi.FI_MULTI_RECV), "recvMsg with FI_MULTI_RECV");
        for (int i = 0; i < 5; i++) {
            ByteBuffer s = pattern(40, 50 * i);
            post(() -> p.a().ep().send(s, null, p.a().peer(), "s"), "send " + i);
        }
        boolean[] seen = new boolean[5];
        int messages = 0;
        while (messages < 5) {
            CqEntry rx = rxCompletion(p.b(), "multi-receive completion on a CQ of 2 (messages so far " + messages
                    + "; an overrun or a lost message ends here)");
            if ((rx.flags() & Fi.FI_RECV) != 0) {
                ByteBuffer big = (ByteBuffer) rx.context();
                assertTrue(buffers.contains(big), "the context is one of the posted buffers");
                assertSame(big, rx.buf(), "buf() is the posted buffer");
                assertEquals(40, rx.len(), "len");
                int seed = big.get(rx.bufOffset()) & 0xff;
                assertTrue(seed % 50 == 0 && seed / 50 < 5 && !seen[seed / 50], "message at offset " + rx.bufOffset()
                        + " is a fresh one (seed " + seed + ")");
                seen[seed / 50] = true;
                assertPattern(big, rx.bufOffset(), 40, seed, "message at offset " + rx.bufOffset());
                messages++;
            }
            if ((rx.flags() & Fi.FI_MULTI_RECV) != 0 && messages < 5) {
                ByteBuffer next = zeroed(1024); // released early: the rest needs another buffer
                buffers.add(next);
                Msg n = new Msg().buffer(next, desc(next)).addr(ANY).context(next);
                post(() -> p.b().ep().recvMsg(n, Fi.FI_MULTI_RECV), "another multi-receive buffer");
            }
        }
        for (int i = 0; i < 5; i++) {
            txCompletion(p.a(), "send " + i);
        }
    }

    /** R6: a posted receive reserves room in its CQ: posting beyond the CQ's room returns -EAGAIN, and room comes back when read. */
    @Test
    void postBeyondTheCqsRoomIsEagain() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).rxCq(new CqAttr().format(CqFormat.TAGGED).size(4)));
        long room = p.b().rxCq().attr().size();
        int accepted = 0;
        int rc = 0;
        while (accepted <= room + 1) {
            rc = p.b().ep().recv(zeroed(8), null, ANY, "r" + accepted);
            if (rc != 0) {
                break;
            }
            accepted++;
        }
        assertEquals(-Errno.EAGAIN, rc, "a receive that its CQ could not hold returns -EAGAIN (R6)");
        assertTrue(accepted <= room, accepted + " receives accepted with room for " + room + " completions (R6)");
        post(() -> p.a().ep().send(pattern(4, 0), null, p.a().peer(), "s"), "send");
        rxCompletion(p.b(), "one receive");
        post(() -> p.b().ep().recv(zeroed(8), null, ANY, "again"), "a receive after room was freed");
    }

    /** fi_cntr bound to endpoints: FI_SEND and FI_RECV counters count completed operations; failures count as errors. */
    @Test
    void countersCountOperations() throws FabricException {
        Counter[] send = new Counter[2];
        Counter[] recv = new Counter[2];
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).beforeEnable(s -> {
            int i = s.label().equals("a") ? 0 : 1;
            send[i] = fx.openCounter(new CounterAttr(), "send-" + s.label());
            recv[i] = fx.openCounter(new CounterAttr(), "recv-" + s.label());
            s.ep().bind(send[i], Fi.FI_SEND);
            s.ep().bind(recv[i], Fi.FI_RECV);
        }));
        for (int i = 0; i < 3; i++) {
            post(() -> p.b().ep().recv(zeroed(16), null, ANY, "r"), "recv");
        }
        post(() -> p.b().ep().recv(zeroed(2), null, ANY, "small"), "small recv");
        for (int i = 0; i < 3; i++) {
            post(() -> p.a().ep().send(pattern(8, 0), null, p.a().peer(), "s"), "send");
        }
        await().until(() -> send[0].read() == 3, "the sender's FI_SEND counter to reach 3");
        await().until(() -> recv[1].read() == 3, "the receiver's FI_RECV counter to reach 3");
        post(() -> p.a().ep().send(pattern(8, 0), null, p.a().peer(), "s"), "send that truncates");
        await().until(() -> recv[1].readErr() == 1, "the receiver's FI_RECV counter to count the truncation as an error");
        assertEquals(3, recv[1].read(), "the failure is not counted as a success");
        assertEquals(0, send[1].read(), "the receiver sent nothing");
    }

    /**
     * R11: with FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE and FI_DELIVERY_COMPLETE the source
     * buffer may be reused after the completion; with FI_DELIVERY_COMPLETE the data is already
     * in the target buffer when the completion is read.
     */
    @ParameterizedTest
    @ValueSource(longs = {Fi.FI_INJECT_COMPLETE, Fi.FI_TRANSMIT_COMPLETE, Fi.FI_DELIVERY_COMPLETE})
    void completionLevelsHoldTheirPromise(long level) throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        ByteBuffer rbuf = zeroed(64);
        post(() -> p.b().ep().recv(rbuf, null, ANY, "r"), "recv");
        ByteBuffer s = pattern(64, 90);
        Msg m = new Msg().buffer(s, desc(s)).addr(p.a().peer()).context("leveled");
        post(() -> p.a().ep().sendMsg(m, level | Fi.FI_COMPLETION), "sendMsg with " + Long.toHexString(level));
        txCompletion(p.a(), "the send");
        if (level == Fi.FI_DELIVERY_COMPLETE) {
            assertPattern(rbuf, 0, 64, 90, "FI_DELIVERY_COMPLETE: data placed before the completion (R11)");
        }
        for (int i = 0; i < 64; i++) {
            s.put(i, (byte) 0);
        }
        rxCompletion(p.b(), "the receive");
        assertPattern(rbuf, 0, 64, 90, "the source buffer was reusable after the completion (R11)");
    }

    /** R11 FI_MATCH_COMPLETE: the send does not complete before it is matched with a receive. */
    @Test
    void matchCompleteWaitsForTheReceive() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        requireResourceManagement(p);
        ByteBuffer s = pattern(32, 4);
        Msg m = new Msg().buffer(s, desc(s)).addr(p.a().peer()).context("match");
        post(() -> p.a().ep().sendMsg(m, Fi.FI_MATCH_COMPLETE | Fi.FI_COMPLETION), "sendMsg with FI_MATCH_COMPLETE");
        await().settle();
        assertEquals(-Errno.EAGAIN, p.a().txCq().read(new CqEntry[] {new CqEntry()}, 1),
                "no FI_MATCH_COMPLETE completion while no receive is posted (R11)");
        ByteBuffer rbuf = zeroed(32);
        post(() -> p.b().ep().recv(rbuf, null, ANY, "r"), "recv");
        txCompletion(p.a(), "the FI_MATCH_COMPLETE send");
        assertPattern(rbuf, 0, 32, 4, "matched and placed");
    }

    /**
     * FI_WAIT_FD with real completions: the channel becomes readable when a completion arrives.
     * In MANUAL progress a wake-up for the transport's own traffic is allowed (the wait bridge
     * signals whatever arrives — an RDM endpoint's connection set-up, rxm's credit grants): the
     * application then finds nothing, and {@code tryWait} answers 0 and re-arms, as in C. So the
     * channel must become readable until {@code tryWait} finds the completion, a few times at
     * most.
     */
    @Test
    void fdChannelBecomesReadableOnACompletion() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).rxCq(new CqAttr().format(CqFormat.TAGGED).waitObj(WaitObj.FD)));
        WaitObject.Fd fd = (WaitObject.Fd) p.b().rxCq().getWait();
        try (FdReadiness r = new FdReadiness(fd.channel())) {
            assertEquals(0, fx.fabric().tryWait(p.b().rxCq()), "tryWait of the empty receive CQ");
            post(() -> p.b().ep().recv(zeroed(8), null, ANY, "r"), "recv");
            post(() -> p.a().ep().send(pattern(8, 0), null, p.a().peer(), "s"), "send");
            int rc = 0;
            for (int wakes = 0; rc == 0 && wakes < 5; wakes++) {
                await().until(r::readableNow, "the FD channel to become readable after a completion");
                rc = fx.fabric().tryWait(p.b().rxCq());
            }
            assertEquals(-Errno.EAGAIN, rc, "tryWait with a completion queued, after at most four wake-ups for nothing");
            rxCompletion(p.b(), "the receive");
        }
    }

    /** R4 with real completions: sread returns a completion that arrives. */
    @Test
    void blockingReadReturnsACompletion() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).rxCq(new CqAttr().format(CqFormat.TAGGED).waitObj(WaitObj.UNSPEC)));
        Object rctx = new Object();
        post(() -> p.b().ep().recv(zeroed(8), null, ANY, rctx), "recv");
        post(() -> p.a().ep().send(pattern(8, 0), null, p.a().peer(), "s"), "send");
        CqEntry[] buf = {new CqEntry()};
        await().until(() -> p.b().rxCq().sread(buf, 1, 0, 10) == 1, "sread to return the completion");
        assertSame(rctx, buf[0].context(), "sread's completion");
    }

    /** R5: with THRESHOLD, sread(cond = 3) returns the 3 queued completions. */
    @Test
    void thresholdReadReturnsWhenEnoughAreQueued() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).rxCq(new CqAttr().format(CqFormat.TAGGED)
                .waitObj(WaitObj.UNSPEC).waitCond(CqWaitCond.THRESHOLD)));
        for (int i = 0; i < 3; i++) {
            post(() -> p.b().ep().recv(zeroed(8), null, ANY, "r"), "recv");
        }
        for (int i = 0; i < 3; i++) {
            ByteBuffer s = pattern(8, i);
            Msg m = new Msg().buffer(s, desc(s)).addr(p.a().peer()).context("s");
            post(() -> p.a().ep().sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "send " + i);
            txCompletion(p.a(), "delivery of send " + i);
        }
        CqEntry[] buf = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
        int rc = p.b().rxCq().sread(buf, 4, 3, (int) await().timeoutMs());
        assertEquals(3, rc, "threshold sread with 3 delivered completions (R5)");
    }

    /** R16: with FI_NOTIFY_FLAGS_ONLY, FI_REMOTE_CQ_DATA is still set. */
    @Test
    void notifyFlagsOnlyKeepsRemoteCqData() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).mode(Fi.FI_NOTIFY_FLAGS_ONLY));
        requireCqData(p);
        post(() -> p.b().ep().recv(zeroed(8), null, ANY, "r"), "recv");
        post(() -> p.a().ep().sendData(pattern(8, 0), null, 5L, p.a().peer(), "s"), "sendData");
        CqEntry rx = rxCompletion(p.b(), "the receive with CQ data");
        assertFlags(Fi.FI_REMOTE_CQ_DATA, rx.flags(), "FI_REMOTE_CQ_DATA under FI_NOTIFY_FLAGS_ONLY (R16)");
        assertEquals(5L, rx.data());
    }

    /** docs/API.md Endpoints: an operation the endpoint's caps do not cover returns -ENOSYS. */
    @Test
    void operationsOutsideTheCapsAreEnosys() throws FabricException {
        EndpointPair p = pair(Fi.FI_MSG);
        long caps = p.a().info().caps();
        if ((caps & Fi.FI_TAGGED) == 0) {
            assertEquals(-Errno.ENOSYS, p.a().ep().tsend(pattern(4, 0), null, p.a().peer(), 1, "t"),
                    "tsend on an endpoint without FI_TAGGED");
        }
        if ((caps & Fi.FI_RMA) == 0) {
            assertEquals(-Errno.ENOSYS, p.a().ep().write(pattern(4, 0), null, p.a().peer(), 0, 0, "w"),
                    "RMA write on an endpoint without FI_RMA");
            assertEquals(-Errno.ENOSYS, p.a().ep().readMsg(new RmaMsg(), 0), "RMA readMsg on an endpoint without FI_RMA");
        }
        if ((caps & Fi.FI_ATOMIC) == 0) {
            assertEquals(-Errno.ENOSYS, p.a().ep().atomic(1, p.a().peer(), 0, 0, Fi.FI_SUM, "a"),
                    "atomic on an endpoint without FI_ATOMIC");
        }
        if (p.a().info().domainAttr().cqDataSize() == 0) {
            // fi_domain(3) cq_data_size 0: the domain carries no remote CQ data, so the calls
            // that would send some are outside what it offers
            assertEquals(-Errno.ENOSYS, p.a().ep().sendData(pattern(4, 0), null, 1, p.a().peer(), "d"),
                    "sendData where cq_data_size is 0");
            assertEquals(-Errno.ENOSYS, p.a().ep().injectData(pattern(4, 0), 1, p.a().peer()),
                    "injectData where cq_data_size is 0");
            Msg m = new Msg().buffer(pattern(4, 0), null).addr(p.a().peer()).data(1);
            assertEquals(-Errno.ENOSYS, p.a().ep().sendMsg(m, Fi.FI_REMOTE_CQ_DATA),
                    "sendMsg with FI_REMOTE_CQ_DATA where cq_data_size is 0");
            if ((caps & Fi.FI_RMA) != 0) {
                assertEquals(-Errno.ENOSYS, p.a().ep().writeData(pattern(4, 0), null, 1, p.a().peer(), 0, 0, "w"),
                        "writeData where cq_data_size is 0");
            }
        }
        assertNotEquals(0, caps & Fi.FI_MSG, "the pair has FI_MSG");
    }
}
