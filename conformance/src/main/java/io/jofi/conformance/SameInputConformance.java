package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.conformance.SameInputCases.Case;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Same input, same answer (docs/ERRORS.md): each bad input — an oversized inject, too many
 * iovs, a null buffer, a read-only landing buffer, a buffer over {@code max_msg_size}, an
 * unknown flag, a closed endpoint, an unbound CQ, an address not in the AV — given to every
 * call that takes it, answered with the one errno of the table on every provider, endpoint
 * type and progress mode.
 *
 * <p>One pair per input (side a makes the calls), with the provider's richest caps among
 * messages, tagged messages, RMA and atomics (a call whose capability the provider lacks is
 * skipped, naming it), small CQs and counters on both sides. Each call is one dynamic test and
 * is made more times than its CQ holds (a refusal that reserved CQ room would block the later
 * posts). The last dynamic test of each input checks that nothing was posted — no completion
 * and no counter change on either side, the peer received nothing — and that the endpoint
 * still works: the receive each side posted before the bad calls takes the first valid
 * message, and a receive posted now takes the next one (a refused receive left queued would
 * take it instead).
 */
public abstract class SameInputConformance extends EndpointTest {
    private static final int SMALL_CQ = 4;
    private static final long RMA_CAPS = Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ
            | Fi.FI_REMOTE_WRITE;
    private static final long ATOMIC_CAPS = Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ
            | Fi.FI_REMOTE_WRITE;

    /** What one input's calls work on: the pair, its caps, side b's region, the counters, the early receives. */
    private final class Bed {
        final EndpointPair p;
        final long caps;
        final MemoryRegion mr;
        final List<Counter> counters;
        final boolean canaryA;
        final boolean canaryB;
        /** The calls of side a towards side b. */
        SameInputCases toPeer;

        Bed(EndpointPair p, long caps, MemoryRegion mr, List<Counter> counters) {
            this.p = p;
            this.caps = caps;
            this.mr = mr;
            this.counters = counters;
            this.canaryB = postCanary(p.b());
            this.canaryA = postCanary(p.a());
        }

        boolean hasCqData() {
            return p.a().info().domainAttr().cqDataSize() > 0;
        }

        SameInputCases cases(long dest) throws FabricException {
            ByteBuffer out = pattern(64, 3);
            ByteBuffer in = zeroed(64);
            ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            return new SameInputCases(p.a().ep(), dest, mr, out, desc(out), in, desc(in), result, desc(result));
        }
    }

    /** The caps of the pair: messages plus whatever of tagged, RMA and atomics the provider offers together. */
    private long richestCaps() {
        long caps = Fi.FI_MSG;
        for (long extra : new long[] {Fi.FI_TAGGED, RMA_CAPS, ATOMIC_CAPS}) {
            if (!fx.find(caps | extra, 0, null).isEmpty()) {
                caps |= extra;
            }
        }
        return caps;
    }

    /** Opens the pair of one input; side a leaves the CQs of {@code unboundOnA} unbound. */
    private Bed open(long unboundOnA) throws FabricException {
        long caps = richestCaps();
        List<Counter> counters = new ArrayList<>();
        long rma = caps & (Fi.FI_READ | Fi.FI_WRITE);
        PairSpec spec = new PairSpec(caps).txCq(new CqAttr().format(CqFormat.TAGGED).size(SMALL_CQ))
                .rxCq(new CqAttr().format(CqFormat.TAGGED).size(SMALL_CQ)).unboundOnSideA(unboundOnA)
                .beforeEnable(side -> {
                    Counter msgs = fx.openCounter(new CounterAttr(), "msg-counter-" + side.label());
                    side.ep().bind(msgs, Fi.FI_SEND | Fi.FI_RECV);
                    counters.add(msgs);
                    if (rma != 0) {
                        Counter rmas = fx.openCounter(new CounterAttr(), "rma-counter-" + side.label());
                        side.ep().bind(rmas, rma);
                        counters.add(rmas);
                    }
                });
        EndpointPair p = fx.openPair(spec);
        MemoryRegion mr = null;
        if ((caps & (Fi.FI_RMA | Fi.FI_ATOMIC)) != 0) {
            ByteBuffer target = ByteBuffer.allocateDirect(4096).order(ByteOrder.nativeOrder());
            mr = fx.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, "same-input-target");
        }
        Bed bed = new Bed(p, caps, mr, counters);
        bed.toPeer = bed.cases(p.a().peer());
        return bed;
    }

    /** A receive for the first valid message, posted before any bad call; false without a receive CQ. */
    private boolean postCanary(PeerSide side) {
        if (side.rxCq() == null) {
            return false;
        }
        ByteBuffer in = zeroed(64);
        post(() -> side.ep().recv(in, null, ANY, "canary-" + side.label()), "the early receive on " + side);
        return true;
    }

    // =================================================================== the dynamic tests

    /** One dynamic test per case: refused with {@code -errno}, as often as the CQ holds and once more. */
    private List<DynamicTest> refusals(Bed bed, int errno, List<Case> cases) {
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : cases) {
            tests.add(DynamicTest.dynamicTest(c.name() + " → -" + Errno.name(errno), () -> {
                Assumptions.assumeTrue((bed.caps & c.needs()) == c.needs(), "provider " + fx.provider() + " lacks "
                        + Caps.names(c.needs() & ~bed.caps) + " on " + bed.p.type().fiName());
                Assumptions.assumeTrue(!c.data() || bed.hasCqData(), "provider " + fx.provider()
                        + " offers no remote CQ data (cq_data_size 0)");
                CompletionQueue cq = c.transmit() ? bed.p.a().txCq() : bed.p.a().rxCq();
                long n = (cq == null ? SMALL_CQ : cq.attr().size()) + 1;
                for (long i = 0; i < n; i++) {
                    int rc = c.call().getAsInt();
                    if (rc != -errno) {
                        fail(fx.provider() + " " + bed.p.type().fiName() + ": " + c.name() + " must answer -"
                                + Errno.name(errno) + " but answered " + describe(rc) + " (attempt " + (i + 1) + ")");
                    }
                }
            }));
        }
        return tests;
    }

    private static String describe(int rc) {
        return rc == 0 ? "0 (accepted)" : rc < 0 ? "-" + Errno.name(-rc) : String.valueOf(rc);
    }

    /** The last dynamic test: nothing was posted, and the endpoint still works. */
    private DynamicTest nothingPostedAndStillWorks(Bed bed, String input) {
        return DynamicTest.dynamicTest("after " + input + ": nothing posted, the endpoint still works", () -> {
            assertNothingHappened(bed, input);
            exchangeStillWorks(bed, input);
        });
    }

    /** After driving progress: every CQ of both sides empty, every counter 0. */
    private void assertNothingHappened(Bed bed, String after) {
        await().settle();
        CqEntry[] one = {new CqEntry()};
        for (PeerSide s : new PeerSide[] {bed.p.a(), bed.p.b()}) {
            if (s.txCq() != null) {
                assertEquals(-Errno.EAGAIN, s.txCq().read(one, 1), s + "'s transmit CQ after " + after);
            }
            if (s.rxCq() != null) {
                assertEquals(-Errno.EAGAIN, s.rxCq().read(one, 1), s + "'s receive CQ after " + after
                        + " (the peer received something)");
            }
        }
        for (Counter c : bed.counters) {
            assertEquals(0, c.read(), c.context() + " after " + after);
            assertEquals(0, c.readErr(), c.context() + "'s errors after " + after);
        }
    }

    /**
     * a → b meets b's early receive; b → a meets a's early receive, then a receive a posts now
     * (not a refused one). Without a transmit CQ side a sends by inject; without a receive CQ
     * it receives nothing.
     */
    private void exchangeStillWorks(Bed bed, String after) throws FabricException {
        PeerSide a = bed.p.a();
        PeerSide b = bed.p.b();
        if (a.txCq() != null) {
            ByteBuffer out = pattern(40, 17);
            MemoryRegion d = desc(out);
            post(() -> a.ep().send(out, d, a.peer(), "valid-a"), "a valid send after " + after);
            assertEquals("valid-a", txCompletion(a, "the valid send after " + after).context());
        } else {
            post(() -> a.ep().inject(pattern(40, 17), a.peer()), "a valid inject (no transmit CQ) after " + after);
        }
        CqEntry rx = rxCompletion(b, "side a's valid message after " + after);
        assertEquals("canary-b", rx.context(), "side a's message meets b's receive posted before " + after);
        assertEquals(40, rx.len(), "len of side a's valid message");
        if (!bed.canaryA) {
            return;
        }
        sendFromB(bed, 24, 5, "b's first valid message after " + after);
        assertEquals("canary-a", rxCompletion(a, "b's first valid message after " + after).context(),
                "b's first message meets a's receive posted before " + after);
        ByteBuffer in = zeroed(32);
        post(() -> a.ep().recv(in, null, ANY, "fresh-a"), "a valid recv after " + after);
        sendFromB(bed, 16, 9, "b's second valid message after " + after);
        CqEntry fresh = rxCompletion(a, "b's second valid message after " + after);
        assertSame("fresh-a", fresh.context(), "b's second message meets the receive posted now, not a refused one");
        assertPattern(in, 0, 16, 9, "b's second valid message");
        if ((bed.caps & Fi.FI_TAGGED) != 0) {
            ByteBuffer tin = zeroed(32);
            post(() -> a.ep().trecv(tin, null, ANY, SameInputCases.TAG, 0, "fresh-ta"), "a valid trecv after " + after);
            post(() -> b.ep().tsend(pattern(12, 4), null, b.peer(), SameInputCases.TAG, "valid-tb"),
                    "b's valid tsend after " + after);
            txCompletion(b, "b's valid tsend");
            assertSame("fresh-ta", rxCompletion(a, "b's tagged message after " + after).context(),
                    "b's tagged message meets the trecv posted now, not a refused one");
        }
    }

    private void sendFromB(Bed bed, int n, int seed, String what) throws FabricException {
        PeerSide b = bed.p.b();
        ByteBuffer out = pattern(n, seed);
        MemoryRegion d = desc(out);
        post(() -> b.ep().send(out, d, b.peer(), "valid-b"), what);
        txCompletion(b, what);
    }

    /** The dynamic tests of one input made on a fresh pair: the refusals, then the after-check. */
    private List<DynamicTest> input(String input, int errno, Function<Bed, List<Case>> calls) throws FabricException {
        Bed bed = open(0);
        List<DynamicTest> tests = refusals(bed, errno, calls.apply(bed));
        tests.add(nothingPostedAndStillWorks(bed, input));
        return tests;
    }

    // =================================================================== the inputs

    /** An inject above {@code inject_size}: {@code -EMSGSIZE} (docs/ERRORS.md). */
    @TestFactory
    List<DynamicTest> oversizedInjectIsEmsgsize() throws FabricException {
        return input("oversized injects", Errno.EMSGSIZE,
                bed -> bed.toPeer.oversizedInject(bed.p.a().info().txAttr().injectSize()));
    }

    /** One iov (or RMA segment) more than the limit the provider advertises: {@code -EINVAL}. */
    @TestFactory
    List<DynamicTest> tooManyIovsIsEinval() throws FabricException {
        List<DynamicTest> tests = input("too many iovs", Errno.EINVAL, bed -> bed.toPeer.tooManyIovs(
                (int) Math.max(bed.p.a().info().txAttr().iovLimit(), bed.p.a().info().rxAttr().iovLimit()),
                (int) bed.p.a().info().txAttr().rmaIovLimit()));
        Info info = fx.require(richestCaps());
        tests.add(0, DynamicTest.dynamicTest("iov_limit and rma_iov_limit are advertised", () -> {
            assertTrue(info.txAttr().iovLimit() >= 1 && info.rxAttr().iovLimit() >= 1, "iov_limit must be at"
                    + " least 1 (tx " + info.txAttr().iovLimit() + ", rx " + info.rxAttr().iovLimit() + ")");
            // an RMA provider says how many remote segments an fi_*msg takes (fi_endpoint(3)
            // rma_iov_limit): without it "too many" is undefined, and hints naming one never match
            assertTrue((info.caps() & Fi.FI_RMA) == 0 || info.txAttr().rmaIovLimit() >= 1, "provider "
                    + fx.provider() + " offers FI_RMA with rma_iov_limit " + info.txAttr().rmaIovLimit());
        }));
        return tests;
    }

    /** A null buffer, message, iov or atomic result: {@code -EINVAL}. */
    @TestFactory
    List<DynamicTest> nullBufferIsEinval() throws FabricException {
        return input("null buffers", Errno.EINVAL, bed -> bed.toPeer.nullBuffer());
    }

    /** A read-only buffer the provider would write into: {@code -EINVAL}. */
    @TestFactory
    List<DynamicTest> readOnlyLandingBufferIsEinval() throws FabricException {
        return input("read-only landing buffers", Errno.EINVAL, bed -> bed.toPeer.readOnlyTarget());
    }

    /** A buffer one byte above {@code max_msg_size}, sends and receives alike: {@code -EMSGSIZE}. */
    @TestFactory
    List<DynamicTest> overMaxMsgSizeIsEmsgsize() throws FabricException {
        long max = fx.require(richestCaps()).epAttr().maxMsgSize();
        Assumptions.assumeTrue(max < Integer.MAX_VALUE, "max_msg_size " + max + " is beyond a Java buffer");
        return input("buffers over max_msg_size", Errno.EMSGSIZE, bed -> bed.toPeer.overMaxMsgSize(
                bed.p.a().info().epAttr().maxMsgSize()));
    }

    /** A flag bit no call takes, on every {@code *Msg} call: {@code -EBADFLAGS}. */
    @TestFactory
    List<DynamicTest> unknownFlagIsEbadflags() throws FabricException {
        return input("unknown flags", Errno.EBADFLAGS, bed -> bed.toPeer.unknownFlag());
    }

    /**
     * Every call on a closed endpoint: {@code -EBADF} (AbstractFid's data-path state). The
     * closed endpoint cannot work afterwards; what is checked instead is that its CQs and
     * counters saw nothing and that the peer received no message (a connected peer may see
     * the connection end: an error completion, never a message).
     */
    @TestFactory
    List<DynamicTest> closedEndpointIsEbadf() throws FabricException {
        Bed bed = open(0);
        fx.close(bed.p.a().ep());
        List<Case> all = new ArrayList<>(bed.toPeer.transmits(true));
        all.addAll(bed.toPeer.receives());
        List<DynamicTest> tests = refusals(bed, Errno.EBADF, all);
        tests.add(DynamicTest.dynamicTest("after calls on a closed endpoint: nothing posted, nothing received", () -> {
            await().settle();
            CqEntry[] one = {new CqEntry()};
            assertEquals(-Errno.EAGAIN, bed.p.a().txCq().read(one, 1), "the closed endpoint's transmit CQ");
            assertEquals(-Errno.EAGAIN, bed.p.a().rxCq().read(one, 1), "the closed endpoint's receive CQ");
            int rc = bed.p.b().rxCq().read(one, 1);
            assertTrue(rc == -Errno.EAGAIN || rc == -Errno.EAVAIL, "the peer received a message from a closed"
                    + " endpoint (rc " + rc + ")");
            for (Counter c : bed.counters) {
                assertEquals(0, c.read(), c.context() + " after calls on a closed endpoint");
            }
        }));
        return tests;
    }

    /**
     * Side a without a transmit CQ: every transmit that reports a completion is
     * {@code -ENOCQ}, or enable already refuses the endpoint with {@code ENOCQ} (fi_endpoint(3)
     * allows either). The one-buffer injects report nothing and need no CQ.
     */
    @TestFactory
    List<DynamicTest> unboundTransmitCqIsEnocq() throws FabricException {
        return unbound(Fi.FI_TRANSMIT, "no transmit CQ", bed -> bed.toPeer.transmits(false));
    }

    /** Side a without a receive CQ: every receive is {@code -ENOCQ}, or enable refuses with {@code ENOCQ}. */
    @TestFactory
    List<DynamicTest> unboundReceiveCqIsEnocq() throws FabricException {
        return unbound(Fi.FI_RECV, "no receive CQ", bed -> bed.toPeer.receives());
    }

    private List<DynamicTest> unbound(long role, String input, Function<Bed, List<Case>> calls)
            throws FabricException {
        Bed bed;
        try {
            bed = open(role);
        } catch (FabricException e) {
            return List.of(DynamicTest.dynamicTest("enable without a CQ → ENOCQ", () -> assertEquals(Errno.ENOCQ,
                    e.errno(), "enable of an endpoint with " + input + ": " + e)));
        }
        List<DynamicTest> tests = refusals(bed, Errno.ENOCQ, calls.apply(bed));
        tests.add(nothingPostedAndStillWorks(bed, input));
        return tests;
    }

    /**
     * RDM: every transmit to an fi_addr never inserted in the AV is {@code -EINVAL}. Not
     * applicable to MSG endpoints: a connected endpoint ignores the destination address
     * (fi_msg(3): "For connected endpoints, the dest_addr ... is ignored"), so no address can
     * be unknown there.
     */
    @TestFactory
    List<DynamicTest> unknownAddressIsEinval() throws FabricException {
        Bed bed = open(0);
        if (bed.p.type() == EpType.MSG) {
            return List.of(DynamicTest.dynamicTest("not applicable on MSG", () -> Assumptions.assumeTrue(false,
                    "an MSG endpoint is connected and ignores dest_addr (fi_msg(3)): no address is unknown")));
        }
        long unknown = 4242;
        while (bed.p.a().av().lookup(unknown) != null) {
            unknown++;
        }
        List<DynamicTest> tests = refusals(bed, Errno.EINVAL, bed.cases(unknown).transmits(true));
        tests.add(nothingPostedAndStillWorks(bed, "transmits to an unknown address"));
        return tests;
    }
}
