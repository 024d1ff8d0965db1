package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.CqWaitCond;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.RmaMsg;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import io.jofi.WaitSet;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Completion queues (fi_cq(3)) as far as a domain alone can exercise them: empty reads (R1),
 * the error queue when empty (R2), sizes (R6), blocking reads with every wait object, signal,
 * interrupts and timeouts (R4), the threshold condition without completions (R5), wait
 * objects through {@code getWait}, and {@code EBUSY} on close while an endpoint is bound (R9,
 * which needs an endpoint). Completions produced by real operations are tested in
 * {@link MsgConformance} and the other endpoint suites; here only what a CQ's own rules need
 * from them: an overrun CQ takes no more posts and reports no more completions (R6), and
 * strerror describes an error entry that carries no provider error number (R3).
 */
public abstract class CqConformance extends EndpointTest {
    private static final Duration AT_ONCE = Duration.ofSeconds(10);

    private CompletionQueue open(CqAttr attr) throws FabricException {
        return fx.openCq(attr, "cq-under-test");
    }

    private CompletionQueue openWith(WaitObj waitObj) throws FabricException {
        CqAttr attr = new CqAttr().waitObj(waitObj);
        if (waitObj == WaitObj.SET) {
            attr.waitSet(fx.openWaitSet(new WaitAttr().waitObj(WaitObj.UNSPEC)));
        }
        return open(attr);
    }

    private static CqEntry[] entries(int n) {
        CqEntry[] buf = new CqEntry[n];
        for (int i = 0; i < n; i++) {
            buf[i] = new CqEntry();
        }
        return buf;
    }

    // ------------------------------------------------------------------ R1, R2: empty reads

    /** R1: a non-blocking read of an empty CQ returns -EAGAIN, in every format. */
    @ParameterizedTest
    @EnumSource(CqFormat.class)
    void emptyReadReturnsEagain(CqFormat format) throws FabricException {
        CompletionQueue cq = open(new CqAttr().format(format));
        CqEntry[] buf = entries(4);
        assertEquals(-Errno.EAGAIN, cq.read(buf, 4), "read of an empty CQ (R1)");
        assertEquals(-Errno.EAGAIN, cq.read(buf, 1), "read of an empty CQ, count 1 (R1)");
    }

    /** R1: read(buf, 0) drives progress and returns -EAGAIN when nothing is queued. */
    @Test
    void zeroCountReadOfEmptyQueueReturnsEagain() throws FabricException {
        CompletionQueue cq = open(new CqAttr());
        assertEquals(-Errno.EAGAIN, cq.read(new CqEntry[0], 0), "read(buf, 0) of an empty CQ (R1)");
        assertEquals(-Errno.EAGAIN, cq.read(entries(2), 0), "read(buf, 0) of an empty CQ (R1)");
    }

    /** R1/R10: readFrom of an empty CQ returns -EAGAIN too. */
    @Test
    void emptyReadFromReturnsEagain() throws FabricException {
        CompletionQueue cq = open(new CqAttr().format(CqFormat.TAGGED));
        long[] src = new long[3];
        assertEquals(-Errno.EAGAIN, cq.readFrom(entries(3), 3, src), "readFrom of an empty CQ (R1)");
    }

    /** R2: readErr with no error queued returns -EAGAIN (fi_cq_readerr is non-blocking). */
    @Test
    void readErrOfEmptyQueueReturnsEagain() throws FabricException {
        CompletionQueue cq = open(new CqAttr());
        assertEquals(-Errno.EAGAIN, cq.readErr(new CqErrEntry(), 0), "readErr with nothing queued (R2)");
        assertEquals(-Errno.EAGAIN, cq.readErr(new CqErrEntry().errData(new byte[16]), 0),
                "readErr with a caller err_data buffer and nothing queued (R2)");
    }

    /**
     * Bad input is refused with -EINVAL and no harm: a count larger than the buffer, a
     * negative count, and (fi_cq_readfrom) fewer source-address slots than count.
     */
    @Test
    void badReadArgumentsAreEinval() throws FabricException {
        CompletionQueue cq = open(new CqAttr().format(CqFormat.TAGGED));
        assertEquals(-Errno.EINVAL, cq.read(entries(2), 3), "read with count > buf.length");
        assertEquals(-Errno.EINVAL, cq.read(entries(2), -1), "read with a negative count");
        assertEquals(-Errno.EINVAL, cq.readFrom(entries(4), 4, new long[2]),
                "readFrom with fewer srcAddr slots than count (fi_cq(3): they must be the same)");
        assertEquals(-Errno.EAGAIN, cq.read(entries(2), 2), "the CQ is unharmed by the refused calls");
    }

    // ------------------------------------------------------------------ R6: sizes

    /** R6: size 0 picks the provider default, 1024. */
    @Test
    void sizeZeroPicksTheDefault() throws FabricException {
        CompletionQueue cq = open(new CqAttr().size(0));
        assertEquals(1024, cq.attr().size(), "attr().size() of a CQ opened with size 0 (R6)");
    }

    /** R6 / fi_cq(3) "minimum size": the capacity allocated is at least the size asked. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 7, 100, 1000, 4096, 65536})
    void capacityIsAtLeastTheSizeAsked(long size) throws FabricException {
        CompletionQueue cq = open(new CqAttr().size(size));
        assertTrue(cq.attr().size() >= size, "attr().size() " + cq.attr().size() + " < asked " + size + " (R6)");
        assertEquals(-Errno.EAGAIN, cq.read(entries(1), 1), "a fresh CQ is empty");
    }

    // ------------------------------------------------------------------ attributes, identity

    /** attr() reports the CQ as opened; an UNSPEC format is replaced by the provider's choice. */
    @Test
    void attrReportsWhatWasOpened() throws FabricException {
        for (CqFormat f : new CqFormat[] {CqFormat.CONTEXT, CqFormat.MSG, CqFormat.DATA, CqFormat.TAGGED}) {
            CompletionQueue cq = open(new CqAttr().format(f).size(64).waitObj(WaitObj.NONE));
            CqAttr a = cq.attr();
            assertEquals(f, a.format(), "attr().format()");
            assertEquals(WaitObj.NONE, a.waitObj(), "attr().waitObj()");
        }
        CompletionQueue unspec = open(new CqAttr().format(CqFormat.UNSPEC));
        assertNotEquals(CqFormat.UNSPEC, unspec.attr().format(),
                "fi_cq(3): an UNSPEC format means a provider-selected default, which attr() reports");
        CompletionQueue threshold = open(new CqAttr().waitObj(WaitObj.UNSPEC).waitCond(CqWaitCond.THRESHOLD));
        assertEquals(CqWaitCond.THRESHOLD, threshold.attr().waitCond(), "attr().waitCond()");
        CompletionQueue ignored = open(new CqAttr().waitObj(WaitObj.NONE).waitCond(CqWaitCond.THRESHOLD));
        assertEquals(-Errno.EAGAIN, ignored.read(entries(1), 1),
                "fi_cq(3): wait_cond is ignored with FI_WAIT_NONE; the CQ opens and reads");
        CompletionQueue affinity = open(new CqAttr().flags(Fi.FI_AFFINITY).signalingVector(0));
        assertEquals(-Errno.EAGAIN, affinity.read(entries(1), 1),
                "fi_cq(3): signaling_vector with FI_AFFINITY is a hint; the CQ opens and reads");
    }

    /** The CQ's context is the very object given to openCq, and its class is CQ. */
    @Test
    void contextIsTheOneGiven() throws FabricException {
        Object ctx = new Object();
        CompletionQueue cq = fx.openCq(new CqAttr(), ctx);
        assertSame(ctx, cq.context(), "cq.context() must be the object passed to openCq");
        assertEquals(FidClass.CQ, cq.fidClass());
    }

    /** fi_cq(3): FI_WAIT_SET requires the wait_set field to reference a wait set. */
    @Test
    void waitSetWithoutSetIsRefused() {
        FabricException e = assertThrows(FabricException.class,
                () -> open(new CqAttr().waitObj(WaitObj.SET)),
                "openCq with WaitObj.SET and no wait set");
        assertEquals(Errno.EINVAL, e.errno(), "errno of openCq(SET, no wait set): " + e);
    }

    /** R3: strerror turns provider error information into a sentence. */
    @Test
    void strerrorGivesASentence() throws FabricException {
        CompletionQueue cq = open(new CqAttr());
        String s = cq.strerror(0, null);
        assertNotNull(s, "strerror(0, null)");
        assertFalse(s.isBlank(), "strerror(0, null) must say something");
        String t = cq.strerror(12345, new byte[] {1, 2, 3});
        assertNotNull(t, "strerror(12345, data)");
        assertFalse(t.isBlank(), "strerror(12345, data) must say something");
    }

    // ------------------------------------------------------------------ R4: blocking reads

    /** R4: sread/sreadFrom on a CQ with WaitObj.NONE or SET return -ENOSYS at once, never hang. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"NONE", "SET"})
    void blockingReadWithoutUsableWaitObjectIsEnosys(WaitObj waitObj) throws FabricException {
        CompletionQueue cq = openWith(waitObj);
        CqEntry[] buf = entries(1);
        int rc = assertTimeoutPreemptively(AT_ONCE, () -> cq.sread(buf, 1, 0, -1),
                "sread(timeout -1) on a " + waitObj + " CQ must return at once (R4)");
        assertEquals(-Errno.ENOSYS, rc, "sread on a " + waitObj + " CQ (R4)");
        int rc2 = assertTimeoutPreemptively(AT_ONCE, () -> cq.sreadFrom(buf, 1, new long[1], 0, -1),
                "sreadFrom(timeout -1) on a " + waitObj + " CQ must return at once (R4)");
        assertEquals(-Errno.ENOSYS, rc2, "sreadFrom on a " + waitObj + " CQ (R4)");
    }

    /** R4 / fi_cq_signal: signal on a CQ without a wait object returns -ENOSYS. */
    @Test
    void signalWithoutWaitObjectIsEnosys() throws FabricException {
        CompletionQueue cq = openWith(WaitObj.NONE);
        assertEquals(-Errno.ENOSYS, cq.signal(), "signal() on a WaitObj.NONE CQ (R4)");
    }

    /** R4: a timeout with nothing to read returns -EAGAIN (sread and sreadFrom). */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void blockingReadTimesOutWithEagain(WaitObj waitObj) throws FabricException {
        CompletionQueue cq = openWith(waitObj);
        CqEntry[] buf = entries(2);
        assertEquals(-Errno.EAGAIN, cq.sread(buf, 2, 0, 20), "sread timing out on an empty " + waitObj + " CQ (R4)");
        assertEquals(-Errno.EAGAIN, cq.sreadFrom(buf, 2, new long[2], 0, 20),
                "sreadFrom timing out on an empty " + waitObj + " CQ (R4)");
        assertEquals(-Errno.EAGAIN, cq.sread(buf, 2, 0, 0), "sread with timeout 0 on an empty CQ (R4)");
    }

    /** R4 / fi_cq_signal: signal wakes a reader blocked forever, which returns -EAGAIN. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void signalWakesABlockedReader(WaitObj waitObj) throws FabricException {
        CompletionQueue cq = openWith(waitObj);
        BlockedCall reader = BlockedCall.start("conformance-sread", () -> cq.sread(entries(1), 1, 0, -1));
        assertEquals(0, cq.signal(), "signal() on a " + waitObj + " CQ");
        assertEquals(-Errno.EAGAIN, reader.join(await(), "sread(timeout -1) to return after signal() (R4)"),
                "sread woken by signal() with nothing to read (R4)");
    }

    /** R4: a signal while nobody waits is remembered: the next blocking read returns -EAGAIN at once. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void signalWhileNobodyWaitsIsRemembered(WaitObj waitObj) throws FabricException {
        CompletionQueue cq = openWith(waitObj);
        assertEquals(0, cq.signal(), "signal() on a " + waitObj + " CQ");
        int rc = assertTimeoutPreemptively(AT_ONCE, () -> cq.sread(entries(1), 1, 0, -1),
                "sread(timeout -1) after a remembered signal must return at once (R4)");
        assertEquals(-Errno.EAGAIN, rc, "sread after a remembered signal (R4)");
    }

    /**
     * R4 / fi_cq(3) "signaled by some external source": interrupting the waiting thread
     * returns -EAGAIN, even with an infinite timeout, and keeps its interrupt status.
     */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void interruptedReaderReturnsEagainAndKeepsStatus(WaitObj waitObj) throws FabricException {
        CompletionQueue cq = openWith(waitObj);
        BlockedCall reader = BlockedCall.start("conformance-sread", () -> cq.sread(entries(1), 1, 0, -1));
        reader.interrupt();
        assertEquals(-Errno.EAGAIN, reader.join(await(), "sread(timeout -1) to return after an interrupt (R4)"),
                "sread of an interrupted thread (R4)");
        assertTrue(reader.interruptedAfter(), "the interrupt status must be kept (R4)");
    }

    /** R5: with THRESHOLD and nothing queued, sread(cond = n) returns -EAGAIN on timeout and on signal. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void thresholdReadWithoutCompletionsEndsOnTimeoutOrSignal(WaitObj waitObj) throws FabricException {
        CompletionQueue cq = open(new CqAttr().waitObj(waitObj).waitCond(CqWaitCond.THRESHOLD));
        assertEquals(-Errno.EAGAIN, cq.sread(entries(4), 4, 3, 20), "threshold sread timing out (R5)");
        BlockedCall reader = BlockedCall.start("conformance-sread", () -> cq.sread(entries(4), 4, 3, -1));
        assertEquals(0, cq.signal(), "signal()");
        assertEquals(-Errno.EAGAIN, reader.join(await(), "threshold sread to return after signal() (R5)"),
                "threshold sread woken by signal (R5)");
    }

    // ------------------------------------------------------------------ wait objects

    /**
     * fi_control(FI_GETWAIT): FD gives a SelectableChannel, MUTEX_COND a lock and condition;
     * NONE, UNSPEC, YIELD and SET have nothing to export and throw ENOSYS.
     */
    @ParameterizedTest
    @EnumSource(WaitObj.class)
    void getWaitMatchesTheWaitObject(WaitObj waitObj) throws FabricException {
        CompletionQueue cq = openWith(waitObj);
        switch (waitObj) {
            case FD: {
                WaitObject w = cq.getWait();
                WaitObject.Fd fd = assertInstanceOf(WaitObject.Fd.class, w, "getWait() of an FD CQ");
                assertNotNull(fd.channel(), "the FD wait object's channel");
                break;
            }
            case MUTEX_COND: {
                WaitObject w = cq.getWait();
                WaitObject.MutexCond mc = assertInstanceOf(WaitObject.MutexCond.class, w, "getWait() of a MUTEX_COND CQ");
                assertNotNull(mc.mutex(), "the MUTEX_COND wait object's lock");
                assertNotNull(mc.cond(), "the MUTEX_COND wait object's condition");
                break;
            }
            default: {
                FabricException e = assertThrows(FabricException.class, cq::getWait, "getWait() of a " + waitObj + " CQ");
                assertEquals(Errno.ENOSYS, e.errno(), "getWait() of a " + waitObj + " CQ: " + e);
            }
        }
    }

    /**
     * FI_WAIT_FD: after fi_trywait says it is safe to block (0), an empty CQ's channel is not
     * readable; fi_trywait of a CQ without a wait object is -EINVAL.
     */
    @Test
    void emptyFdQueueIsNotReadableAfterTryWait() throws FabricException {
        CompletionQueue cq = openWith(WaitObj.FD);
        WaitObject.Fd fd = (WaitObject.Fd) cq.getWait();
        assertEquals(0, fx.fabric().tryWait(cq), "tryWait of an empty FD CQ");
        try (FdReadiness r = new FdReadiness(fd.channel())) {
            assertFalse(r.readableNow(), "an empty FD CQ's channel must not be readable after tryWait returned 0");
        }
        CompletionQueue none = openWith(WaitObj.NONE);
        assertEquals(-Errno.EINVAL, fx.fabric().tryWait(none), "tryWait of a CQ without a wait object");
    }

    /** fi_trywait: 0 for an empty CQ with a MUTEX_COND wait object. */
    @Test
    void tryWaitOfEmptyMutexCondQueueIsZero() throws FabricException {
        CompletionQueue cq = openWith(WaitObj.MUTEX_COND);
        assertEquals(0, fx.fabric().tryWait(cq), "tryWait of an empty MUTEX_COND CQ");
    }

    // ------------------------------------------------------------------ R9: close

    /**
     * R9 / fi_cq(3) fi_close: closing a CQ an endpoint is bound to throws EBUSY and changes
     * nothing; once the endpoint is closed the CQ closes.
     */
    @Test
    void closeWhileBoundToAnEndpointIsEbusy() throws FabricException {
        Info info = fx.require(0);
        CompletionQueue cq = open(new CqAttr());
        Endpoint ep = fx.openEndpoint(info, "ep");
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        FabricException e = assertThrows(FabricException.class, cq::close, "closing a CQ bound to an endpoint");
        assertEquals(Errno.EBUSY, e.errno(), "closing a bound CQ (R9): " + e);
        assertEquals(-Errno.EAGAIN, cq.read(entries(1), 1), "the CQ still works after the refused close (R9)");
        fx.close(ep);
        fx.close(cq);
    }

    // ------------------------------------------------------------------ R6: an overrun CQ is done

    /**
     * R6 / fi_cq(3): "overrun completion queues are considered fatal and may not be used to
     * report additional completions". After unsolicited completions (writeData at the target)
     * overran the target's CQ and its valid entries were read, a post whose completion would go
     * to it returns {@code -EOVERRUN} (permanent: retrying cannot help, unlike {@code -EAGAIN}),
     * a later unsolicited completion is not added although the reads freed room, every read
     * answers {@code -EOVERRUN}, and readErr's EOVERRUN entry is described by strerror.
     */
    @Test
    void overrunCqTakesNoMorePostsAndReportsNoMoreCompletions() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(RmaConformance.RMA_CAPS | Fi.FI_MSG)
                .rxCq(new CqAttr().format(CqFormat.DATA).size(2)));
        requireCqData(p);
        Assumptions.assumeFalse(ConformanceFixture.consumesReceiveForCqData(p.b().info()), "provider "
                + fx.provider() + " needs FI_RX_CQ_DATA: remote CQ data consumes a posted receive, whose"
                + " completion has its room reserved (R6), so no unsolicited completion can overrun a CQ");
        ByteBuffer target = zeroed(4096);
        MemoryRegion mr = fx.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, "target-mr");
        CompletionQueue cq = p.b().rxCq();
        long room = cq.attr().size();
        for (long i = 0; i <= room; i++) {
            writeData(p, mr, i);
        }
        CqEntry[] buf = entries(1);
        for (long i = 0; i < room; i++) {
            assertEquals(1, await().anyRead(cq, buf, "valid entry " + i + " of the overrun CQ"),
                    "valid entry " + i + " of an overrun CQ is still read (R6)");
        }
        assertEquals(-Errno.EOVERRUN, cq.read(buf, 1), "after the valid entries: -EOVERRUN (R6)");

        int rc = p.b().ep().recv(zeroed(16), null, ANY, "recv-after-overrun");
        assertEquals(-Errno.EOVERRUN, rc, "a receive whose completion would go to an overrun CQ must be refused"
                + " with -EOVERRUN (fi_cq(3): no additional completions), got " + rc + " (" + Errno.strerror(-rc) + ")");

        writeData(p, mr, room + 1); // delivered: the target has handled it when the initiator completes
        for (int i = 0; i < 3; i++) {
            fx.driveProgress();
            assertEquals(-Errno.EOVERRUN, cq.read(buf, 1), "an overrun CQ reports no completion that came"
                    + " after the overrun (fi_cq(3)), although the reads made room");
        }
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0), "readErr of an overrun CQ");
        assertEquals(Errno.EOVERRUN, e.err(), "err (R6)");
        assertDescribesErr(cq.strerror(e.provErrno(), e.errData()), e.err(), e.provErrno(), "the overrun entry");
    }

    /** An RMA write with remote CQ data {@code i} from a to b, delivered (its completion awaited). */
    private void writeData(EndpointPair p, MemoryRegion mr, long i) throws FabricException {
        ByteBuffer src = pattern(8, (int) i);
        RmaMsg m = new RmaMsg();
        m.buffer(src, desc(src)).addr(p.a().peer()).context("wd" + i).data(i);
        m.rma(mr.address() + 16 * i, 8, mr.key());
        post(() -> p.a().ep().writeMsg(m, Fi.FI_REMOTE_CQ_DATA | Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION),
                "writeMsg " + i);
        txCompletion(p.a(), "delivery of writeData " + i);
    }

    // ------------------------------------------------------------------ R3: strerror of an entry

    /**
     * R3: an error entry that carries no provider error number (provErrno 0: FI_SOURCE_ERR's
     * EADDRNOTAVAIL with the sender's address as errData) is described by its err, never as
     * "Success" (what the text of errno 0 would say).
     */
    @Test
    void strerrorOfAnEntryWithoutProviderErrnoDescribesItsErr() throws FabricException {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR).type(EpType.RDM));
        assertEquals(0, p.b().av().remove(new long[] {p.b().peer()}, 0), "removing the sender from the receiver's AV");
        post(() -> p.b().ep().recv(zeroed(16), null, ANY, "r"), "recv");
        post(() -> p.a().ep().send(pattern(6, 40), null, p.a().peer(), "s"), "send");
        CqErrEntry e = rxError(p.b(), "the EADDRNOTAVAIL completion");
        assertEquals(Errno.EADDRNOTAVAIL, e.err(), "err with FI_SOURCE_ERR and an unknown sender (R10): " + e);
        assertDescribesErr(p.b().rxCq().strerror(e.provErrno(), e.errData()), e.err(), e.provErrno(),
                "the FI_SOURCE_ERR entry");
    }

    /**
     * What strerror must say of an entry: something, never errno 0's "Success", and — when the
     * provider had no number of its own (provErrno 0) — the text of the entry's err.
     */
    static void assertDescribesErr(String s, int err, int provErrno, String what) {
        assertNotNull(s, "strerror of " + what);
        assertFalse(s.isBlank(), "strerror of " + what + " must say something (R3)");
        assertFalse(s.contains(Errno.strerror(0)), "strerror of " + what + " (err " + Errno.name(err)
                + ", provErrno " + provErrno + ") must describe the error, not say \"" + Errno.strerror(0)
                + "\": " + s);
        if (provErrno == 0) {
            assertTrue(s.contains(Errno.strerror(err)), "strerror of " + what + " without a provider error number"
                    + " must describe its err " + Errno.name(err) + " (\"" + Errno.strerror(err) + "\"): " + s);
        }
    }
}
