package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.ConnReq;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class UtilEventQueueTest {

    /** Stand-ins for the endpoints and regions events refer to: real util objects. */
    private final UtilCounter fidA;
    private final UtilCounter fidB;

    private UtilEventQueue eq;

    UtilEventQueueTest() throws FabricException {
        fidA = new UtilCounter(null, "A");
        fidB = new UtilCounter(null, "B");
    }

    @AfterEach
    void closeAll() throws FabricException {
        if (eq != null) {
            while (eq.bindCount() > 0) {
                eq.release();
            }
            eq.close();
        }
        fidA.close();
        fidB.close();
    }

    private UtilEventQueue open(EqAttr attr) throws FabricException {
        eq = new UtilEventQueue(attr, "eq-ctx");
        return eq;
    }

    // ------------------------------------------------------------------ attributes (R6)

    @Test
    void nullAttrGivesDefaultSizeAndNoWaitObject() throws FabricException {
        open(null);
        assertEquals(UtilEventQueue.DEFAULT_SIZE, eq.attr().size());
        assertEquals(1024, eq.attr().size());
        assertEquals(WaitObj.NONE, eq.attr().waitObj());
        assertEquals("eq-ctx", eq.context());
    }

    @Test
    void sizeZeroIs1024AndAskedSizeIsKept() throws FabricException {
        assertEquals(1024, new UtilEventQueue(new EqAttr(), null).attr().size());
        open(new EqAttr().size(65_536));
        assertEquals(65_536, eq.attr().size());
    }

    @Test
    void attrReturnsACopy() throws FabricException {
        open(new EqAttr().size(8));
        eq.attr().size(99);
        assertEquals(8, eq.attr().size());
    }

    @Test
    void badAttributesAreRejected() {
        FabricException e = assertThrows(FabricException.class, () -> new UtilEventQueue(new EqAttr().size(-1), null));
        assertEquals(Errno.EINVAL, e.errno());
        e = assertThrows(FabricException.class, () -> new UtilEventQueue(new EqAttr().flags(Fi.FI_PEEK), null));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("FI_WRITE"), e.getMessage());
        e = assertThrows(FabricException.class, () -> new UtilEventQueue(new EqAttr().waitObj(WaitObj.SET), null));
        assertEquals(Errno.EINVAL, e.errno());
    }

    @Test
    void writeAndAffinityFlagsAreAccepted() throws FabricException {
        open(new EqAttr().flags(Fi.FI_WRITE | Fi.FI_AFFINITY).signalingVector(1));
        assertEquals(Fi.FI_WRITE | Fi.FI_AFFINITY, eq.attr().flags());
    }

    // ------------------------------------------------------------------ R1 and basic reads

    @Test
    void emptyReadsReturnEagain() throws FabricException {
        open(null);
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0));
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), Fi.FI_PEEK));
        assertEquals(-Errno.EAGAIN, eq.readErr(new EqErrEntry(), 0));
    }

    @Test
    void postedEventsReadBackInOrderWithEveryField() throws FabricException {
        open(null);
        Object ctx1 = new Object();
        Object ctx2 = new Object();
        assertEquals(1, eq.post(Fi.FI_MR_COMPLETE, fidA, ctx1, 7L, null, null, 0));
        assertEquals(1, eq.post(Fi.FI_AV_COMPLETE, fidB, ctx2, 3L, null, null, 0));
        EqEntry e = new EqEntry();
        assertEquals(1, eq.read(e, 0));
        assertEquals(Fi.FI_MR_COMPLETE, e.event());
        assertSame(fidA, e.fid());
        assertSame(ctx1, e.context());
        assertEquals(7L, e.data());
        assertNull(e.payload());
        assertEquals(0, e.payloadLength());
        assertEquals(1, eq.read(e, 0));
        assertEquals(Fi.FI_AV_COMPLETE, e.event());
        assertSame(fidB, e.fid());
        assertSame(ctx2, e.context());
        assertEquals(3L, e.data());
        assertEquals(-Errno.EAGAIN, eq.read(e, 0));
    }

    @Test
    void peekReturnsTheHeadAndTheNextReadRemovesTheSameEvent() throws FabricException {
        open(null);
        eq.post(1000, fidA, "first", 1, null, null, 0);
        eq.post(1001, fidB, "second", 2, null, null, 0);
        EqEntry e = new EqEntry();
        assertEquals(1, eq.read(e, Fi.FI_PEEK));
        assertEquals(1000, e.event());
        assertEquals(1, eq.read(e.clear(), Fi.FI_PEEK));
        assertEquals(1000, e.event());
        assertEquals(1, eq.read(e.clear(), 0));
        assertEquals(1000, e.event());
        assertSame(fidA, e.fid());
        assertEquals("first", e.context());
        assertEquals(1, eq.read(e, 0));
        assertEquals(1001, e.event());
    }

    @Test
    void unknownFlagsAreEbadflagsAndNullEntriesAreEinval() throws FabricException {
        open(new EqAttr().flags(Fi.FI_WRITE).waitObj(WaitObj.UNSPEC));
        eq.post(1, fidA, null, 0, null, null, 0);
        assertEquals(-Errno.EBADFLAGS, eq.read(new EqEntry(), Fi.FI_SEND));
        assertEquals(-Errno.EBADFLAGS, eq.sread(new EqEntry(), 0, Fi.FI_SEND));
        assertEquals(-Errno.EBADFLAGS, eq.readErr(new EqErrEntry(), Fi.FI_PEEK));
        assertEquals(-Errno.EBADFLAGS, eq.write(new EqEntry(), Fi.FI_PEEK));
        assertEquals(-Errno.EINVAL, eq.read(null, 0));
        assertEquals(-Errno.EINVAL, eq.sread(null, 0, 0));
        assertEquals(-Errno.EINVAL, eq.readErr(null, 0));
        assertEquals(-Errno.EINVAL, eq.write(null, 0));
        // nothing was consumed or added
        EqEntry e = new EqEntry();
        assertEquals(1, eq.read(e, 0));
        assertEquals(-Errno.EAGAIN, eq.read(e, 0));
    }

    @Test
    void badPayloadLengthsAreEinvalAndQueueNothing() throws FabricException {
        open(null);
        assertEquals(-Errno.EINVAL, eq.post(1, fidA, null, 0, null, new byte[2], 3));
        assertEquals(-Errno.EINVAL, eq.post(1, fidA, null, 0, null, new byte[2], -1));
        assertEquals(-Errno.EINVAL, eq.post(1, fidA, null, 0, null, null, 1));
        assertEquals(-Errno.EINVAL, eq.postError(fidA, null, 0, Errno.EIO, 0, new byte[1], 2));
        assertEquals(-Errno.EINVAL, eq.postError(fidA, null, 0, 0, 0, null, 0));
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0));
        assertEquals(-Errno.EAGAIN, eq.readErr(new EqErrEntry(), 0));
    }

    // ------------------------------------------------------------------ error events (R1, R2, R3)

    @Test
    void errorAtHeadGivesEavailUntilReadErrTakesIt() throws FabricException {
        open(null);
        eq.post(10, fidA, "ok-before", 0, null, null, 0);
        eq.postError(fidB, "failed", 42L, Errno.EIO, 77, null, 0);
        eq.post(11, fidA, "ok-after", 0, null, null, 0);
        EqEntry e = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        assertEquals(-Errno.EAGAIN, eq.readErr(err, 0), "an event, not an error, is at the head");
        assertEquals(1, eq.read(e, 0));
        assertEquals("ok-before", e.context());
        assertEquals(-Errno.EAVAIL, eq.read(e, 0));
        assertEquals(-Errno.EAVAIL, eq.read(e, Fi.FI_PEEK));
        assertEquals(-Errno.EAVAIL, eq.read(e, 0));
        assertEquals(1, eq.readErr(err, 0));
        assertSame(fidB, err.fid());
        assertEquals("failed", err.context());
        assertEquals(42L, err.data());
        assertEquals(Errno.EIO, err.err());
        assertEquals(77, err.provErrno());
        assertEquals(0, err.errDataSize());
        assertEquals(-Errno.EAGAIN, eq.readErr(err, 0));
        assertEquals(1, eq.read(e, 0));
        assertEquals("ok-after", e.context());
    }

    @Test
    void errDataIsCopiedIntoTheCallersBufferUpToItsLength() throws FabricException {
        open(null);
        byte[] data = {1, 2, 3, 4, 5, 6};
        eq.postError(fidA, null, 0, Errno.ECONNREFUSED, 0, data, 6);
        eq.postError(fidA, null, 0, Errno.ECONNREFUSED, 0, data, 6);
        byte[] small = new byte[4];
        EqErrEntry err = new EqErrEntry().errData(small);
        assertEquals(1, eq.readErr(err, 0));
        assertSame(small, err.errData());
        assertEquals(4, err.errDataSize());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, small);
        byte[] big = new byte[10];
        err.errData(big);
        assertEquals(1, eq.readErr(err, 0));
        assertEquals(6, err.errDataSize());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 0, 0, 0, 0}, big);
    }

    @Test
    void withoutACallerBufferErrDataIsQueueOwnedAndStaysValidAfterTheNextRead() throws FabricException {
        open(null);
        byte[] data = {9, 8, 7};
        eq.postError(fidA, null, 0, Errno.ECONNREFUSED, 0, data, 3);
        data[0] = 0; // the provider reuses its array: the queued copy must not change
        eq.postError(fidA, null, 0, Errno.EIO, 0, new byte[] {5}, 1);
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0));
        byte[] owned = err.errData();
        assertNotSame(data, owned);
        assertEquals(3, err.errDataSize());
        assertArrayEquals(new byte[] {9, 8, 7}, java.util.Arrays.copyOf(owned, 3));
        assertEquals(1, eq.readErr(new EqErrEntry(), 0));
        assertArrayEquals(new byte[] {9, 8, 7}, java.util.Arrays.copyOf(owned, 3));
    }

    @Test
    void rejectShapedErrorCarriesEconnrefusedAndTheRejectData() throws FabricException {
        open(null);
        byte[] reject = "go away".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        eq.postError(fidA, "conn", 0, Errno.ECONNREFUSED, 0, reject, reject.length);
        EqErrEntry err = new EqErrEntry();
        assertEquals(-Errno.EAVAIL, eq.read(new EqEntry(), 0));
        assertEquals(1, eq.readErr(err, 0));
        assertEquals(Errno.ECONNREFUSED, err.err());
        assertEquals(reject.length, err.errDataSize());
        assertArrayEquals(reject, java.util.Arrays.copyOf(err.errData(), err.errDataSize()));
    }

    // ------------------------------------------------------------------ R7 overrun

    @Test
    void fullQueueOverrunsThenReadsDrainThenEoverrun() throws FabricException {
        open(new EqAttr().size(4).flags(Fi.FI_WRITE));
        for (int i = 0; i < 4; i++) {
            assertEquals(1, eq.post(100 + i, fidA, null, i, null, null, 0));
        }
        assertFalse(eq.isOverrun());
        assertEquals(-Errno.EOVERRUN, eq.post(104, fidA, null, 4, null, null, 0));
        assertTrue(eq.isOverrun());
        assertEquals(-Errno.EOVERRUN, eq.write(new EqEntry().event(105), 0));
        assertEquals(-Errno.EOVERRUN, eq.postError(fidA, null, 0, Errno.EIO, 0, null, 0));
        EqEntry e = new EqEntry();
        assertEquals(1, eq.read(e, 0));
        assertEquals(100, e.event());
        // room again, but an overrun queue accepts nothing more
        assertEquals(-Errno.EOVERRUN, eq.post(106, fidA, null, 0, null, null, 0));
        for (int i = 1; i < 4; i++) {
            assertEquals(1, eq.read(e, 0));
            assertEquals(100 + i, e.event());
        }
        assertEquals(-Errno.EOVERRUN, eq.read(e, 0));
        assertEquals(-Errno.EOVERRUN, eq.read(e, Fi.FI_PEEK));
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0));
        assertEquals(Errno.EOVERRUN, err.err());
        assertSame(eq, err.fid());
        assertEquals(1, eq.readErr(err, 0), "the overrun state lasts until close");
        assertEquals(-Errno.EOVERRUN, eq.read(e, 0));
    }

    @Test
    void sizeOneHoldsExactlyOneEvent() throws FabricException {
        open(new EqAttr().size(1));
        assertEquals(1, eq.post(1, fidA, null, 0, null, null, 0));
        assertEquals(-Errno.EOVERRUN, eq.post(2, fidA, null, 0, null, null, 0));
    }

    @Test
    void ringWrapsAroundWithoutLosingEvents() throws FabricException {
        open(new EqAttr().size(3));
        EqEntry e = new EqEntry();
        for (int i = 0; i < 20; i++) {
            assertEquals(1, eq.post(i, fidA, null, i, null, null, 0));
            assertEquals(1, eq.post(i + 1000, fidA, null, i, null, null, 0));
            assertEquals(1, eq.read(e, 0));
            assertEquals(i, e.event());
            assertEquals(1, eq.read(e, 0));
            assertEquals(i + 1000, e.event());
        }
        assertFalse(eq.isOverrun());
    }

    // ------------------------------------------------------------------ R8 write

    @Test
    void writeWithoutFiWriteIsEnosys() throws FabricException {
        open(null);
        assertEquals(-Errno.ENOSYS, eq.write(new EqEntry().event(5), 0));
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0));
    }

    @Test
    void writtenEventReadsBackWithEveryField() throws FabricException {
        open(new EqAttr().flags(Fi.FI_WRITE));
        Object ctx = new Object();
        Info info = new Info();
        byte[] payload = {10, 20, 30, 40};
        EqEntry w = new EqEntry().event(4242).fid(fidA).context(ctx).data(-5L).info(info).payload(payload).payloadLength(3);
        assertEquals(1, eq.write(w, 0));
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, 0));
        assertEquals(4242, r.event());
        assertSame(fidA, r.fid());
        assertSame(ctx, r.context());
        assertEquals(-5L, r.data());
        assertSame(info, r.info());
        assertEquals(3, r.payloadLength());
        assertArrayEquals(new byte[] {10, 20, 30}, r.payload());
    }

    @Test
    void reusingTheWrittenArrayDoesNotChangeTheQueuedEvent() throws FabricException {
        open(new EqAttr().flags(Fi.FI_WRITE));
        byte[] buf = {1, 2, 3};
        EqEntry w = new EqEntry().event(1).payload(buf);
        assertEquals(1, eq.write(w, 0));
        buf[0] = 99;
        buf[2] = 98;
        w.event(2); // and the entry itself is reused
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, 0));
        assertEquals(1, r.event());
        assertNotSame(buf, r.payload());
        assertArrayEquals(new byte[] {1, 2, 3}, r.payload());
    }

    @Test
    void writeAndReadWithTheSameEntryRoundTrips() throws FabricException {
        open(new EqAttr().flags(Fi.FI_WRITE));
        EqEntry e = new EqEntry().event(7).fid(fidB).data(1).payload(new byte[] {5, 6});
        assertEquals(1, eq.write(e, 0));
        e.clear();
        assertEquals(1, eq.read(e, 0));
        assertEquals(7, e.event());
        assertSame(fidB, e.fid());
        assertArrayEquals(new byte[] {5, 6}, e.payload());
    }

    // ------------------------------------------------------------------ R14 connection-event shapes

    @Test
    void connreqCarriesInfoWithHandleAndPayload() throws FabricException {
        open(null);
        ConnReq handle = new ConnReq() {
        };
        Info info = new Info().handle(handle);
        byte[] cm = new byte[256];
        cm[0] = 1;
        cm[255] = 2;
        assertEquals(1, eq.post(Fi.FI_CONNREQ, fidA, null, 0, info, cm, 256));
        EqEntry e = new EqEntry();
        assertEquals(1, eq.read(e, 0));
        assertEquals(Fi.FI_CONNREQ, e.event());
        assertSame(fidA, e.fid());
        assertSame(info, e.info());
        assertSame(handle, e.info().handle());
        assertEquals(256, e.payloadLength());
        assertArrayEquals(cm, e.payload());
    }

    @Test
    void connectedPayloadIsExactlyTheBytesPassedNeverPadded() throws FabricException {
        open(null);
        byte[] providerBuffer = new byte[256];
        providerBuffer[0] = 'h';
        providerBuffer[1] = 'i';
        assertEquals(1, eq.post(Fi.FI_CONNECTED, fidA, null, 0, null, providerBuffer, 2));
        assertEquals(1, eq.post(Fi.FI_CONNECTED, fidB, null, 0, null, new byte[0], 0));
        EqEntry e = new EqEntry();
        assertEquals(1, eq.read(e, 0));
        assertEquals(Fi.FI_CONNECTED, e.event());
        assertEquals(2, e.payloadLength());
        assertEquals(2, e.payload().length);
        assertArrayEquals(new byte[] {'h', 'i'}, e.payload());
        assertEquals(1, eq.read(e, 0));
        assertSame(fidB, e.fid());
        assertEquals(0, e.payloadLength());
    }

    // ------------------------------------------------------------------ removeEventsOf

    @Test
    void removeEventsOfRemovesOnlyThatFidsEventsAndKeepsOrder() throws FabricException {
        open(new EqAttr().size(6));
        EqEntry e = new EqEntry();
        // move the head off slot 0 so that removal works across the wrap-around
        eq.post(0, fidB, null, 0, null, null, 0);
        eq.post(0, fidB, null, 0, null, null, 0);
        eq.read(e, 0);
        eq.read(e, 0);
        eq.post(1, fidA, null, 0, null, null, 0);
        eq.post(2, fidB, null, 0, null, null, 0);
        eq.postError(fidA, null, 0, Errno.ECONNRESET, 0, null, 0);
        eq.post(3, fidB, null, 0, null, null, 0);
        eq.post(4, fidA, null, 0, null, null, 0);
        eq.post(5, fidB, null, 0, null, null, 0);
        assertEquals(3, eq.removeEventsOf(fidA));
        assertEquals(0, eq.removeEventsOf(fidA));
        assertEquals(0, eq.removeEventsOf(null));
        for (int expected : new int[] {2, 3, 5}) {
            assertEquals(1, eq.read(e, 0));
            assertEquals(expected, e.event());
            assertSame(fidB, e.fid());
        }
        assertEquals(-Errno.EAGAIN, eq.read(e, 0));
        // the freed room is usable: the ring lost no slot
        for (int i = 0; i < 6; i++) {
            assertEquals(1, eq.post(i, fidA, null, 0, null, null, 0));
        }
        for (int i = 0; i < 6; i++) {
            assertEquals(1, eq.read(e, 0));
            assertEquals(i, e.event());
        }
    }

    // ------------------------------------------------------------------ R4 blocking reads

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"NONE", "SET"})
    void sreadWithoutABlockingWaitObjectIsEnosysAtOnce(WaitObj w) throws FabricException {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        try {
            open(new EqAttr().waitObj(w).waitSet(set));
            assertEquals(-Errno.ENOSYS, eq.sread(new EqEntry(), -1, 0));
            eq.post(1, fidA, null, 0, null, null, 0);
            assertEquals(-Errno.ENOSYS, eq.sread(new EqEntry(), -1, 0));
        } finally {
            eq.close();
            eq = null;
            set.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void sreadTimesOutWithEagain(WaitObj w) throws FabricException {
        open(new EqAttr().waitObj(w));
        assertEquals(-Errno.EAGAIN, eq.sread(new EqEntry(), 0, 0));
        assertEquals(-Errno.EAGAIN, eq.sread(new EqEntry(), 5, 0));
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void sreadReturnsAnEventPostedByAnotherThread(WaitObj w) throws Exception {
        open(new EqAttr().waitObj(w));
        CompletableFuture<EqEntry> reader = CompletableFuture.supplyAsync(() -> {
            EqEntry e = new EqEntry();
            int rc = eq.sread(e, 10_000, 0);
            return rc == 1 ? e : e.event(rc).fid(null);
        });
        Thread poster = new Thread(() -> eq.post(Fi.FI_SHUTDOWN, fidA, "bye", 0, null, null, 0));
        poster.start();
        EqEntry e = reader.get(20, TimeUnit.SECONDS);
        poster.join(10_000);
        assertEquals(Fi.FI_SHUTDOWN, e.event());
        assertSame(fidA, e.fid());
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND"})
    void sreadBlockedBeforeThePostIsWoken(WaitObj w) throws Exception {
        open(new EqAttr().waitObj(w));
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        EqEntry e = new EqEntry();
        Thread reader = new Thread(() -> rc.set(eq.sread(e, -1, 0)));
        reader.start();
        awaitBlocked(reader);
        eq.post(77, fidA, null, 0, null, null, 0);
        reader.join(10_000);
        assertFalse(reader.isAlive());
        assertEquals(1, rc.get());
        assertEquals(77, e.event());
    }

    @Test
    void sreadWithPeekLeavesTheEventQueued() throws FabricException {
        open(new EqAttr().waitObj(WaitObj.UNSPEC));
        eq.post(9, fidA, null, 0, null, null, 0);
        EqEntry e = new EqEntry();
        assertEquals(1, eq.sread(e, 1000, Fi.FI_PEEK));
        assertEquals(9, e.event());
        assertEquals(1, eq.sread(e.clear(), 1000, 0));
        assertEquals(9, e.event());
        assertEquals(-Errno.EAGAIN, eq.read(e, 0));
    }

    @Test
    void sreadReturnsEavailForAnErrorAtTheHead() throws FabricException {
        open(new EqAttr().waitObj(WaitObj.UNSPEC));
        eq.postError(fidA, null, 0, Errno.EIO, 0, null, 0);
        assertEquals(-Errno.EAVAIL, eq.sread(new EqEntry(), 1000, 0));
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void interruptedSreadReturnsEagainAndKeepsTheInterruptStatus(WaitObj w) throws FabricException {
        open(new EqAttr().waitObj(w));
        Thread.currentThread().interrupt();
        try {
            assertEquals(-Errno.EAGAIN, eq.sread(new EqEntry(), -1, 0));
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void interruptWakesABlockedSread() throws Exception {
        open(new EqAttr().waitObj(WaitObj.MUTEX_COND));
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        AtomicInteger stillInterrupted = new AtomicInteger();
        Thread reader = new Thread(() -> {
            rc.set(eq.sread(new EqEntry(), -1, 0));
            stillInterrupted.set(Thread.currentThread().isInterrupted() ? 1 : 0);
        });
        reader.start();
        awaitBlocked(reader);
        reader.interrupt();
        reader.join(10_000);
        assertFalse(reader.isAlive());
        assertEquals(-Errno.EAGAIN, rc.get());
        assertEquals(1, stillInterrupted.get());
    }

    // ------------------------------------------------------------------ wait objects

    @Test
    void fdIsReadableWhileAnEventIsQueuedAlsoAfterPeekButNotAfterTheRead() throws Exception {
        open(new EqAttr().waitObj(WaitObj.FD));
        WaitObject w = eq.getWait();
        SelectableChannel ch = assertInstanceOf(WaitObject.Fd.class, w).channel();
        try (Selector selector = Selector.open()) {
            ch.configureBlocking(false);
            ch.register(selector, SelectionKey.OP_READ);
            assertFalse(readable(selector), "empty queue");
            eq.post(1, fidA, null, 0, null, null, 0);
            assertTrue(readable(selector), "an event is queued");
            assertEquals(1, eq.read(new EqEntry(), Fi.FI_PEEK));
            assertTrue(readable(selector), "a peek keeps the readiness (R8)");
            assertEquals(1, eq.read(new EqEntry(), 0));
            assertFalse(readable(selector), "read emptied the queue");
            eq.post(2, fidA, null, 0, null, null, 0);
            eq.post(3, fidA, null, 0, null, null, 0);
            assertEquals(1, eq.read(new EqEntry(), 0));
            assertTrue(readable(selector), "one event left");
            eq.postError(fidA, null, 0, Errno.EIO, 0, null, 0);
            assertEquals(1, eq.read(new EqEntry(), 0));
            assertTrue(readable(selector), "an error event is something to read");
            assertEquals(1, eq.readErr(new EqErrEntry(), 0));
            assertFalse(readable(selector), "readErr emptied the queue");
        }
    }

    @Test
    void fdFallsSilentWhenRemoveEventsOfEmptiesTheQueue() throws Exception {
        open(new EqAttr().waitObj(WaitObj.FD));
        SelectableChannel ch = ((WaitObject.Fd) eq.getWait()).channel();
        try (Selector selector = Selector.open()) {
            ch.configureBlocking(false);
            ch.register(selector, SelectionKey.OP_READ);
            eq.post(1, fidA, null, 0, null, null, 0);
            assertTrue(readable(selector));
            assertEquals(1, eq.removeEventsOf(fidA));
            assertFalse(readable(selector));
        }
    }

    @Test
    void getWaitExportsMutexCondAndRefusesOthers() throws FabricException {
        open(new EqAttr().waitObj(WaitObj.MUTEX_COND));
        assertInstanceOf(WaitObject.MutexCond.class, eq.getWait());
        eq.close();
        for (WaitObj w : new WaitObj[] {WaitObj.NONE, WaitObj.UNSPEC, WaitObj.YIELD}) {
            open(new EqAttr().waitObj(w));
            FabricException ex = assertThrows(FabricException.class, eq::getWait);
            assertEquals(Errno.ENOSYS, ex.errno());
            eq.close();
        }
    }

    @Test
    void waitSetIsSignalledByAPost() throws FabricException {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        try {
            open(new EqAttr().waitObj(WaitObj.SET).waitSet(set));
            assertEquals(1, set.bindCount());
            assertEquals(-Errno.EAGAIN, set.await(0));
            eq.post(1, fidA, null, 0, null, null, 0);
            assertEquals(0, set.await(10_000));
            assertTrue(eq.hasEvents());
        } finally {
            eq.close();
            eq = null;
            assertEquals(0, set.bindCount(), "closing the EQ leaves the wait set");
            set.close();
        }
    }

    @Test
    void hasEventsAndTryWaitSeeQueuedEvents() throws FabricException {
        open(new EqAttr().waitObj(WaitObj.UNSPEC));
        assertFalse(eq.hasEvents());
        assertEquals(0, TryWait.tryWait(eq));
        eq.post(1, fidA, null, 0, null, null, 0);
        assertTrue(eq.hasEvents());
        assertEquals(-Errno.EAGAIN, TryWait.tryWait(eq));
    }

    @Test
    void openingOnAClosedWaitSetFailsAndLeavesItsCountAlone() throws FabricException {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        set.close();
        FabricException ex = assertThrows(FabricException.class,
                () -> new UtilEventQueue(new EqAttr().waitObj(WaitObj.SET).waitSet(set), null));
        assertEquals(Errno.EBADF, ex.errno());
        assertEquals(0, set.bindCount());
    }

    @Test
    void concurrentPostersLoseNothing() throws Exception {
        open(new EqAttr().size(2000));
        int perThread = 1000;
        Thread[] ts = new Thread[2];
        for (int t = 0; t < ts.length; t++) {
            final int base = t * perThread;
            ts[t] = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    eq.post(base + i, fidA, null, 0, null, null, 0);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join(10_000);
            assertFalse(t.isAlive());
        }
        boolean[] seen = new boolean[2 * perThread];
        EqEntry e = new EqEntry();
        int n = 0;
        while (eq.read(e, 0) == 1) {
            assertFalse(seen[e.event()], "duplicate event " + e.event());
            seen[e.event()] = true;
            n++;
        }
        assertEquals(2 * perThread, n);
        assertFalse(eq.isOverrun());
    }

    // ------------------------------------------------------------------ manual progress

    @Test
    void readsDriveManualProgress() throws FabricException {
        open(new EqAttr().waitObj(WaitObj.UNSPEC));
        AtomicInteger steps = new AtomicInteger();
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "test", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                // the "provider" delivers its event only when progress is driven
                if (steps.incrementAndGet() == 1) {
                    return eq.post(Fi.FI_CONNECTED, fidA, null, 0, null, null, 0);
                }
                return 0;
            }

            @Override
            public void wakeup() {
            }
        });
        try {
            eq.attachProgress(engine);
            EqEntry e = new EqEntry();
            assertEquals(1, eq.read(e, 0));
            assertEquals(Fi.FI_CONNECTED, e.event());
            assertEquals(1, steps.get());
            eq.detachProgress(engine);
            assertEquals(-Errno.EAGAIN, eq.read(e, 0));
            assertEquals(1, steps.get(), "a detached engine is not driven");
        } finally {
            engine.close();
        }
    }

    // ------------------------------------------------------------------ strerror

    @Test
    void strerrorUsesTheDescriberElseAGenericSentence() throws FabricException {
        UtilEventQueue described = new UtilEventQueue(null, null,
                (prov, data, size) -> prov == 5 ? "tcp: peer closed after " + size + " bytes" : null);
        try {
            assertEquals("tcp: peer closed after 2 bytes", described.strerror(5, new byte[2]));
            String generic = described.strerror(Errno.ECONNREFUSED, new byte[] {(byte) 0xab, 1});
            assertTrue(generic.startsWith(Errno.strerror(Errno.ECONNREFUSED)), generic);
            assertTrue(generic.contains("ab 01"), generic);
        } finally {
            described.close();
        }
        open(null);
        String s = eq.strerror(Errno.EIO, null);
        assertTrue(s.contains(Errno.strerror(Errno.EIO)) && s.contains("5"), s);
    }

    // ------------------------------------------------------------------ R9 close

    @Test
    void closeWhileBoundIsEbusyAndChangesNothing() throws FabricException {
        open(null);
        eq.retain();
        eq.post(1, fidA, null, 0, null, null, 0);
        FabricException ex = assertThrows(FabricException.class, eq::close);
        assertEquals(Errno.EBUSY, ex.errno());
        assertTrue(eq.isOpen());
        assertEquals(1, eq.read(new EqEntry(), 0), "the event survived the refused close");
        eq.release();
        eq.close();
        assertFalse(eq.isOpen());
    }

    @Test
    void closedQueueAnswersEbadf() throws FabricException {
        open(new EqAttr().flags(Fi.FI_WRITE).waitObj(WaitObj.UNSPEC));
        eq.post(1, fidA, null, 0, null, null, 0);
        eq.close();
        assertEquals(-Errno.EBADF, eq.read(new EqEntry(), 0));
        assertEquals(-Errno.EBADF, eq.readErr(new EqErrEntry(), 0));
        assertEquals(-Errno.EBADF, eq.write(new EqEntry(), 0));
        assertEquals(-Errno.EBADF, eq.sread(new EqEntry(), 0, 0));
        assertEquals(-Errno.EBADF, eq.post(1, fidA, null, 0, null, null, 0));
        assertEquals(-Errno.EBADF, eq.postError(fidA, null, 0, Errno.EIO, 0, null, 0));
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, eq::getWait).errno());
        assertThrows(FabricException.class, eq::retain);
    }

    @Test
    void closeWakesABlockedSreadWithEbadf() throws Exception {
        open(new EqAttr().waitObj(WaitObj.MUTEX_COND));
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        Thread reader = new Thread(() -> rc.set(eq.sread(new EqEntry(), -1, 0)));
        reader.start();
        awaitBlocked(reader);
        eq.close();
        reader.join(10_000);
        assertFalse(reader.isAlive());
        assertEquals(-Errno.EBADF, rc.get());
    }

    // ------------------------------------------------------------------ R15 departure

    @Test
    void departedQueueIsReadableUntilEmptyThenEnodev() throws FabricException {
        open(new EqAttr().flags(Fi.FI_WRITE));
        eq.post(Fi.FI_CONNECTED, fidA, null, 0, null, null, 0);
        eq.depart();
        assertTrue(eq.isDeparted());
        // the provider shuts its endpoints down while departing
        assertEquals(1, eq.post(Fi.FI_SHUTDOWN, fidA, null, 0, null, null, 0));
        assertEquals(1, eq.postError(fidB, null, 0, Errno.ECANCELED, 0, null, 0));
        assertEquals(-Errno.ENODEV, eq.write(new EqEntry().event(1), 0));
        EqEntry e = new EqEntry();
        assertEquals(1, eq.read(e, 0));
        assertEquals(Fi.FI_CONNECTED, e.event());
        assertEquals(1, eq.read(e, 0));
        assertEquals(Fi.FI_SHUTDOWN, e.event());
        assertEquals(-Errno.EAVAIL, eq.read(e, 0));
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0));
        assertEquals(Errno.ECANCELED, err.err());
        assertEquals(-Errno.ENODEV, eq.read(e, 0));
        assertEquals(-Errno.ENODEV, eq.readErr(err, 0));
        eq.close();
        assertEquals(-Errno.EBADF, eq.read(e, 0));
    }

    @Test
    void departureWakesABlockedSreadWithEnodev() throws Exception {
        open(new EqAttr().waitObj(WaitObj.UNSPEC));
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        Thread reader = new Thread(() -> rc.set(eq.sread(new EqEntry(), -1, 0)));
        reader.start();
        awaitBlocked(reader);
        eq.depart();
        reader.join(10_000);
        assertFalse(reader.isAlive());
        assertEquals(-Errno.ENODEV, rc.get());
    }

    // ------------------------------------------------------------------ helpers

    private static boolean readable(Selector selector) throws java.io.IOException {
        selector.selectedKeys().clear();
        return selector.selectNow() > 0;
    }

    /** Waits (bounded) until the thread blocks; fails the test if it never does. */
    static void awaitBlocked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                return;
            }
            if (s == Thread.State.TERMINATED) {
                throw new AssertionError(t.getName() + " ended instead of blocking");
            }
            Thread.sleep(1);
        }
        throw new AssertionError(t.getName() + " did not block within 10 s");
    }
}
