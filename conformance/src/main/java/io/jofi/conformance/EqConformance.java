package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Event queues (fi_eq(3)) through what any fabric offers: {@code openEq} and
 * {@code EventQueue.write} on a queue opened with {@code FI_WRITE}. Covers empty reads (R1),
 * the error queue (R2/R3 through the overrun error entry), sizes and overrun (R6, R7),
 * fi_eq_write and FI_PEEK (R8), blocking reads with every wait object (R4), wait objects and
 * fi_trywait, and EBUSY on close while an AV is bound (R9).
 */
public abstract class EqConformance extends ProviderTest {
    /** An application's own event code (fi_eq(3) leaves codes above the provider's to users). */
    static final int APP_EVENT = 0x7e57;
    private static final Duration AT_ONCE = Duration.ofSeconds(10);

    private EventQueue open(EqAttr attr) throws FabricException {
        return fx.openEq(attr, "eq-under-test");
    }

    private EventQueue writable(WaitObj waitObj) throws FabricException {
        EqAttr attr = new EqAttr().flags(Fi.FI_WRITE).waitObj(waitObj);
        if (waitObj == WaitObj.SET) {
            attr.waitSet(fx.openWaitSet(new WaitAttr().waitObj(WaitObj.UNSPEC)));
        }
        return open(attr);
    }

    private static EqEntry event(int code, Object ctx, long data) {
        return new EqEntry().event(code).context(ctx).data(data);
    }

    // ------------------------------------------------------------------ R1, R2

    /** R1: a read of an empty EQ returns -EAGAIN, with and without FI_PEEK. */
    @Test
    void emptyReadReturnsEagain() throws FabricException {
        EventQueue eq = open(new EqAttr());
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0), "read of an empty EQ (R1)");
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), Fi.FI_PEEK), "peek of an empty EQ (R1)");
    }

    /** R2 / fi_eq_readerr is non-blocking: with no error queued it returns -EAGAIN. */
    @Test
    void readErrOfEmptyQueueReturnsEagain() throws FabricException {
        EventQueue eq = open(new EqAttr());
        assertEquals(-Errno.EAGAIN, eq.readErr(new EqErrEntry(), 0), "readErr of an empty EQ");
        assertEquals(-Errno.EAGAIN, eq.readErr(new EqErrEntry().errData(new byte[8]), 0),
                "readErr of an empty EQ with a caller err_data buffer");
    }

    /** The EQ's context is the very object given to openEq, and its class is EQ. */
    @Test
    void contextIsTheOneGiven() throws FabricException {
        Object ctx = new Object();
        EventQueue eq = fx.openEq(new EqAttr(), ctx);
        assertSame(ctx, eq.context(), "eq.context()");
        assertEquals(FidClass.EQ, eq.fidClass());
    }

    // ------------------------------------------------------------------ R8: write, peek

    /** R8: write on an EQ opened without FI_WRITE returns -ENOSYS and queues nothing. */
    @Test
    void writeWithoutFiWriteIsEnosys() throws FabricException {
        EventQueue eq = open(new EqAttr());
        assertEquals(-Errno.ENOSYS, eq.write(event(Fi.FI_NOTIFY, "ctx", 1), 0), "write without FI_WRITE (R8)");
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0), "nothing was queued by the refused write");
    }

    /**
     * R8 and the identity rule: a written event reads back (1 per read) with the same event
     * code, the same fid and context objects, the same data and the same payload bytes.
     */
    @ParameterizedTest
    @ValueSource(ints = {Fi.FI_NOTIFY, APP_EVENT})
    void writtenEventReadsBackUnchanged(int code) throws FabricException {
        EventQueue eq = writable(WaitObj.NONE);
        Object ctx = new Object();
        byte[] payload = {1, 2, 3, 4, 5, 6, 7};
        EqEntry w = event(code, ctx, 0x1122334455667788L).fid(eq).payload(payload);
        assertEquals(1, eq.write(w, 0), "write on an FI_WRITE EQ returns 1 (R8)");
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, 0), "read of the written event returns 1");
        assertEquals(code, r.event(), "event code");
        assertSame(eq, r.fid(), "fid must be the very object written");
        assertSame(ctx, r.context(), "context must be the very object written");
        assertEquals(0x1122334455667788L, r.data(), "data");
        assertEquals(payload.length, r.payloadLength(), "payloadLength");
        assertNotNull(r.payload(), "payload");
        assertArrayEquals(payload, Arrays.copyOf(r.payload(), r.payloadLength()), "payload bytes");
        assertEquals(-Errno.EAGAIN, eq.read(r, 0), "the event was read once");
    }

    /** fi_eq_read: at most one event per read; events come out in the order written. */
    @Test
    void oneEventPerReadInOrder() throws FabricException {
        EventQueue eq = writable(WaitObj.NONE);
        for (int i = 0; i < 5; i++) {
            assertEquals(1, eq.write(event(APP_EVENT, "ctx", i), 0), "write " + i);
        }
        EqEntry r = new EqEntry();
        for (int i = 0; i < 5; i++) {
            assertEquals(1, eq.read(r, 0), "read " + i + " returns one event");
            assertEquals(i, r.data(), "event " + i + " in write order");
        }
        assertEquals(-Errno.EAGAIN, eq.read(r, 0), "all read");
    }

    /** R8: FI_PEEK returns the head without removing it; the next plain read removes that event. */
    @Test
    void peekLeavesTheEventAtTheHead() throws FabricException {
        EventQueue eq = writable(WaitObj.NONE);
        Object first = new Object();
        eq.write(event(APP_EVENT, first, 1), 0);
        eq.write(event(APP_EVENT, "second", 2), 0);
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, Fi.FI_PEEK), "peek");
        assertSame(first, r.context(), "peek returns the head");
        assertEquals(1, eq.read(r, Fi.FI_PEEK), "peek again");
        assertSame(first, r.context(), "a peek does not consume");
        assertEquals(1, eq.read(r, 0), "read");
        assertSame(first, r.context(), "the read after a peek removes the peeked event (R8)");
        assertEquals(1, eq.read(r, 0), "read");
        assertEquals(2, r.data(), "then the second event");
    }

    // ------------------------------------------------------------------ R6, R7: sizes, overrun

    /** R6: size 0 picks the provider default, 1024. */
    @Test
    void sizeZeroPicksTheDefault() throws FabricException {
        assertEquals(1024, open(new EqAttr().size(0)).attr().size(), "attr().size() of an EQ opened with size 0 (R6)");
    }

    /** R6 / fi_eq(3) "minimum size": capacity at least the size asked, up to 65 536. */
    @ParameterizedTest
    @ValueSource(longs = {1, 3, 64, 1000, 65536})
    void capacityIsAtLeastTheSizeAsked(long size) throws FabricException {
        EventQueue eq = open(new EqAttr().size(size));
        assertTrue(eq.attr().size() >= size, "attr().size() " + eq.attr().size() + " < asked " + size + " (R6)");
    }

    /**
     * R6/R7: an EQ holds exactly attr().size() events; the write that finds it full and every
     * later one return -EOVERRUN; reads return every valid event, then -EOVERRUN; readErr then
     * returns an entry with err == EOVERRUN; the queue stays overrun.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 5, 32})
    void fullQueueOverruns(long asked) throws FabricException {
        EventQueue eq = open(new EqAttr().size(asked).flags(Fi.FI_WRITE));
        long size = eq.attr().size();
        for (long i = 0; i < size; i++) {
            assertEquals(1, eq.write(event(APP_EVENT, null, i), 0), "write " + i + " of " + size + " fits (R7)");
        }
        assertEquals(-Errno.EOVERRUN, eq.write(event(APP_EVENT, null, -1), 0), "the write to a full EQ (R7)");
        assertEquals(-Errno.EOVERRUN, eq.write(event(APP_EVENT, null, -2), 0), "a later write (R7)");
        EqEntry r = new EqEntry();
        for (long i = 0; i < size; i++) {
            assertEquals(1, eq.read(r, 0), "valid event " + i + " is still read (R7)");
            assertEquals(i, r.data(), "valid event " + i + " in order");
        }
        assertEquals(-Errno.EOVERRUN, eq.read(r, 0), "after the valid events, read returns -EOVERRUN (R7)");
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0), "readErr of an overrun EQ (R7)");
        assertEquals(Errno.EOVERRUN, err.err(), "the error entry's err (R7)");
        assertEquals(-Errno.EOVERRUN, eq.write(event(APP_EVENT, null, -3), 0), "an overrun EQ stays overrun");
    }

    /**
     * R3 on the EQ: strerror of an error entry without a provider error number (provErrno 0:
     * the overrun entry, a reject) describes its err, never errno 0's "Success".
     */
    @Test
    void strerrorOfAnEntryWithoutProviderErrnoDescribesItsErr() throws FabricException {
        EventQueue eq = open(new EqAttr().size(1).flags(Fi.FI_WRITE));
        for (long i = 0; i <= eq.attr().size(); i++) {
            eq.write(event(APP_EVENT, null, i), 0);
        }
        EqEntry r = new EqEntry();
        while (eq.read(r, 0) == 1) {
            // drain the valid events
        }
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0), "readErr of an overrun EQ (R7)");
        assertEquals(Errno.EOVERRUN, err.err(), "the error entry's err (R7)");
        CqConformance.assertDescribesErr(eq.strerror(err.provErrno(), err.errData()), err.err(), err.provErrno(),
                "the EQ's overrun entry");
    }

    /**
     * R3 on the EQ: readErr with a caller err_data buffer copies at most its length and
     * returns that array; without one, errData() is a provider array whose length covers
     * errDataSize. strerror says something about the error.
     */
    @Test
    void errDataFollowsTheCallersBuffer() throws FabricException {
        EventQueue eq = open(new EqAttr().size(1).flags(Fi.FI_WRITE));
        long size = eq.attr().size();
        for (long i = 0; i <= size; i++) {
            eq.write(event(APP_EVENT, null, i), 0);
        }
        EqEntry r = new EqEntry();
        while (eq.read(r, 0) == 1) {
            // drain the valid events
        }
        byte[] mine = new byte[4];
        EqErrEntry err = new EqErrEntry().errData(mine);
        assertEquals(1, eq.readErr(err, 0), "readErr of an overrun EQ");
        assertSame(mine, err.errData(), "with a caller buffer, errData() is that buffer (R3)");
        assertTrue(err.errDataSize() >= 0 && err.errDataSize() <= mine.length,
                "errDataSize " + err.errDataSize() + " must not exceed the caller's buffer (R3)");
        String s = eq.strerror(err.provErrno(), err.errData());
        assertNotNull(s, "strerror");
        assertFalse(s.isBlank(), "strerror must say something (R3)");

        EventQueue eq2 = open(new EqAttr().size(1).flags(Fi.FI_WRITE));
        for (long i = 0; i <= eq2.attr().size(); i++) {
            eq2.write(event(APP_EVENT, null, i), 0);
        }
        while (eq2.read(r, 0) == 1) {
            // drain
        }
        EqErrEntry own = new EqErrEntry();
        assertEquals(1, eq2.readErr(own, 0), "readErr without a caller buffer");
        if (own.errData() == null) {
            assertEquals(0, own.errDataSize(), "no err_data array means errDataSize 0 (R3)");
        } else {
            assertTrue(own.errDataSize() <= own.errData().length, "errDataSize within the provider's array (R3)");
        }
    }

    // ------------------------------------------------------------------ R4: sread

    /** R4: sread on an EQ with WaitObj.NONE or SET returns -ENOSYS at once. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"NONE", "SET"})
    void blockingReadWithoutUsableWaitObjectIsEnosys(WaitObj waitObj) throws FabricException {
        EventQueue eq = writable(waitObj);
        int rc = assertTimeoutPreemptively(AT_ONCE, () -> eq.sread(new EqEntry(), -1, 0),
                "sread(timeout -1) on a " + waitObj + " EQ must return at once (R4)");
        assertEquals(-Errno.ENOSYS, rc, "sread on a " + waitObj + " EQ (R4)");
    }

    /** R4: a timeout with nothing to read returns -EAGAIN; an event already there is returned. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void blockingReadReturnsEventOrTimesOut(WaitObj waitObj) throws FabricException {
        EventQueue eq = writable(waitObj);
        EqEntry r = new EqEntry();
        assertEquals(-Errno.EAGAIN, eq.sread(r, 20, 0), "sread timing out on an empty " + waitObj + " EQ (R4)");
        assertEquals(-Errno.EAGAIN, eq.sread(r, 0, 0), "sread with timeout 0 on an empty EQ (R4)");
        eq.write(event(APP_EVENT, "x", 9), 0);
        assertEquals(1, eq.sread(r, 20, Fi.FI_PEEK), "sread with FI_PEEK of a queued event");
        assertEquals(9, r.data());
        assertEquals(1, eq.sread(r, -1, 0), "sread of the event left by the peek");
        assertEquals(9, r.data());
        assertEquals(-Errno.EAGAIN, eq.read(r, 0), "consumed");
    }

    /** R4: a write from another thread wakes a reader blocked forever. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void writeWakesABlockedReader(WaitObj waitObj) throws FabricException {
        EventQueue eq = writable(waitObj);
        EqEntry r = new EqEntry();
        BlockedCall reader = BlockedCall.start("conformance-eq-sread", () -> eq.sread(r, -1, 0));
        assertEquals(1, eq.write(event(APP_EVENT, "wake", 77), 0), "write");
        assertEquals(1, reader.join(await(), "sread(timeout -1) to return the written event"), "sread");
        assertEquals(77, r.data(), "the event the writer wrote");
    }

    /** R4: interrupting the waiting thread returns -EAGAIN and keeps its interrupt status. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void interruptedReaderReturnsEagainAndKeepsStatus(WaitObj waitObj) throws FabricException {
        EventQueue eq = writable(waitObj);
        BlockedCall reader = BlockedCall.start("conformance-eq-sread", () -> eq.sread(new EqEntry(), -1, 0));
        reader.interrupt();
        assertEquals(-Errno.EAGAIN, reader.join(await(), "EQ sread(timeout -1) to return after an interrupt (R4)"),
                "EQ sread of an interrupted thread (R4)");
        assertTrue(reader.interruptedAfter(), "the interrupt status must be kept (R4)");
    }

    // ------------------------------------------------------------------ wait objects

    /** fi_control(FI_GETWAIT) on an EQ: FD and MUTEX_COND export their object; the others throw ENOSYS. */
    @ParameterizedTest
    @EnumSource(WaitObj.class)
    void getWaitMatchesTheWaitObject(WaitObj waitObj) throws FabricException {
        EventQueue eq = writable(waitObj);
        if (waitObj == WaitObj.FD) {
            WaitObject.Fd fd = assertInstanceOf(WaitObject.Fd.class, eq.getWait(), "getWait() of an FD EQ");
            assertNotNull(fd.channel(), "channel");
        } else if (waitObj == WaitObj.MUTEX_COND) {
            WaitObject.MutexCond mc = assertInstanceOf(WaitObject.MutexCond.class, eq.getWait(), "getWait() of a MUTEX_COND EQ");
            assertNotNull(mc.mutex(), "mutex");
            assertNotNull(mc.cond(), "cond");
        } else {
            FabricException e = assertThrows(FabricException.class, eq::getWait, "getWait() of a " + waitObj + " EQ");
            assertEquals(Errno.ENOSYS, e.errno(), "getWait() of a " + waitObj + " EQ: " + e);
        }
    }

    /**
     * FI_WAIT_FD: the channel is readable while the EQ has an event, a peek does not clear
     * that (R8), and after the event is read and fi_trywait returns 0 it is not readable.
     * fi_trywait returns -EAGAIN while an event is queued.
     */
    @Test
    void fdChannelIsReadableWhileAnEventIsQueued() throws FabricException {
        EventQueue eq = writable(WaitObj.FD);
        WaitObject.Fd fd = (WaitObject.Fd) eq.getWait();
        try (FdReadiness r = new FdReadiness(fd.channel())) {
            assertEquals(0, fx.fabric().tryWait(eq), "tryWait of an empty FD EQ");
            assertFalse(r.readableNow(), "empty EQ after tryWait 0: channel not readable");
            eq.write(event(APP_EVENT, null, 1), 0);
            assertTrue(r.readableWithin(await().timeoutMs()), "an EQ with an event: channel readable");
            assertEquals(-Errno.EAGAIN, fx.fabric().tryWait(eq), "tryWait with an event queued");
            EqEntry e = new EqEntry();
            assertEquals(1, eq.read(e, Fi.FI_PEEK), "peek");
            assertTrue(r.readableWithin(await().timeoutMs()), "a peek does not clear the wait object's readiness (R8)");
            assertEquals(1, eq.read(e, 0), "read");
            assertEquals(0, fx.fabric().tryWait(eq), "tryWait after the EQ was drained");
            assertFalse(r.readableNow(), "a drained EQ after tryWait 0: channel not readable");
        }
    }

    /** fi_trywait over several objects: -EAGAIN when any of them has something to read, 0 when none has. */
    @Test
    void tryWaitCoversEveryObject() throws FabricException {
        EventQueue e1 = writable(WaitObj.FD);
        EventQueue e2 = writable(WaitObj.MUTEX_COND);
        assertEquals(0, fx.fabric().tryWait(e1, e2), "tryWait of two empty EQs");
        e2.write(event(APP_EVENT, null, 1), 0);
        assertEquals(-Errno.EAGAIN, fx.fabric().tryWait(e1, e2), "tryWait when the second EQ has an event");
        e2.read(new EqEntry(), 0);
        assertEquals(0, fx.fabric().tryWait(e1, e2), "tryWait after it was read");
    }

    /** fi_eq(3) signaling_vector: with FI_AFFINITY it is a hint a provider may ignore; the EQ opens and works. */
    @Test
    void affinityIsAcceptedAsAHint() throws FabricException {
        EventQueue eq = open(new EqAttr().flags(Fi.FI_WRITE | Fi.FI_AFFINITY).signalingVector(0));
        assertEquals(1, eq.write(event(APP_EVENT, null, 1), 0), "write");
        assertEquals(1, eq.read(new EqEntry(), 0), "read");
    }

    /** FI_WAIT_MUTEX_COND: a writer on another thread signals the condition under the lock. */
    @Test
    void mutexCondIsSignalledByAWrite() throws Exception {
        EventQueue eq = writable(WaitObj.MUTEX_COND);
        WaitObject.MutexCond mc = (WaitObject.MutexCond) eq.getWait();
        EqEntry probe = new EqEntry();
        Thread writer = new Thread(() -> eq.write(event(APP_EVENT, null, 5), 0), "conformance-eq-writer");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(await().timeoutMs());
        mc.mutex().lock();
        try {
            writer.start();
            while (fx.fabric().tryWait(eq) == 0) {
                long left = deadline - System.nanoTime();
                assertTrue(left > 0, "timed out waiting for the MUTEX_COND condition to be signalled by a write");
                mc.cond().awaitNanos(left);
            }
        } finally {
            mc.mutex().unlock();
        }
        assertEquals(1, eq.read(probe, 0), "the written event is there");
        assertEquals(5, probe.data());
        await().join(writer, "the writer thread");
    }

    // ------------------------------------------------------------------ R9

    /**
     * R9 / fi_eq(3) fi_close: an EQ that an AV is bound to refuses to close with EBUSY and
     * keeps working; after the AV is closed the EQ closes.
     */
    @Test
    void closeWhileAnAvIsBoundIsEbusy() throws FabricException {
        EventQueue eq = writable(WaitObj.NONE);
        AddressVector av = fx.openAv(new AvAttr().flags(Fi.FI_EVENT), "av");
        av.bind(eq, 0);
        FabricException e = assertThrows(FabricException.class, eq::close, "closing an EQ an AV is bound to");
        assertEquals(Errno.EBUSY, e.errno(), "closing a bound EQ (R9): " + e);
        assertEquals(1, eq.write(event(APP_EVENT, null, 3), 0), "the EQ still works after the refused close (R9)");
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, 0), "and reads");
        fx.close(av);
        fx.close(eq);
    }

    /** fi_eq(3): FI_WAIT_SET requires a wait set. */
    @Test
    void waitSetWithoutSetIsRefused() {
        FabricException e = assertThrows(FabricException.class, () -> open(new EqAttr().waitObj(WaitObj.SET)),
                "openEq with WaitObj.SET and no wait set");
        assertEquals(Errno.EINVAL, e.errno(), "errno: " + e);
    }
}
