package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.RecordingEndpoint.Call;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link UtilEndpoint}: every convenience call reaches the right funnel with the right
 * arguments, and every post check answers its errno without reaching one.
 */
class UtilEndpointTest {
    static final long ALL_CAPS = Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_SEND | Fi.FI_RECV
            | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_MULTI_RECV;
    static final int INJECT = 64;
    static final int MAX = 1024;
    static final int IOVS = 4;
    static final int RMA_IOVS = 2;

    private ProgressEngine engine;
    private final List<AbstractFid> opened = new ArrayList<>();

    @BeforeEach
    void startEngine() {
        engine = ProgressEngine.start(Progress.MANUAL, "util-endpoint-test", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                return 0;
            }

            @Override
            public void wakeup() {
            }
        });
    }

    @AfterEach
    void closeAll() throws FabricException {
        for (AbstractFid f : opened) {
            if (f instanceof UtilEndpoint) {
                f.close(); // the endpoints first: they hold what they bound (R9)
            }
        }
        for (AbstractFid f : opened) {
            f.close();
        }
        engine.close();
    }

    private <T extends AbstractFid> T track(T f) {
        opened.add(f);
        return f;
    }

    private RecordingEndpoint endpoint(long caps, long txOpFlags, boolean cqs) throws FabricException {
        RecordingEndpoint ep = new RecordingEndpoint(engine,
                new UtilEndpoint.Limits(caps, txOpFlags, 0, INJECT, MAX, IOVS, RMA_IOVS));
        if (cqs) {
            UtilCompletionQueue cq = track(new UtilCompletionQueue(new CqAttr(), "cq"));
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        }
        return track(ep);
    }

    private RecordingEndpoint endpoint() throws FabricException {
        return endpoint(ALL_CAPS, 0, true);
    }

    private static ByteBuffer buf(int n) {
        return ByteBuffer.allocate(n);
    }

    // =================================================================== each overload → its funnel

    @Test
    void sendsReachPostSendWithTheirArguments() throws FabricException {
        RecordingEndpoint ep = endpoint();
        ByteBuffer b = buf(10);
        assertEquals(0, ep.send(b, null, 7, "c1"));
        Call c = ep.only();
        assertEquals("send", c.funnel());
        assertSame(b, c.buf());
        assertNull(c.msg(), "a one-buffer call makes no Msg");
        assertEquals(10, c.length());
        assertEquals(7, c.addr());
        assertEquals(false, c.tagged());
        assertEquals(Fi.FI_COMPLETION, c.flags());
        assertEquals("c1", c.context());

        ep.calls.clear();
        assertEquals(0, ep.sendData(b, null, 99, 8, "c2"));
        c = ep.only();
        assertEquals(99, c.extra());
        assertEquals(Fi.FI_COMPLETION | Fi.FI_REMOTE_CQ_DATA, c.flags());
        assertEquals(8, c.addr());

        ep.calls.clear();
        assertEquals(0, ep.inject(b, 9));
        c = ep.only();
        assertEquals(Fi.FI_INJECT | PostChecks.INJECT_CALL, c.flags(), "an inject never completes");
        assertFalse(PostChecks.reportsToCq(c.flags()), "an inject never completes");
        assertNull(c.context());

        ep.calls.clear();
        assertEquals(0, ep.injectData(b, 5, 9));
        c = ep.only();
        assertEquals(Fi.FI_INJECT | PostChecks.INJECT_CALL | Fi.FI_REMOTE_CQ_DATA, c.flags());
        assertEquals(5, c.extra());
    }

    @Test
    void sendMsgTakesTheScalarsOutOfTheMessage() throws FabricException {
        RecordingEndpoint ep = endpoint();
        Msg m = new Msg().iov(0, buf(3), null).iov(1, buf(4), null).iovCount(2).addr(11).context("m").data(42);
        assertEquals(0, ep.sendMsg(m, Fi.FI_REMOTE_CQ_DATA | Fi.FI_DELIVERY_COMPLETE));
        Call c = ep.only();
        assertEquals("send", c.funnel());
        assertNull(c.buf());
        assertSame(m, c.msg());
        assertEquals(7, c.length());
        assertEquals(11, c.addr());
        assertEquals(42, c.extra());
        assertEquals("m", c.context());
        assertEquals(Fi.FI_REMOTE_CQ_DATA | Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION, c.flags());
    }

    @Test
    void taggedSendsCarryTheirTag() throws FabricException {
        RecordingEndpoint ep = endpoint();
        ByteBuffer b = buf(5);
        assertEquals(0, ep.tsend(b, null, 1, 0xAB, "t"));
        assertEquals(0, ep.tsendData(b, null, 3, 1, 0xAC, "t"));
        assertEquals(0, ep.tinject(b, 1, 0xAD));
        TaggedMsg m = new TaggedMsg().buffer(b, null).tag(0xAE).addr(2).context("tm");
        assertEquals(0, ep.tsendMsg(m, Fi.FI_INJECT));
        assertEquals(4, ep.calls.size());
        long[] tags = {0xAB, 0xAC, 0xAD, 0xAE};
        long[] flags = {Fi.FI_COMPLETION, Fi.FI_COMPLETION | Fi.FI_REMOTE_CQ_DATA, Fi.FI_INJECT | PostChecks.INJECT_CALL,
                Fi.FI_INJECT | Fi.FI_COMPLETION};
        for (int i = 0; i < 4; i++) {
            Call c = ep.calls.get(i);
            assertEquals("send", c.funnel());
            assertTrue(c.tagged());
            assertEquals(tags[i], c.tag());
            assertEquals(flags[i], c.flags(), "call " + i);
        }
        assertSame(m, ep.calls.get(3).msg());
        assertEquals(2, ep.calls.get(3).addr());
    }

    @Test
    void receivesReachPostRecvAndPeeksPostPeek() throws FabricException {
        RecordingEndpoint ep = endpoint();
        ByteBuffer b = buf(16);
        assertEquals(0, ep.recv(b, null, 4, "r"));
        Call c = ep.only();
        assertEquals("recv", c.funnel());
        assertSame(b, c.buf());
        assertEquals(4, c.addr());
        assertEquals(false, c.tagged());
        assertEquals(Fi.FI_COMPLETION, c.flags());

        ep.calls.clear();
        Msg m = new Msg().buffer(b, null).addr(5).context("rm");
        assertEquals(0, ep.recvMsg(m, Fi.FI_MULTI_RECV));
        c = ep.only();
        assertSame(m, c.msg());
        assertEquals(Fi.FI_MULTI_RECV | Fi.FI_COMPLETION, c.flags());
        assertEquals("rm", c.context());

        ep.calls.clear();
        assertEquals(0, ep.trecv(b, null, 6, 0x10, 0x0F, "tr"));
        c = ep.only();
        assertTrue(c.tagged());
        assertEquals(0x10, c.tag());
        assertEquals(0x0F, c.extra(), "ignore");

        ep.calls.clear();
        TaggedMsg tm = new TaggedMsg().buffer(b, null).tag(0x20).ignore(1).addr(7).context("trm");
        assertEquals(0, ep.trecvMsg(tm, 0));
        c = ep.only();
        assertEquals("recv", c.funnel());
        assertEquals(0x20, c.tag());
        assertEquals(1, c.extra());
        assertEquals(7, c.addr());

        for (long f : new long[] {Fi.FI_PEEK, Fi.FI_PEEK | Fi.FI_CLAIM, Fi.FI_CLAIM, Fi.FI_CLAIM | Fi.FI_DISCARD}) {
            ep.calls.clear();
            assertEquals(0, ep.trecvMsg(tm, f));
            c = ep.only();
            assertEquals("peek", c.funnel());
            assertSame(tm, c.msg());
            assertEquals(f | Fi.FI_COMPLETION, c.flags());
        }
    }

    @Test
    void rmaReachesPostRmaWithItsDirection() throws FabricException {
        RecordingEndpoint ep = endpoint();
        ByteBuffer b = buf(32);
        assertEquals(0, ep.read(b, null, 1, 0x1000, 77, "rd"));
        Call c = ep.only();
        assertEquals("rma", c.funnel());
        assertTrue(c.read());
        assertEquals(32, c.length());
        assertEquals(0x1000, c.remoteAddr());
        assertEquals(77, c.key());
        assertEquals(Fi.FI_COMPLETION, c.flags());

        ep.calls.clear();
        assertEquals(0, ep.write(b, null, 1, 0x2000, 78, "wr"));
        assertEquals(0, ep.writeData(b, null, 9, 1, 0x2000, 78, "wd"));
        assertEquals(0, ep.injectWrite(buf(8), 1, 0x2000, 78));
        assertEquals(3, ep.calls.size());
        assertEquals(false, ep.calls.get(0).read());
        assertEquals(Fi.FI_COMPLETION | Fi.FI_REMOTE_CQ_DATA, ep.calls.get(1).flags());
        assertEquals(9, ep.calls.get(1).extra());
        assertEquals(Fi.FI_INJECT | PostChecks.INJECT_CALL, ep.calls.get(2).flags());

        ep.calls.clear();
        RmaMsg m = new RmaMsg().buffer(b, null).rmaIovCount(2).rmaIov(0, 0x10, 12, 1).rmaIov(1, 0x40, 20, 2)
                .addr(3).context("rmsg").data(4);
        assertEquals(0, ep.readMsg(m, Fi.FI_FENCE));
        assertEquals(0, ep.writeMsg(m, Fi.FI_REMOTE_CQ_DATA));
        assertTrue(ep.calls.get(0).read());
        assertSame(m, ep.calls.get(0).msg());
        assertEquals(32, ep.calls.get(0).length());
        assertEquals(Fi.FI_FENCE | Fi.FI_COMPLETION, ep.calls.get(0).flags());
        assertEquals(4, ep.calls.get(1).extra());
        assertEquals(3, ep.calls.get(1).addr());
    }

    @Test
    void atomicsReachPostAtomic() throws FabricException {
        RecordingEndpoint ep = endpoint();
        ByteBuffer r = buf(8);
        assertEquals(0, ep.atomic(5, 1, 0x100, 3, Fi.FI_SUM, "a"));
        assertEquals(0, ep.fetchAtomic(6, r, null, 1, 0x100, 3, Fi.FI_ATOMIC_READ, "f"));
        assertEquals(0, ep.compareAtomic(7, 8, r, null, 1, 0x100, 3, "c"));
        Call a = ep.calls.get(0);
        assertEquals(Fi.FI_SUM, a.op());
        assertEquals(5, a.operand());
        assertNull(a.result());
        assertEquals(0x100, a.remoteAddr());
        Call f = ep.calls.get(1);
        assertEquals(Fi.FI_ATOMIC_READ, f.op());
        assertSame(r, f.result());
        Call c = ep.calls.get(2);
        assertEquals(Fi.FI_CSWAP, c.op());
        assertEquals(8, c.operand(), "the swap value");
        assertEquals(7, c.compare());
        assertEquals("c", c.context());
    }

    @Test
    void selectiveCompletionLeavesFiCompletionToTheCaller() throws FabricException {
        RecordingEndpoint ep = endpoint(ALL_CAPS, 0, false);
        ep.bind(track(new UtilCompletionQueue(new CqAttr(), "cq")),
                Fi.FI_TRANSMIT | Fi.FI_RECV | Fi.FI_SELECTIVE_COMPLETION);
        ByteBuffer b = buf(4);
        ep.send(b, null, 0, null);
        ep.sendMsg(new Msg().buffer(b, null), Fi.FI_COMPLETION);
        ep.recv(buf(4), null, 0, null);
        assertEquals(0, ep.calls.get(0).flags());
        assertEquals(Fi.FI_COMPLETION, ep.calls.get(1).flags());
        assertEquals(0, ep.calls.get(2).flags());
    }

    @Test
    void opFlagsApplyToPlainCallsButOnlyDataCallsCarryData() throws FabricException {
        RecordingEndpoint ep = endpoint(ALL_CAPS, Fi.FI_DELIVERY_COMPLETE | Fi.FI_REMOTE_CQ_DATA, true);
        ep.send(buf(4), null, 0, null);
        assertEquals(Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION, ep.only().flags());
    }

    /**
     * FI_INJECT in the op flags frees the buffer at the call but, unlike the fi_inject* calls,
     * reports: a plain send and write reach the funnel in their one-buffer form without the
     * inject-call mark, and need a transmit CQ.
     */
    @Test
    void injectInTheOpFlagsReportsUnlikeTheInjectCalls() throws FabricException {
        RecordingEndpoint ep = endpoint(ALL_CAPS, Fi.FI_INJECT, true);
        ByteBuffer b = buf(4);
        assertEquals(0, ep.send(b, null, 0, "s"));
        assertEquals(0, ep.write(b, null, 0, 0x2000, 78, "w"));
        for (Call c : ep.calls) {
            assertSame(b, c.buf(), c.funnel() + ": the one-buffer form");
            assertNull(c.msg(), c.funnel() + ": no message made");
            assertEquals(Fi.FI_INJECT | Fi.FI_COMPLETION, c.flags(), c.funnel());
            assertTrue(PostChecks.reportsToCq(c.flags()), c.funnel() + " with FI_INJECT in the op flags reports");
        }
        RecordingEndpoint noCq = endpoint(ALL_CAPS, Fi.FI_INJECT, false);
        assertEquals(-Errno.ENOCQ, noCq.send(b, null, 0, "s"), "a send that reports needs a transmit CQ");
        assertEquals(-Errno.ENOCQ, noCq.write(b, null, 0, 0x2000, 78, "w"), "a write that reports needs a CQ");
        assertEquals(0, noCq.inject(b, 0), "fi_inject needs none");
    }

    @Test
    void bindKeepsTheBoundObjectsAndRunsTheHook() throws FabricException {
        RecordingEndpoint ep = endpoint(ALL_CAPS, 0, false);
        UtilCompletionQueue cq = track(new UtilCompletionQueue(new CqAttr(), "cq"));
        UtilCounter reads = track(new UtilCounter(new CounterAttr(), "rd"));
        UtilCounter sends = track(new UtilCounter(new CounterAttr(), "sd"));
        ep.bind(cq, Fi.FI_RECV);
        ep.bind(reads, Fi.FI_READ | Fi.FI_REMOTE_READ);
        ep.bind(sends, Fi.FI_SEND);
        assertEquals(List.of(Fi.FI_RECV, Fi.FI_READ | Fi.FI_REMOTE_READ, Fi.FI_SEND), ep.boundFlags);
        assertSame(cq, ep.rxCq());
        assertNull(ep.txCq());
        assertSame(reads, ep.counterFor(Fi.FI_RMA | Fi.FI_READ));
        assertSame(reads, ep.counterFor(Fi.FI_ATOMIC | Fi.FI_READ), "a fetching atomic counts as a read");
        assertSame(reads, ep.counterFor(Fi.FI_RMA | Fi.FI_REMOTE_READ));
        assertSame(sends, ep.counterFor(Fi.FI_MSG | Fi.FI_SEND));
        assertSame(sends, ep.counterFor(Fi.FI_TAGGED | Fi.FI_SEND));
        assertNull(ep.counterFor(Fi.FI_RECV | Fi.FI_MSG));
        assertNull(ep.counterFor(Fi.FI_ATOMIC | Fi.FI_WRITE));
        ep.enable();
        FabricException e = assertThrows(FabricException.class,
                () -> ep.bind(track(new UtilCounter(new CounterAttr(), "w")), Fi.FI_WRITE));
        assertEquals(Errno.EOPBADSTATE, e.errno());
        assertEquals(3, ep.boundFlags.size(), "no hook for a refused bind");
        ep.close();
        assertEquals(0, cq.bindCount(), "closing the endpoint released what it bound (R9)");
        assertEquals(0, reads.bindCount());
    }

    // =================================================================== every call, good and refused

    /** One valid call of every convenience overload, with whether it reports a completion. */
    static Stream<Arguments> everyCall() {
        List<Arguments> a = new ArrayList<>();
        add(a, "send", true, ep -> ep.send(buf(8), null, 0, null));
        add(a, "sendData", true, ep -> ep.sendData(buf(8), null, 1, 0, null));
        add(a, "inject", false, ep -> ep.inject(buf(8), 0));
        add(a, "injectData", false, ep -> ep.injectData(buf(8), 1, 0));
        add(a, "sendMsg", true, ep -> ep.sendMsg(new Msg().buffer(buf(8), null), 0));
        add(a, "tsend", true, ep -> ep.tsend(buf(8), null, 0, 1, null));
        add(a, "tsendData", true, ep -> ep.tsendData(buf(8), null, 1, 0, 1, null));
        add(a, "tinject", false, ep -> ep.tinject(buf(8), 0, 1));
        add(a, "tsendMsg", true, ep -> ep.tsendMsg(new TaggedMsg().buffer(buf(8), null), 0));
        add(a, "recv", true, ep -> ep.recv(buf(8), null, 0, null));
        add(a, "recvMsg", true, ep -> ep.recvMsg(new Msg().buffer(buf(8), null), 0));
        add(a, "trecv", true, ep -> ep.trecv(buf(8), null, 0, 1, 0, null));
        add(a, "trecvMsg", true, ep -> ep.trecvMsg(new TaggedMsg().buffer(buf(8), null), 0));
        add(a, "trecvMsg(FI_PEEK)", true, ep -> ep.trecvMsg(new TaggedMsg().buffer(buf(8), null), Fi.FI_PEEK));
        add(a, "read", true, ep -> ep.read(buf(8), null, 0, 0, 0, null));
        add(a, "readMsg", true, ep -> ep.readMsg(new RmaMsg().buffer(buf(8), null).rma(0, 8, 0), 0));
        add(a, "write", true, ep -> ep.write(buf(8), null, 0, 0, 0, null));
        add(a, "writeData", true, ep -> ep.writeData(buf(8), null, 1, 0, 0, 0, null));
        add(a, "injectWrite", false, ep -> ep.injectWrite(buf(8), 0, 0, 0));
        add(a, "writeMsg", true, ep -> ep.writeMsg(new RmaMsg().buffer(buf(8), null).rma(0, 8, 0), 0));
        add(a, "atomic", true, ep -> ep.atomic(1, 0, 0, 0, Fi.FI_SUM, null));
        add(a, "fetchAtomic", true, ep -> ep.fetchAtomic(1, buf(8), null, 0, 0, 0, Fi.FI_SUM, null));
        add(a, "compareAtomic", true, ep -> ep.compareAtomic(1, 2, buf(8), null, 0, 0, 0, null));
        return a.stream();
    }

    private static void add(List<Arguments> a, String name, boolean reports, ToIntFunction<RecordingEndpoint> call) {
        a.add(Arguments.of(name, reports, call));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCall")
    void aValidCallReachesOneFunnel(String name, boolean reports, ToIntFunction<RecordingEndpoint> call)
            throws FabricException {
        RecordingEndpoint ep = endpoint();
        assertEquals(0, call.applyAsInt(ep), name);
        ep.only();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCall")
    void aClosedEndpointIsEbadf(String name, boolean reports, ToIntFunction<RecordingEndpoint> call)
            throws FabricException {
        RecordingEndpoint ep = endpoint();
        ep.close();
        assertEquals(-Errno.EBADF, call.applyAsInt(ep), name);
        assertTrue(ep.calls.isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCall")
    void aDepartedEndpointIsEnodev(String name, boolean reports, ToIntFunction<RecordingEndpoint> call)
            throws FabricException {
        RecordingEndpoint ep = endpoint();
        ep.depart();
        assertEquals(-Errno.ENODEV, call.applyAsInt(ep), name);
        assertTrue(ep.calls.isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCall")
    void withoutCapsEveryCallIsEnosys(String name, boolean reports, ToIntFunction<RecordingEndpoint> call)
            throws FabricException {
        RecordingEndpoint ep = endpoint(Fi.FI_LOCAL_COMM, 0, true);
        assertEquals(-Errno.ENOSYS, call.applyAsInt(ep), name);
        assertTrue(ep.calls.isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCall")
    void withoutACqOnlyTheOneBufferInjectsPass(String name, boolean reports, ToIntFunction<RecordingEndpoint> call)
            throws FabricException {
        RecordingEndpoint ep = endpoint(ALL_CAPS, 0, false);
        assertEquals(reports ? -Errno.ENOCQ : 0, call.applyAsInt(ep), name);
        assertEquals(reports ? 0 : 1, ep.calls.size());
    }

    // =================================================================== the caps gate

    static Stream<Arguments> capsGate() {
        List<Arguments> a = new ArrayList<>();
        long msgOnly = Fi.FI_MSG | Fi.FI_SEND | Fi.FI_RECV;
        gate(a, "tagged without FI_TAGGED", msgOnly, -Errno.ENOSYS, ep -> ep.tsend(buf(8), null, 0, 1, null));
        gate(a, "trecvMsg peek without FI_TAGGED", msgOnly, -Errno.ENOSYS,
                ep -> ep.trecvMsg(new TaggedMsg().buffer(buf(8), null), Fi.FI_PEEK));
        gate(a, "read without FI_RMA", msgOnly, -Errno.ENOSYS, ep -> ep.read(buf(8), null, 0, 0, 0, null));
        gate(a, "atomic without FI_ATOMIC", msgOnly | Fi.FI_RMA, -Errno.ENOSYS,
                ep -> ep.atomic(1, 0, 0, 0, Fi.FI_SUM, null));
        gate(a, "FI_MULTI_RECV without the capability", msgOnly, -Errno.ENOSYS,
                ep -> ep.recvMsg(new Msg().buffer(buf(8), null), Fi.FI_MULTI_RECV));
        gate(a, "recv on a send-only endpoint", Fi.FI_MSG | Fi.FI_SEND, -Errno.ENOSYS,
                ep -> ep.recv(buf(8), null, 0, null));
        gate(a, "send on a receive-only endpoint", Fi.FI_MSG | Fi.FI_RECV, -Errno.ENOSYS,
                ep -> ep.send(buf(8), null, 0, null));
        gate(a, "send without a direction named: both implied", Fi.FI_MSG, 0, ep -> ep.send(buf(8), null, 0, null));
        gate(a, "recv without a direction named: both implied", Fi.FI_MSG, 0, ep -> ep.recv(buf(8), null, 0, null));
        gate(a, "write on a read-only RMA endpoint", Fi.FI_RMA | Fi.FI_READ, -Errno.ENOSYS,
                ep -> ep.write(buf(8), null, 0, 0, 0, null));
        gate(a, "read on a read-only RMA endpoint", Fi.FI_RMA | Fi.FI_READ, 0,
                ep -> ep.read(buf(8), null, 0, 0, 0, null));
        gate(a, "fetchAtomic on a write-only endpoint", Fi.FI_ATOMIC | Fi.FI_WRITE, -Errno.ENOSYS,
                ep -> ep.fetchAtomic(1, buf(8), null, 0, 0, 0, Fi.FI_SUM, null));
        gate(a, "RMA without a direction named: both implied", Fi.FI_RMA | Fi.FI_SEND | Fi.FI_RECV, 0,
                ep -> ep.write(buf(8), null, 0, 0, 0, null));
        return a.stream();
    }

    private static void gate(List<Arguments> a, String name, long caps, int errno,
                             ToIntFunction<RecordingEndpoint> call) {
        a.add(Arguments.of(name, caps, errno, call));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("capsGate")
    void theCapsGate(String name, long caps, int errno, ToIntFunction<RecordingEndpoint> call) throws FabricException {
        RecordingEndpoint ep = endpoint(caps, 0, true);
        assertEquals(errno, call.applyAsInt(ep), name);
        assertEquals(errno == 0 ? 1 : 0, ep.calls.size());
    }

    // =================================================================== the argument, flag and length checks

    static Stream<Arguments> badInput() {
        List<Arguments> a = new ArrayList<>();
        ByteBuffer big = buf(MAX + 1);
        ByteBuffer ro = buf(8).asReadOnlyBuffer();
        // a null buffer or message
        bad(a, "send(null)", -Errno.EINVAL, ep -> ep.send(null, null, 0, null));
        bad(a, "inject(null)", -Errno.EINVAL, ep -> ep.inject(null, 0));
        bad(a, "tsend(null)", -Errno.EINVAL, ep -> ep.tsend(null, null, 0, 0, null));
        bad(a, "sendMsg(null)", -Errno.EINVAL, ep -> ep.sendMsg(null, 0));
        bad(a, "sendMsg with a null iov", -Errno.EINVAL, ep -> ep.sendMsg(new Msg().iovCount(1), 0));
        bad(a, "tsendMsg(null)", -Errno.EINVAL, ep -> ep.tsendMsg(null, 0));
        bad(a, "recv(null)", -Errno.EINVAL, ep -> ep.recv(null, null, 0, null));
        bad(a, "trecv(null)", -Errno.EINVAL, ep -> ep.trecv(null, null, 0, 0, 0, null));
        bad(a, "recvMsg(null)", -Errno.EINVAL, ep -> ep.recvMsg(null, 0));
        bad(a, "trecvMsg(null)", -Errno.EINVAL, ep -> ep.trecvMsg(null, 0));
        bad(a, "read(null)", -Errno.EINVAL, ep -> ep.read(null, null, 0, 0, 0, null));
        bad(a, "write(null)", -Errno.EINVAL, ep -> ep.write(null, null, 0, 0, 0, null));
        bad(a, "injectWrite(null)", -Errno.EINVAL, ep -> ep.injectWrite(null, 0, 0, 0));
        bad(a, "readMsg(null)", -Errno.EINVAL, ep -> ep.readMsg(null, 0));
        bad(a, "writeMsg(null)", -Errno.EINVAL, ep -> ep.writeMsg(null, 0));
        bad(a, "fetchAtomic(null result)", -Errno.EINVAL, ep -> ep.fetchAtomic(1, null, null, 0, 0, 0, Fi.FI_SUM, null));
        bad(a, "compareAtomic(null result)", -Errno.EINVAL, ep -> ep.compareAtomic(1, 2, null, null, 0, 0, 0, null));
        // too many iovs
        bad(a, "sendMsg with too many iovs", -Errno.EINVAL, ep -> ep.sendMsg(iovs(new Msg(8), IOVS + 1), 0));
        bad(a, "tsendMsg with too many iovs", -Errno.EINVAL, ep -> ep.tsendMsg(iovs(new TaggedMsg(8), IOVS + 1), 0));
        bad(a, "recvMsg with too many iovs", -Errno.EINVAL, ep -> ep.recvMsg(iovs(new Msg(8), IOVS + 1), 0));
        bad(a, "trecvMsg with too many iovs", -Errno.EINVAL, ep -> ep.trecvMsg(iovs(new TaggedMsg(8), IOVS + 1), 0));
        bad(a, "writeMsg with too many iovs", -Errno.EINVAL,
                ep -> ep.writeMsg(iovs(new RmaMsg(8), IOVS + 1).rma(0, 8L * (IOVS + 1), 0), 0));
        bad(a, "readMsg with too many iovs", -Errno.EINVAL,
                ep -> ep.readMsg(iovs(new RmaMsg(8), IOVS + 1).rma(0, 8L * (IOVS + 1), 0), 0));
        bad(a, "writeMsg with too many RMA iovs", -Errno.EINVAL, ep -> ep.writeMsg(rmaIovs(RMA_IOVS + 1), 0));
        bad(a, "readMsg without an RMA iov", -Errno.EINVAL,
                ep -> ep.readMsg(new RmaMsg().buffer(buf(8), null), 0));
        bad(a, "writeMsg whose remote lengths differ from the local", -Errno.EINVAL,
                ep -> ep.writeMsg(new RmaMsg().buffer(buf(8), null).rma(0, 9, 0), 0));
        bad(a, "multi-receive with two iovs", -Errno.EINVAL,
                ep -> ep.recvMsg(iovs(new Msg(), 2), Fi.FI_MULTI_RECV));
        // unknown or misplaced flags
        bad(a, "sendMsg(FI_MULTI_RECV)", -Errno.EBADFLAGS, ep -> ep.sendMsg(new Msg().buffer(buf(8), null),
                Fi.FI_MULTI_RECV));
        bad(a, "tsendMsg(unknown bit)", -Errno.EBADFLAGS, ep -> ep.tsendMsg(new TaggedMsg().buffer(buf(8), null),
                1L << 62));
        bad(a, "recvMsg(FI_REMOTE_CQ_DATA)", -Errno.EBADFLAGS, ep -> ep.recvMsg(new Msg().buffer(buf(8), null),
                Fi.FI_REMOTE_CQ_DATA));
        bad(a, "trecvMsg(FI_MULTI_RECV)", -Errno.EBADFLAGS, ep -> ep.trecvMsg(new TaggedMsg().buffer(buf(8), null),
                Fi.FI_MULTI_RECV));
        bad(a, "readMsg(FI_INJECT)", -Errno.EBADFLAGS, ep -> ep.readMsg(new RmaMsg().buffer(buf(8), null)
                .rma(0, 8, 0), Fi.FI_INJECT));
        bad(a, "writeMsg(FI_PEEK)", -Errno.EBADFLAGS, ep -> ep.writeMsg(new RmaMsg().buffer(buf(8), null)
                .rma(0, 8, 0), Fi.FI_PEEK));
        // read-only landing buffers
        bad(a, "recv(read-only)", -Errno.EINVAL, ep -> ep.recv(ro, null, 0, null));
        bad(a, "recvMsg(read-only)", -Errno.EINVAL, ep -> ep.recvMsg(new Msg().buffer(ro, null), 0));
        bad(a, "trecv(read-only)", -Errno.EINVAL, ep -> ep.trecv(ro, null, 0, 0, 0, null));
        bad(a, "trecvMsg(read-only)", -Errno.EINVAL, ep -> ep.trecvMsg(new TaggedMsg().buffer(ro, null), 0));
        bad(a, "trecvMsg(FI_PEEK|FI_CLAIM, read-only)", -Errno.EINVAL,
                ep -> ep.trecvMsg(new TaggedMsg().buffer(ro, null), Fi.FI_PEEK | Fi.FI_CLAIM));
        bad(a, "read(read-only)", -Errno.EINVAL, ep -> ep.read(ro, null, 0, 0, 0, null));
        bad(a, "readMsg(read-only)", -Errno.EINVAL, ep -> ep.readMsg(new RmaMsg().buffer(ro, null).rma(0, 8, 0), 0));
        bad(a, "fetchAtomic(read-only result)", -Errno.EINVAL,
                ep -> ep.fetchAtomic(1, ro, null, 0, 0, 0, Fi.FI_SUM, null));
        bad(a, "compareAtomic(short result)", -Errno.EINVAL,
                ep -> ep.compareAtomic(1, 2, buf(7), null, 0, 0, 0, null));
        // above max_msg_size
        bad(a, "send(big)", -Errno.EMSGSIZE, ep -> ep.send(big, null, 0, null));
        bad(a, "sendData(big)", -Errno.EMSGSIZE, ep -> ep.sendData(big, null, 0, 0, null));
        bad(a, "tsend(big)", -Errno.EMSGSIZE, ep -> ep.tsend(big, null, 0, 0, null));
        bad(a, "sendMsg(big)", -Errno.EMSGSIZE, ep -> ep.sendMsg(new Msg().buffer(big, null), 0));
        bad(a, "recv(big)", -Errno.EMSGSIZE, ep -> ep.recv(big, null, 0, null));
        bad(a, "trecv(big)", -Errno.EMSGSIZE, ep -> ep.trecv(big, null, 0, 0, 0, null));
        bad(a, "recvMsg(big)", -Errno.EMSGSIZE, ep -> ep.recvMsg(new Msg().buffer(big, null), 0));
        bad(a, "trecvMsg(big)", -Errno.EMSGSIZE, ep -> ep.trecvMsg(new TaggedMsg().buffer(big, null), 0));
        bad(a, "read(big)", -Errno.EMSGSIZE, ep -> ep.read(big, null, 0, 0, 0, null));
        bad(a, "write(big)", -Errno.EMSGSIZE, ep -> ep.write(big, null, 0, 0, 0, null));
        bad(a, "writeData(big)", -Errno.EMSGSIZE, ep -> ep.writeData(big, null, 0, 0, 0, 0, null));
        bad(a, "writeMsg(big)", -Errno.EMSGSIZE,
                ep -> ep.writeMsg(new RmaMsg().buffer(big, null).rma(0, MAX + 1, 0), 0));
        bad(a, "readMsg(big)", -Errno.EMSGSIZE,
                ep -> ep.readMsg(new RmaMsg().buffer(big, null).rma(0, MAX + 1, 0), 0));
        // inject above inject_size
        ByteBuffer overInject = buf(INJECT + 1);
        bad(a, "inject(over)", -Errno.EMSGSIZE, ep -> ep.inject(overInject, 0));
        bad(a, "injectData(over)", -Errno.EMSGSIZE, ep -> ep.injectData(overInject, 0, 0));
        bad(a, "tinject(over)", -Errno.EMSGSIZE, ep -> ep.tinject(overInject, 0, 0));
        bad(a, "injectWrite(over)", -Errno.EMSGSIZE, ep -> ep.injectWrite(overInject, 0, 0, 0));
        bad(a, "sendMsg(FI_INJECT, over)", -Errno.EMSGSIZE,
                ep -> ep.sendMsg(new Msg().buffer(overInject, null), Fi.FI_INJECT));
        bad(a, "tsendMsg(FI_INJECT, over)", -Errno.EMSGSIZE,
                ep -> ep.tsendMsg(new TaggedMsg().buffer(overInject, null), Fi.FI_INJECT));
        bad(a, "writeMsg(FI_INJECT, over)", -Errno.EMSGSIZE,
                ep -> ep.writeMsg(new RmaMsg().buffer(overInject, null).rma(0, INJECT + 1, 0), Fi.FI_INJECT));
        return a.stream();
    }

    private static <M extends Msg> M iovs(M m, int n) {
        for (int i = 0; i < n; i++) {
            m.iov(i, buf(8), null);
        }
        m.iovCount(n);
        return m;
    }

    private static RmaMsg rmaIovs(int n) {
        RmaMsg m = new RmaMsg(8).buffer(buf(8 * n), null).rmaIovCount(n);
        for (int i = 0; i < n; i++) {
            m.rmaIov(i, 8L * i, 8, 0);
        }
        return m;
    }

    private static void bad(List<Arguments> a, String name, int errno, ToIntFunction<RecordingEndpoint> call) {
        a.add(Arguments.of(name, errno, call));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInput")
    void aBadInputAnswersItsErrnoAndPostsNothing(String name, int errno, ToIntFunction<RecordingEndpoint> call)
            throws FabricException {
        RecordingEndpoint ep = endpoint();
        assertEquals(errno, call.applyAsInt(ep), name);
        assertTrue(ep.calls.isEmpty(), "no funnel reached");
    }

    @Test
    void aMultiReceiveBufferAboveMaxMsgSizeIsExempt() throws FabricException {
        RecordingEndpoint ep = endpoint();
        assertEquals(0, ep.recvMsg(new Msg().buffer(buf(MAX + 1), null), Fi.FI_MULTI_RECV));
        ep.only();
    }

    @Test
    void anInjectAtInjectSizeAndASendAtMaxMsgSizePass() throws FabricException {
        RecordingEndpoint ep = endpoint();
        assertEquals(0, ep.inject(buf(INJECT), 0));
        assertEquals(0, ep.send(buf(MAX), null, 0, null));
        assertEquals(0, ep.sendMsg(iovs(new Msg(), IOVS), 0));
        assertEquals(0, ep.writeMsg(rmaIovs(RMA_IOVS), 0));
        assertEquals(4, ep.calls.size());
    }

    // =================================================================== registrations reach the funnels

    /** A registration only compared by identity: what the caller passed must reach the funnel. */
    private static MemoryRegion region() {
        return new MemoryRegion() {
            @Override public long key() { return 1; }
            @Override public long address() { return 0; }
            @Override public Object desc() { return this; }
            @Override public ByteBuffer buffer() { return null; }
            @Override public FidClass fidClass() { return FidClass.MR; }
            @Override public Object context() { return null; }
            @Override public void close() { }
        };
    }

    @Test
    void everyOneBufferCallPassesItsDescToTheFunnel() throws FabricException {
        RecordingEndpoint ep = endpoint();
        MemoryRegion d = region();
        ByteBuffer b = ByteBuffer.allocateDirect(8);
        assertEquals(0, ep.send(b, d, 1, null));
        assertEquals(0, ep.sendData(b, d, 5, 1, null));
        assertEquals(0, ep.tsend(b, d, 1, 3, null));
        assertEquals(0, ep.tsendData(b, d, 5, 1, 3, null));
        assertEquals(0, ep.recv(b, d, 1, null));
        assertEquals(0, ep.trecv(b, d, 1, 3, 0, null));
        assertEquals(0, ep.read(b, d, 1, 0, 1, null));
        assertEquals(0, ep.write(b, d, 1, 0, 1, null));
        assertEquals(0, ep.writeData(b, d, 5, 1, 0, 1, null));
        assertEquals(0, ep.fetchAtomic(1, b, d, 1, 0, 1, Fi.FI_SUM, null));
        assertEquals(0, ep.compareAtomic(1, 2, b, d, 1, 0, 1, null));
        assertEquals(11, ep.descs.size());
        for (MemoryRegion got : ep.descs) {
            assertSame(d, got, "a one-buffer call's desc reaches its funnel (verbs posts with its key)");
        }
    }

    @Test
    void aCompareOperationOnlyThroughCompareAtomic() throws FabricException {
        RecordingEndpoint ep = endpoint();
        ByteBuffer r = ByteBuffer.allocate(8);
        for (int op = Fi.FI_CSWAP; op <= Fi.FI_MSWAP; op++) {
            assertEquals(-Errno.EOPNOTSUPP, ep.atomic(1, 1, 0, 1, op, null), "atomic op " + op);
            assertEquals(-Errno.EOPNOTSUPP, ep.fetchAtomic(1, r, null, 1, 0, 1, op, null), "fetchAtomic op " + op);
        }
        assertEquals(0, ep.calls.size(), "nothing reached a funnel");
        assertEquals(0, ep.compareAtomic(1, 2, r, null, 1, 0, 1, null));
        assertEquals(Fi.FI_CSWAP, ep.only().op());
    }
}
