package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.WaitObj;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The errno table of {@code docs/ERRORS.md} ("one errno per condition"), row by row, on every
 * provider: a read-only buffer the provider would write into is {@code -EINVAL}; a length
 * above {@code max_msg_size} is {@code -EMSGSIZE} for sends and receives alike; an inject above
 * {@code inject_size} is {@code -EMSGSIZE}; a flag bit the call does not take is
 * {@code -EBADFLAGS}, on the {@code *Msg} calls and on the queues' reads. A refused call
 * changes nothing: each refusal is repeated more times than the CQ holds (a leaked CQ
 * reservation would block the later post), the CQs stay empty, and a valid exchange afterwards
 * meets the receive posted after the refusals.
 */
public abstract class PostCheckConformance extends EndpointTest {
    /** Bit 22: no libfabric flag uses it ({@code FI_PRIORITY} was withdrawn). */
    protected static final long UNKNOWN_FLAG = 1L << 22;
    private static final long RMA_CAPS = Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;
    private static final long ATOMIC_CAPS = Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ
            | Fi.FI_REMOTE_WRITE;
    private static final int SMALL_CQ = 4;

    private MemoryRegion mr;

    /** A pair with {@code caps} and small CQs, so that a leaked CQ reservation shows at once. */
    private EndpointPair smallPair(long caps) throws FabricException {
        return fx.openPair(new PairSpec(caps).txCq(new CqAttr().format(CqFormat.TAGGED).size(SMALL_CQ))
                .rxCq(new CqAttr().format(CqFormat.TAGGED).size(SMALL_CQ)));
    }

    /** A pair with {@code caps} and side b's registered 4 KiB region ({@link #mr}). */
    private EndpointPair targetPair(long caps) throws FabricException {
        EndpointPair p = smallPair(caps);
        ByteBuffer target = ByteBuffer.allocateDirect(4096).order(ByteOrder.nativeOrder());
        mr = fx.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, "post-check-target");
        return p;
    }

    /**
     * Calls {@code op} more times than {@code cq} holds; each must return {@code -errno}. A
     * refusal that reserved CQ room or queued something would show in the later checks.
     */
    private static void refused(int errno, IntSupplier op, CompletionQueue cq, String what) {
        long n = cq.attr().size() + 1;
        for (long i = 0; i < n; i++) {
            int rc = op.getAsInt();
            assertEquals(-errno, rc, what + " must be refused with -" + Errno.name(errno) + " (got " + rc + " "
                    + (rc < 0 ? Errno.strerror(-rc) : "accepted") + ", attempt " + (i + 1) + ")");
        }
    }

    /** Nothing was queued: after driving progress, both sides' CQs are empty. */
    private void assertNothingHappened(EndpointPair p, String after) {
        await().settle();
        CqEntry[] one = {new CqEntry()};
        assertEquals(-Errno.EAGAIN, p.a().txCq().read(one, 1), "side a's transmit CQ after " + after);
        assertEquals(-Errno.EAGAIN, p.b().rxCq().read(one, 1), "side b's receive CQ after " + after);
        assertEquals(-Errno.EAGAIN, p.b().txCq().read(one, 1), "side b's transmit CQ after " + after);
        assertEquals(-Errno.EAGAIN, p.a().rxCq().read(one, 1), "side a's receive CQ after " + after);
    }

    /** A valid message a → b meets the receive posted now (not one that was refused) and both complete. */
    private void exchangeStillWorks(EndpointPair p, String after) throws FabricException {
        ByteBuffer in = zeroed(64);
        Object rctx = new Object();
        MemoryRegion rd = desc(in);
        post(() -> p.b().ep().recv(in, rd, ANY, rctx), "a valid recv after " + after);
        ByteBuffer out = pattern(40, 17);
        Object sctx = new Object();
        MemoryRegion sd = desc(out);
        post(() -> p.a().ep().send(out, sd, p.a().peer(), sctx), "a valid send after " + after);
        CqEntry rx = rxCompletion(p.b(), "the valid message after " + after);
        assertSame(rctx, rx.context(), "the message meets the receive posted after " + after);
        assertEquals(40, rx.len(), "len of the valid message after " + after);
        assertPattern(in, 0, 40, 17, "the valid message after " + after);
        assertSame(sctx, txCompletion(p.a(), "the valid send after " + after).context(), "send context");
    }

    private static ByteBuffer readOnly(int n) {
        return ByteBuffer.allocateDirect(n).order(ByteOrder.nativeOrder()).asReadOnlyBuffer();
    }

    // =================================================================== read-only target buffers: -EINVAL

    /** Item 12: recv and recvMsg into a read-only buffer are -EINVAL at post time and change nothing. */
    @Test
    void readOnlyReceiveBufferIsRefused() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG);
        ByteBuffer ro = readOnly(64);
        refused(Errno.EINVAL, () -> p.b().ep().recv(ro, null, ANY, "ro"), p.b().rxCq(), "recv into a read-only buffer");
        Msg m = new Msg().buffer(ro, null).addr(ANY).context("ro-msg");
        refused(Errno.EINVAL, () -> p.b().ep().recvMsg(m, 0), p.b().rxCq(), "recvMsg into a read-only buffer");
        if (p.b().info().rxAttr().iovLimit() >= 2) {
            Msg two = new Msg(2).iov(0, zeroed(16), null).iov(1, ro, null).iovCount(2).addr(ANY).context("ro-iov");
            refused(Errno.EINVAL, () -> p.b().ep().recvMsg(two, 0), p.b().rxCq(),
                    "recvMsg whose second iov is read-only");
        }
        assertNothingHappened(p, "read-only receives");
        exchangeStillWorks(p, "read-only receives");
    }

    /** Item 12: trecv and trecvMsg into a read-only buffer are -EINVAL and change nothing. */
    @Test
    void readOnlyTaggedReceiveBufferIsRefused() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG | Fi.FI_TAGGED);
        ByteBuffer ro = readOnly(64);
        refused(Errno.EINVAL, () -> p.b().ep().trecv(ro, null, ANY, 7, 0, "ro"), p.b().rxCq(),
                "trecv into a read-only buffer");
        TaggedMsg m = new TaggedMsg();
        m.buffer(ro, null).addr(ANY).context("ro-tmsg");
        m.tag(7).ignore(0);
        refused(Errno.EINVAL, () -> p.b().ep().trecvMsg(m, 0), p.b().rxCq(), "trecvMsg into a read-only buffer");
        assertNothingHappened(p, "read-only tagged receives");
        // the tagged message meets the tagged receive posted now
        ByteBuffer in = zeroed(32);
        post(() -> p.b().ep().trecv(in, null, ANY, 7, 0, "valid"), "a valid trecv");
        post(() -> p.a().ep().tsend(pattern(24, 5), null, p.a().peer(), 7, "ts"), "a valid tsend");
        assertEquals("valid", rxCompletion(p.b(), "the valid tagged message").context());
        assertPattern(in, 0, 24, 5, "the valid tagged message");
        txCompletion(p.a(), "the valid tsend");
    }

    /** An RMA read into a read-only buffer (read, readMsg) is -EINVAL; a valid read afterwards works. */
    @Test
    void readOnlyRmaReadBufferIsRefused() throws FabricException {
        EndpointPair p = targetPair(RMA_CAPS);
        ByteBuffer ro = readOnly(64);
        refused(Errno.EINVAL, () -> p.a().ep().read(ro, null, p.a().peer(), mr.address(), mr.key(), "ro"),
                p.a().txCq(), "read into a read-only buffer");
        RmaMsg m = new RmaMsg();
        m.buffer(ro, null).addr(p.a().peer()).context("ro-rma");
        m.rma(mr.address(), 64, mr.key());
        refused(Errno.EINVAL, () -> p.a().ep().readMsg(m, 0), p.a().txCq(), "readMsg into a read-only buffer");
        assertNothingHappened(p, "read-only RMA reads");
        ByteBuffer dst = zeroed(64);
        MemoryRegion d = desc(dst);
        post(() -> p.a().ep().read(dst, d, p.a().peer(), mr.address(), mr.key(), "valid"), "a valid read");
        assertEquals("valid", txCompletion(p.a(), "the valid read").context());
    }

    /** A fetching atomic with a read-only result buffer (fetchAtomic, compareAtomic) is -EINVAL. */
    @Test
    void readOnlyAtomicResultIsRefused() throws FabricException {
        EndpointPair p = targetPair(ATOMIC_CAPS);
        ByteBuffer ro = readOnly(8);
        refused(Errno.EINVAL, () -> p.a().ep().fetchAtomic(1, ro, null, p.a().peer(), mr.address() + 8, mr.key(),
                Fi.FI_SUM, "ro"), p.a().txCq(), "fetchAtomic into a read-only result");
        refused(Errno.EINVAL, () -> p.a().ep().compareAtomic(0, 1, ro, null, p.a().peer(), mr.address() + 8, mr.key(),
                "ro-cas"), p.a().txCq(), "compareAtomic into a read-only result");
        assertNothingHappened(p, "read-only atomic results");
        ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        MemoryRegion d = desc(result);
        post(() -> p.a().ep().fetchAtomic(1, result, d, p.a().peer(), mr.address() + 8, mr.key(), Fi.FI_SUM, "valid"),
                "a valid fetchAtomic");
        assertEquals("valid", txCompletion(p.a(), "the valid fetchAtomic").context());
        assertEquals(0, result.getLong(0), "the old value");
    }

    // =================================================================== max_msg_size: -EMSGSIZE

    /**
     * Item 19: a receive buffer longer than max_msg_size is -EMSGSIZE, as a send of that length
     * is (recv, recvMsg, send, sendMsg); nothing changes.
     */
    @Test
    void lengthAboveMaxMsgSizeIsEmsgsizeForSendAndReceive() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG);
        long max = p.a().info().epAttr().maxMsgSize();
        Assumptions.assumeTrue(max < Integer.MAX_VALUE, "max_msg_size " + max + " is beyond a Java buffer");
        ByteBuffer big = SparseBuffers.of(max + 1);
        refused(Errno.EMSGSIZE, () -> p.b().ep().recv(big, null, ANY, "big"), p.b().rxCq(),
                "recv of " + (max + 1) + " bytes (max_msg_size " + max + ")");
        Msg m = new Msg().buffer(big, null).addr(ANY).context("big-msg");
        refused(Errno.EMSGSIZE, () -> p.b().ep().recvMsg(m, 0), p.b().rxCq(), "recvMsg of max_msg_size + 1 bytes");
        refused(Errno.EMSGSIZE, () -> p.a().ep().send(big, null, p.a().peer(), "big-send"), p.a().txCq(),
                "send of max_msg_size + 1 bytes");
        Msg s = new Msg().buffer(big, null).addr(p.a().peer()).context("big-sendmsg");
        refused(Errno.EMSGSIZE, () -> p.a().ep().sendMsg(s, Fi.FI_COMPLETION), p.a().txCq(),
                "sendMsg of max_msg_size + 1 bytes");
        assertNothingHappened(p, "oversized posts");
        exchangeStillWorks(p, "oversized posts");
    }

    /** Item 19, tagged: trecv, trecvMsg, tsend, tsendMsg longer than max_msg_size are -EMSGSIZE. */
    @Test
    void taggedLengthAboveMaxMsgSizeIsEmsgsize() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG | Fi.FI_TAGGED);
        long max = p.a().info().epAttr().maxMsgSize();
        Assumptions.assumeTrue(max < Integer.MAX_VALUE, "max_msg_size " + max + " is beyond a Java buffer");
        ByteBuffer big = SparseBuffers.of(max + 1);
        refused(Errno.EMSGSIZE, () -> p.b().ep().trecv(big, null, ANY, 3, 0, "big"), p.b().rxCq(),
                "trecv of max_msg_size + 1 bytes");
        TaggedMsg m = new TaggedMsg();
        m.buffer(big, null).addr(ANY).context("big-tmsg");
        m.tag(3).ignore(0);
        refused(Errno.EMSGSIZE, () -> p.b().ep().trecvMsg(m, 0), p.b().rxCq(), "trecvMsg of max_msg_size + 1 bytes");
        refused(Errno.EMSGSIZE, () -> p.a().ep().tsend(big, null, p.a().peer(), 3, "big-tsend"), p.a().txCq(),
                "tsend of max_msg_size + 1 bytes");
        TaggedMsg s = new TaggedMsg();
        s.buffer(big, null).addr(p.a().peer()).context("big-tsendmsg");
        s.tag(3);
        refused(Errno.EMSGSIZE, () -> p.a().ep().tsendMsg(s, Fi.FI_COMPLETION), p.a().txCq(),
                "tsendMsg of max_msg_size + 1 bytes");
        assertNothingHappened(p, "oversized tagged posts");
        exchangeStillWorks(p, "oversized tagged posts");
    }

    /** Item 19, RMA: read and write of more than max_msg_size are -EMSGSIZE. */
    @Test
    void rmaLengthAboveMaxMsgSizeIsEmsgsize() throws FabricException {
        EndpointPair p = targetPair(RMA_CAPS);
        long max = p.a().info().epAttr().maxMsgSize();
        Assumptions.assumeTrue(max < Integer.MAX_VALUE, "max_msg_size " + max + " is beyond a Java buffer");
        ByteBuffer big = SparseBuffers.of(max + 1);
        refused(Errno.EMSGSIZE, () -> p.a().ep().read(big, null, p.a().peer(), mr.address(), mr.key(), "big-read"),
                p.a().txCq(), "read of max_msg_size + 1 bytes");
        refused(Errno.EMSGSIZE, () -> p.a().ep().write(big, null, p.a().peer(), mr.address(), mr.key(), "big-write"),
                p.a().txCq(), "write of max_msg_size + 1 bytes");
        assertNothingHappened(p, "oversized RMA");
    }

    // =================================================================== inject_size: -EMSGSIZE

    /** Item 19: inject, injectData and sendMsg(FI_INJECT) above inject_size are -EMSGSIZE on every provider. */
    @Test
    void injectAboveInjectSizeIsEmsgsize() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG);
        int n = (int) p.a().info().txAttr().injectSize() + 1;
        ByteBuffer over = pattern(n, 1);
        refused(Errno.EMSGSIZE, () -> p.a().ep().inject(over, p.a().peer()), p.a().txCq(),
                "inject of inject_size + 1 = " + n + " bytes");
        if (p.a().info().domainAttr().cqDataSize() > 0) {
            refused(Errno.EMSGSIZE, () -> p.a().ep().injectData(over, 5, p.a().peer()), p.a().txCq(),
                    "injectData of inject_size + 1 bytes");
        }
        Msg m = new Msg().buffer(over, desc(over)).addr(p.a().peer()).context("inject-msg");
        refused(Errno.EMSGSIZE, () -> p.a().ep().sendMsg(m, Fi.FI_INJECT | Fi.FI_COMPLETION), p.a().txCq(),
                "sendMsg(FI_INJECT) of inject_size + 1 bytes");
        assertNothingHappened(p, "oversized injects");
        exchangeStillWorks(p, "oversized injects");
    }

    /** Item 19, tagged: tinject and tsendMsg(FI_INJECT) above inject_size are -EMSGSIZE. */
    @Test
    void taggedInjectAboveInjectSizeIsEmsgsize() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG | Fi.FI_TAGGED);
        int n = (int) p.a().info().txAttr().injectSize() + 1;
        ByteBuffer over = pattern(n, 1);
        refused(Errno.EMSGSIZE, () -> p.a().ep().tinject(over, p.a().peer(), 9), p.a().txCq(),
                "tinject of inject_size + 1 bytes");
        TaggedMsg m = new TaggedMsg();
        m.buffer(over, null).addr(p.a().peer()).context("tinject-msg");
        m.tag(9);
        refused(Errno.EMSGSIZE, () -> p.a().ep().tsendMsg(m, Fi.FI_INJECT | Fi.FI_COMPLETION), p.a().txCq(),
                "tsendMsg(FI_INJECT) of inject_size + 1 bytes");
        assertNothingHappened(p, "oversized tagged injects");
        exchangeStillWorks(p, "oversized tagged injects");
    }

    /** Item 19, RMA: injectWrite and writeMsg(FI_INJECT) above inject_size are -EMSGSIZE. */
    @Test
    void injectWriteAboveInjectSizeIsEmsgsize() throws FabricException {
        EndpointPair p = targetPair(RMA_CAPS);
        int n = (int) p.a().info().txAttr().injectSize() + 1;
        ByteBuffer over = pattern(n, 1);
        refused(Errno.EMSGSIZE, () -> p.a().ep().injectWrite(over, p.a().peer(), mr.address(), mr.key()),
                p.a().txCq(), "injectWrite of inject_size + 1 bytes");
        RmaMsg m = new RmaMsg();
        m.buffer(over, null).addr(p.a().peer()).context("inject-write");
        m.rma(mr.address(), n, mr.key());
        refused(Errno.EMSGSIZE, () -> p.a().ep().writeMsg(m, Fi.FI_INJECT | Fi.FI_COMPLETION), p.a().txCq(),
                "writeMsg(FI_INJECT) of inject_size + 1 bytes");
        assertNothingHappened(p, "oversized inject writes");
    }

    // =================================================================== flags: -EBADFLAGS

    /**
     * Item 19: sendMsg and recvMsg with a flag bit they do not take (unknown, or another call's)
     * are -EBADFLAGS and post nothing.
     */
    @Test
    void badFlagsOnMessageCallsAreEbadflags() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG);
        ByteBuffer in = zeroed(64);
        Msg r = new Msg().buffer(in, desc(in)).addr(ANY).context("bad-recv");
        for (long bad : new long[] {UNKNOWN_FLAG, Fi.FI_REMOTE_CQ_DATA, Fi.FI_INJECT, Fi.FI_PEEK}) {
            refused(Errno.EBADFLAGS, () -> p.b().ep().recvMsg(r, bad | Fi.FI_COMPLETION), p.b().rxCq(),
                    "recvMsg with flag 0x" + Long.toHexString(bad));
        }
        ByteBuffer out = pattern(20, 3);
        Msg s = new Msg().buffer(out, desc(out)).addr(p.a().peer()).context("bad-send");
        for (long bad : new long[] {UNKNOWN_FLAG, Fi.FI_MULTI_RECV, Fi.FI_PEEK, Fi.FI_CLAIM}) {
            refused(Errno.EBADFLAGS, () -> p.a().ep().sendMsg(s, bad | Fi.FI_COMPLETION), p.a().txCq(),
                    "sendMsg with flag 0x" + Long.toHexString(bad));
        }
        assertNothingHappened(p, "posts with bad flags");
        exchangeStillWorks(p, "posts with bad flags");
    }

    /** Item 19, tagged: tsendMsg and trecvMsg with a flag bit they do not take are -EBADFLAGS. */
    @Test
    void badFlagsOnTaggedCallsAreEbadflags() throws FabricException {
        EndpointPair p = smallPair(Fi.FI_MSG | Fi.FI_TAGGED);
        TaggedMsg r = new TaggedMsg();
        r.buffer(zeroed(64), null).addr(ANY).context("bad-trecv");
        r.tag(4).ignore(0);
        for (long bad : new long[] {UNKNOWN_FLAG, Fi.FI_MULTI_RECV, Fi.FI_INJECT, Fi.FI_REMOTE_CQ_DATA}) {
            refused(Errno.EBADFLAGS, () -> p.b().ep().trecvMsg(r, bad | Fi.FI_COMPLETION), p.b().rxCq(),
                    "trecvMsg with flag 0x" + Long.toHexString(bad));
        }
        TaggedMsg s = new TaggedMsg();
        s.buffer(pattern(20, 3), null).addr(p.a().peer()).context("bad-tsend");
        s.tag(4);
        for (long bad : new long[] {UNKNOWN_FLAG, Fi.FI_CLAIM, Fi.FI_MULTI_RECV}) {
            refused(Errno.EBADFLAGS, () -> p.a().ep().tsendMsg(s, bad | Fi.FI_COMPLETION), p.a().txCq(),
                    "tsendMsg with flag 0x" + Long.toHexString(bad));
        }
        assertNothingHappened(p, "tagged posts with bad flags");
        exchangeStillWorks(p, "tagged posts with bad flags");
    }

    /** Item 19, RMA: readMsg and writeMsg with a flag bit they do not take are -EBADFLAGS. */
    @Test
    void badFlagsOnRmaCallsAreEbadflags() throws FabricException {
        EndpointPair p = targetPair(RMA_CAPS);
        ByteBuffer dst = zeroed(64);
        RmaMsg r = new RmaMsg();
        r.buffer(dst, desc(dst)).addr(p.a().peer()).context("bad-read");
        r.rma(mr.address(), 64, mr.key());
        for (long bad : new long[] {UNKNOWN_FLAG, Fi.FI_INJECT, Fi.FI_REMOTE_CQ_DATA, Fi.FI_MULTI_RECV}) {
            refused(Errno.EBADFLAGS, () -> p.a().ep().readMsg(r, bad | Fi.FI_COMPLETION), p.a().txCq(),
                    "readMsg with flag 0x" + Long.toHexString(bad));
        }
        ByteBuffer src = pattern(64, 2);
        RmaMsg w = new RmaMsg();
        w.buffer(src, desc(src)).addr(p.a().peer()).context("bad-write");
        w.rma(mr.address(), 64, mr.key());
        for (long bad : new long[] {UNKNOWN_FLAG, Fi.FI_MULTI_RECV, Fi.FI_PEEK}) {
            refused(Errno.EBADFLAGS, () -> p.a().ep().writeMsg(w, bad | Fi.FI_COMPLETION), p.a().txCq(),
                    "writeMsg with flag 0x" + Long.toHexString(bad));
        }
        assertNothingHappened(p, "RMA posts with bad flags");
    }

    /** Item 19: fi_cq_readerr takes no flags: any bit is -EBADFLAGS (the EQ's answer is the same). */
    @Test
    void cqReadErrWithFlagsIsEbadflags() throws FabricException {
        CompletionQueue cq = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "readerr-flags");
        CqErrEntry e = new CqErrEntry();
        for (long bad : new long[] {Fi.FI_PEEK, UNKNOWN_FLAG, Fi.FI_COMPLETION}) {
            assertEquals(-Errno.EBADFLAGS, cq.readErr(e, bad), "cq.readErr with flag 0x" + Long.toHexString(bad));
        }
        assertEquals(-Errno.EAGAIN, cq.readErr(e, 0), "cq.readErr with flags 0 on an empty CQ");
    }

    /**
     * Item 19: the EQ answers a flag bit a call does not take with the same -EBADFLAGS:
     * read/sread take FI_PEEK only, readErr and write none; a refused write writes nothing.
     */
    @Test
    void eqCallsWithBadFlagsAreEbadflags() throws FabricException {
        EventQueue eq = fx.openEq(new EqAttr().flags(Fi.FI_WRITE).waitObj(WaitObj.UNSPEC), "eq-flags");
        EqEntry entry = new EqEntry();
        assertEquals(-Errno.EBADFLAGS, eq.read(entry, UNKNOWN_FLAG), "eq.read with an unknown flag");
        assertEquals(-Errno.EBADFLAGS, eq.sread(entry, 0, UNKNOWN_FLAG), "eq.sread with an unknown flag");
        assertEquals(-Errno.EBADFLAGS, eq.readErr(new EqErrEntry(), Fi.FI_PEEK), "eq.readErr with FI_PEEK");
        assertEquals(-Errno.EBADFLAGS, eq.write(new EqEntry().event(Fi.FI_NOTIFY).data(1), Fi.FI_PEEK),
                "eq.write with FI_PEEK");
        assertEquals(-Errno.EAGAIN, eq.read(entry, 0), "the refused write wrote nothing");
    }
}
