package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.CqWaitCond;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The rules of docs/API.md (R1–R6, R9, R10, R15) and fi_cq(3) on {@link UtilCompletionQueue}. */
class UtilCompletionQueueTest {

    /** Bound of every wait in these tests: long enough never to fire on a slow machine. */
    private static final long BOUND_S = 10;

    private final List<UtilCompletionQueue> opened = new ArrayList<>();
    private final List<Async<?>> started = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (Async<?> a : started) {
            a.thread.interrupt();
            a.thread.join(TimeUnit.SECONDS.toMillis(BOUND_S));
        }
        for (UtilCompletionQueue cq : opened) {
            while (cq.bindCount() > 0) {
                cq.release();
            }
            cq.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    private UtilCompletionQueue open(CqAttr attr) throws FabricException {
        UtilCompletionQueue cq = new UtilCompletionQueue(attr, "cq-context");
        opened.add(cq);
        return cq;
    }

    private UtilCompletionQueue open(WaitObj w) throws FabricException {
        return open(new CqAttr().size(16).waitObj(w));
    }

    private static CqEntry[] entries(int n) {
        CqEntry[] e = new CqEntry[n];
        for (int i = 0; i < n; i++) {
            e[i] = new CqEntry();
        }
        return e;
    }

    /** A posted operation completing: reserve room, then write into it. */
    private static void post(UtilCompletionQueue cq, Object context) {
        assertEquals(0, cq.reserve(), "reserve");
        cq.complete(context, Fi.FI_RECV, 8, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
    }

    private static void postError(UtilCompletionQueue cq, Object context, int err) {
        assertEquals(0, cq.reserve(), "reserve");
        cq.completeError(context, Fi.FI_SEND, 0, null, 0, 0, 0, 0, err, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
    }

    /** A task on a thread of its own, so that a test can tell a hang from a result. */
    private static final class Async<T> {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final Thread thread;

        Async(String name, Callable<T> task) {
            thread = new Thread(() -> {
                try {
                    result.complete(task.call());
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            }, name);
            thread.setDaemon(true);
        }

        T get(String what) throws Exception {
            try {
                return result.get(BOUND_S, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return fail(what + ": no result within " + BOUND_S + " s (thread state " + thread.getState() + ")");
            } catch (ExecutionException e) {
                throw new AssertionError(what + " failed", e.getCause());
            }
        }
    }

    private <T> Async<T> async(String name, Callable<T> task) {
        Async<T> a = new Async<>(name, task);
        started.add(a);
        a.thread.start();
        return a;
    }

    /**
     * Gives a thread the chance to block before the test acts. The tests' outcomes do not
     * depend on it (a signal or write that comes first is remembered or found), it only
     * makes them exercise the wake-up path most of the time.
     */
    private static void letBlock(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < deadline) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED) {
                return;
            }
            Thread.sleep(1);
        }
    }

    // ------------------------------------------------------------------ R1

    @Test
    void r1EmptyReadReturnsEagain() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        assertEquals(-Errno.EAGAIN, cq.read(entries(4), 4));
        assertEquals(-Errno.EAGAIN, cq.readFrom(entries(4), 4, new long[4]));
    }

    @Test
    void r1ReadOfZeroEntriesTellsWhatWaitsWithoutTakingIt() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        CqEntry[] buf = entries(4);
        assertEquals(-Errno.EAGAIN, cq.read(buf, 0));
        post(cq, "a");
        assertEquals(0, cq.read(buf, 0));
        assertEquals(0, cq.read(new CqEntry[0], 0));
        assertEquals(1, cq.read(buf, 4), "read(buf, 0) took nothing");
        assertEquals("a", buf[0].context());
        postError(cq, "e", Errno.EIO);
        assertEquals(-Errno.EAVAIL, cq.read(buf, 0));
    }

    // ------------------------------------------------------------------ R2

    @Test
    void r2EntriesBeforeAnErrorThenEavailUntilReadErr() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        CqEntry[] buf = entries(8);
        CqErrEntry err = new CqErrEntry();
        assertEquals(-Errno.EAGAIN, cq.readErr(err, 0), "readErr with nothing queued");
        post(cq, "a");
        post(cq, "b");
        postError(cq, "e", Errno.ECANCELED);
        post(cq, "c");

        assertEquals(-Errno.EAGAIN, cq.readErr(err, 0), "readErr with a successful completion at the head");
        assertEquals(2, cq.read(buf, 8));
        assertEquals("a", buf[0].context());
        assertEquals("b", buf[1].context());
        assertEquals(-Errno.EAVAIL, cq.read(buf, 8));
        assertEquals(-Errno.EAVAIL, cq.readFrom(buf, 8, new long[8]), "still -EAVAIL until readErr");
        assertEquals(1, cq.readErr(err, 0));
        assertEquals("e", err.context());
        assertEquals(Errno.ECANCELED, err.err());
        assertEquals(Fi.FI_SEND, err.flags());
        assertEquals(-Errno.EAGAIN, cq.readErr(err, 0), "readErr took the only error");
        assertEquals(1, cq.read(buf, 8));
        assertEquals("c", buf[0].context());
        assertEquals(-Errno.EAGAIN, cq.read(buf, 8));
    }

    @Test
    void r2ErrorCompletionCarriesEveryField() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().format(CqFormat.CONTEXT));
        ByteBuffer b = ByteBuffer.allocate(64);
        assertEquals(0, cq.reserve());
        cq.completeError("ctx", Fi.FI_RECV | Fi.FI_MSG, 32, b, 4, 0x77, 0x99, 100, Errno.ETRUNC, 42, null, 0, 3);
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertEquals("ctx", e.context());
        assertEquals(Fi.FI_RECV | Fi.FI_MSG, e.flags());
        assertEquals(32, e.len());
        assertSame(b, e.buf());
        assertEquals(4, e.bufOffset());
        assertEquals(0x77, e.data());
        assertEquals(0x99, e.tag());
        assertEquals(100, e.olen());
        assertEquals(Errno.ETRUNC, e.err());
        assertEquals(42, e.provErrno());
    }

    @Test
    void r2ErrorWithoutCauseIsReportedAsEother() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        postError(cq, "x", 0);
        postError(cq, "y", -Errno.EIO);
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertEquals(Errno.FI_EOTHER, e.err());
        assertEquals(1, cq.readErr(e, 0));
        assertEquals(Errno.EIO, e.err());
    }

    // ------------------------------------------------------------------ R3

    @Test
    void r3CallerBufferGetsACopyOfAtMostItsLength() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        byte[] provider = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertEquals(0, cq.reserve());
        cq.completeError("x", 0, 0, null, 0, 0, 0, 0, Errno.EIO, 5, provider, 10, Fi.FI_ADDR_NOTAVAIL);
        byte[] mine = new byte[4];
        CqErrEntry e = new CqErrEntry().errData(mine);
        assertEquals(1, cq.readErr(e, 0));
        assertSame(mine, e.errData());
        assertEquals(4, e.errDataSize());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, mine);
    }

    @Test
    void r3WithoutCallerBufferTheProviderArrayIsHandedOver() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        byte[] provider = {9, 8, 7, 6, 5, 4};
        assertEquals(0, cq.reserve());
        cq.completeError("x", 0, 0, null, 0, 0, 0, 0, Errno.EIO, 5, provider, 3, Fi.FI_ADDR_NOTAVAIL);
        postError(cq, "next", Errno.EIO);
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertSame(provider, e.errData());
        assertEquals(3, e.errDataSize());
        CqErrEntry other = new CqErrEntry();
        assertEquals(1, cq.readErr(other, 0));
        assertArrayEquals(new byte[] {9, 8, 7, 6, 5, 4}, e.errData(), "still valid after a later read");
    }

    @Test
    void r3StrerrorUsesTheProvidersDescriberElseTheGenericText() throws Exception {
        UtilCompletionQueue generic = open(new CqAttr());
        String g = generic.strerror(Errno.ECONNRESET, new byte[3]);
        assertTrue(g.contains(Errno.strerror(Errno.ECONNRESET)) && g.contains("3 bytes"), g);

        UtilCompletionQueue described = new UtilCompletionQueue(new CqAttr(), null,
                (provErrno, data, size) -> "verbs status " + provErrno + " with " + size + " bytes");
        opened.add(described);
        assertEquals("verbs status 12 with 2 bytes", described.strerror(12, new byte[2]));
        assertEquals("verbs status 12 with 0 bytes", described.strerror(12, null));
    }

    @Test
    void r3StrerrorQuotesErrorDataThatIsText() throws Exception {
        UtilCompletionQueue generic = open(new CqAttr());
        byte[] reason = "malformed input from /127.0.0.1:4000: op above 4".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String s = generic.strerror(Errno.EPROTO, reason);
        assertTrue(s.contains(Errno.strerror(Errno.EPROTO)) && s.contains("\"malformed input from /127.0.0.1:4000: op above 4\""),
                "a reason the provider wrote as text is shown as text: " + s);
        byte[] sockaddr = {2, 0, 0x0f, (byte) 0xa0, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
        String b = generic.strerror(Errno.EADDRNOTAVAIL, sockaddr);
        assertTrue(b.contains("16 bytes") && b.contains("02 00 0f a0") && !b.contains("\""), "binary data stays hex: " + b);
    }

    // ------------------------------------------------------------------ R4

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"NONE", "SET"})
    void r4BlockingReadsWithoutWaitObjectAnswerEnosysAtOnce(WaitObj w) throws Exception {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        try {
            UtilCompletionQueue cq = open(new CqAttr().waitObj(w).waitSet(set));
            assertEquals(-Errno.ENOSYS, cq.sread(entries(1), 1, 0, -1));
            assertEquals(-Errno.ENOSYS, cq.sreadFrom(entries(1), 1, new long[1], 0, -1));
            // fi_cq(3): signal needs a wait object; a wait set is one (WaitSetMemberSignalTest).
            assertEquals(w == WaitObj.NONE ? -Errno.ENOSYS : 0, cq.signal());
            FabricException e = assertThrows(FabricException.class, cq::getWait);
            assertEquals(Errno.ENOSYS, e.errno());
            cq.close();
        } finally {
            set.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD", "YIELD"})
    void r4TimeoutReturnsEagain(WaitObj w) throws Exception {
        UtilCompletionQueue cq = open(w);
        assertEquals(-Errno.EAGAIN, cq.sread(entries(2), 2, 0, 20));
        assertEquals(-Errno.EAGAIN, cq.sread(entries(2), 2, 0, 0));
        assertEquals(-Errno.EAGAIN, cq.sreadFrom(entries(2), 2, new long[2], 0, 5));
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD", "YIELD"})
    void r4SignalWakesABlockedReader(WaitObj w) throws Exception {
        UtilCompletionQueue cq = open(w);
        Async<Integer> reader = async("reader", () -> cq.sread(entries(2), 2, 0, -1));
        letBlock(reader.thread);
        assertEquals(0, cq.signal());
        assertEquals(-Errno.EAGAIN, reader.get("sread after signal"));
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD", "YIELD"})
    void r4SignalWithNobodyWaitingIsRemembered(WaitObj w) throws Exception {
        UtilCompletionQueue cq = open(w);
        assertEquals(0, cq.signal());
        // Forever: only the remembered signal can make it return.
        Async<Integer> reader = async("reader", () -> cq.sread(entries(2), 2, 0, -1));
        try {
            assertEquals(-Errno.EAGAIN, reader.get("sread after a remembered signal"));
        } finally {
            cq.signal(); // releases a reader that missed it, so the failure is reported cleanly
        }
        // Consumed: the next blocking read times out again.
        assertEquals(-Errno.EAGAIN, cq.sread(entries(2), 2, 0, 1));
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD", "YIELD"})
    void r4InterruptReturnsEagainAndKeepsTheStatus(WaitObj w) throws Exception {
        UtilCompletionQueue cq = open(w);
        Async<Boolean> reader = async("reader", () -> {
            int rc = cq.sread(entries(2), 2, 0, -1);
            assertEquals(-Errno.EAGAIN, rc);
            return Thread.currentThread().isInterrupted();
        });
        letBlock(reader.thread);
        reader.thread.interrupt();
        assertTrue(reader.get("sread after interrupt"), "interrupt status kept");
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD", "YIELD"})
    void r4NegativeTimeoutWaitsUntilAProducerWrites(WaitObj w) throws Exception {
        UtilCompletionQueue cq = open(w);
        CqEntry[] buf = entries(4);
        Async<Integer> reader = async("reader", () -> cq.sread(buf, 4, 0, -1));
        letBlock(reader.thread);
        assertFalse(reader.result.isDone(), "returned before anything was written");
        Async<Void> producer = async("producer", () -> {
            post(cq, "from another thread");
            return null;
        });
        producer.get("producer");
        assertEquals(1, reader.get("sread"));
        assertEquals("from another thread", buf[0].context());
    }

    @Test
    void r4SreadReturnsAtOnceWhenSomethingIsThere() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.UNSPEC);
        post(cq, "a");
        post(cq, "b");
        CqEntry[] buf = entries(4);
        long[] src = new long[4];
        assertEquals(2, cq.sreadFrom(buf, 4, src, 0, -1));
        postError(cq, "e", Errno.EIO);
        assertEquals(-Errno.EAVAIL, cq.sread(buf, 4, 0, -1));
    }

    @Test
    void fdWaitObjectIsReadableExactlyWhileSomethingIsQueued() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.FD);
        WaitObject wo = cq.getWait();
        WaitObject.Fd fd = assertInstanceOf(WaitObject.Fd.class, wo);
        try (Selector selector = Selector.open()) {
            SelectionKey key = fd.channel().register(selector, SelectionKey.OP_READ);
            assertEquals(0, selector.selectNow(), "empty CQ: not readable");

            post(cq, "a");
            assertEquals(1, selector.select(TimeUnit.SECONDS.toMillis(BOUND_S)), "entry queued: readable");
            assertTrue(key.isReadable());
            selector.selectedKeys().clear();
            assertEquals(1, selector.selectNow(), "not read yet: still readable");

            assertEquals(1, cq.read(entries(2), 2));
            selector.selectedKeys().clear();
            assertEquals(0, selector.selectNow(), "drained: not readable");

            postError(cq, "e", Errno.EIO);
            assertEquals(1, selector.select(TimeUnit.SECONDS.toMillis(BOUND_S)), "error at the head: readable");
            selector.selectedKeys().clear();
            assertEquals(1, cq.readErr(new CqErrEntry(), 0));
            assertEquals(0, selector.selectNow(), "error taken: not readable");
        }
    }

    @Test
    void fdWaitObjectIsReadableWhenOverrun() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(1).waitObj(WaitObj.FD));
        WaitObject.Fd fd = (WaitObject.Fd) cq.getWait();
        try (Selector selector = Selector.open()) {
            fd.channel().register(selector, SelectionKey.OP_READ);
            assertTrue(cq.completeUnsolicited("u", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
            assertFalse(cq.completeUnsolicited("v", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
            assertTrue(cq.isOverrun());
            assertEquals(1, selector.select(TimeUnit.SECONDS.toMillis(BOUND_S)));
            selector.selectedKeys().clear();
            assertEquals(1, cq.read(entries(1), 1), "the valid entry");
            assertEquals(-Errno.EOVERRUN, cq.read(entries(1), 1));
            assertEquals(1, selector.selectNow(), "no entry left, but overrun: still readable");
        }
    }

    @Test
    void mutexCondExportedLockAndConditionWakeAnApplicationWaiter() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.MUTEX_COND);
        WaitObject.MutexCond mc = assertInstanceOf(WaitObject.MutexCond.class, cq.getWait());
        Lock mutex = mc.mutex();
        Condition cond = mc.cond();
        CqEntry[] buf = entries(1);
        Async<Integer> app = async("app", () -> {
            mutex.lock();
            try {
                int rc;
                while ((rc = cq.read(buf, 1)) == -Errno.EAGAIN) {
                    // Longer than the test waits: only the provider's signal can end this in time.
                    cond.await(1, TimeUnit.MINUTES);
                }
                return rc;
            } finally {
                mutex.unlock();
            }
        });
        letBlock(app.thread);
        post(cq, "signalled");
        assertEquals(1, app.get("application waiting on the exported condition"));
        assertEquals("signalled", buf[0].context());
    }

    @Test
    void getWaitOfWaitObjectsWithNothingToExportIsEnosys() throws Exception {
        for (WaitObj w : new WaitObj[] {WaitObj.NONE, WaitObj.UNSPEC, WaitObj.YIELD}) {
            FabricException e = assertThrows(FabricException.class, open(w)::getWait, w.name());
            assertEquals(Errno.ENOSYS, e.errno(), w.name());
        }
    }

    @Test
    void waitSetIsSignalledByWrites() throws Exception {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        try {
            UtilCompletionQueue cq = open(new CqAttr().waitObj(WaitObj.SET).waitSet(set));
            assertEquals(-Errno.EAGAIN, set.await(0));
            post(cq, "a");
            assertEquals(0, set.await(-1));
            cq.close();
        } finally {
            set.close();
        }
    }

    @Test
    void waitSetObjectRequiresAWaitSet() {
        FabricException e = assertThrows(FabricException.class,
                () -> new UtilCompletionQueue(new CqAttr().waitObj(WaitObj.SET), null));
        assertEquals(Errno.EINVAL, e.errno());
    }

    // ------------------------------------------------------------------ R5

    @Test
    void r5ThresholdReturnsOnlyWhenEnoughAreQueued() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(16).waitObj(WaitObj.UNSPEC).waitCond(CqWaitCond.THRESHOLD));
        CqEntry[] buf = entries(10);
        post(cq, 0);
        post(cq, 1);
        post(cq, 2);
        Async<Integer> reader = async("reader", () -> cq.sread(buf, 10, 5, -1));
        letBlock(reader.thread);
        Thread.sleep(50); // room for a wrong early return; the check below cannot fail otherwise
        assertFalse(reader.result.isDone(), "returned with 3 of 5 queued: " + reader.result.getNow(null));
        post(cq, 3);
        post(cq, 4);
        assertEquals(5, reader.get("threshold sread"));
        for (int i = 0; i < 5; i++) {
            assertEquals(i, buf[i].context());
        }
    }

    @Test
    void r5ThresholdOnTimeoutReturnsWhatIsThere() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(16).waitObj(WaitObj.UNSPEC).waitCond(CqWaitCond.THRESHOLD));
        post(cq, "a");
        post(cq, "b");
        CqEntry[] buf = entries(10);
        assertEquals(2, cq.sread(buf, 10, 5, 20));
        assertEquals(-Errno.EAGAIN, cq.sread(buf, 10, 5, 5));
    }

    @Test
    void r5ThresholdReturnsAtMostCount() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(16).waitObj(WaitObj.UNSPEC).waitCond(CqWaitCond.THRESHOLD));
        for (int i = 0; i < 6; i++) {
            post(cq, i);
        }
        CqEntry[] buf = entries(10);
        assertEquals(2, cq.sread(buf, 2, 5, -1));
        assertEquals(4, cq.read(buf, 10));
    }

    @Test
    void r5ThresholdOnSignalReturnsWhatIsThere() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(16).waitObj(WaitObj.FD).waitCond(CqWaitCond.THRESHOLD));
        post(cq, "a");
        CqEntry[] buf = entries(10);
        Async<Integer> reader = async("reader", () -> cq.sread(buf, 10, 8, -1));
        letBlock(reader.thread);
        cq.signal();
        assertEquals(1, reader.get("threshold sread after signal"));
    }

    @Test
    void r5CondIsIgnoredWithoutThreshold() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.UNSPEC);
        post(cq, "a");
        CqEntry[] buf = entries(10);
        Async<Integer> reader = async("reader", () -> cq.sread(buf, 10, 5, -1));
        assertEquals(1, reader.get("sread with cond 5 and wait_cond NONE"));
    }

    @Test
    void r5ThresholdAboveCapacityIsMetByAFullQueue() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(4).waitObj(WaitObj.UNSPEC).waitCond(CqWaitCond.THRESHOLD));
        for (int i = 0; i < 4; i++) {
            post(cq, i);
        }
        Async<Integer> reader = async("reader", () -> cq.sread(entries(8), 8, 100, -1));
        assertEquals(4, reader.get("threshold larger than the CQ"));
    }

    // ------------------------------------------------------------------ R6

    @Test
    void r6SizesAreDefaultedAndRoundedUp() throws Exception {
        assertEquals(1024, open(new CqAttr()).attr().size());
        assertEquals(1024, open((CqAttr) null).capacity());
        assertEquals(1, open(new CqAttr().size(1)).capacity());
        assertEquals(1024, open(new CqAttr().size(1000)).attr().size());
        assertEquals(2048, open(new CqAttr().size(1025)).attr().size());
        assertEquals(65536, open(new CqAttr().size(65536)).attr().size());
        for (long bad : new long[] {-1, (1 << 22) + 1, Long.MAX_VALUE}) {
            FabricException e = assertThrows(FabricException.class, () -> new UtilCompletionQueue(new CqAttr().size(bad), null));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains(Long.toString(bad)), e.getMessage());
        }
    }

    @Test
    void r6AttrReportsDefaultsFilledIn() throws Exception {
        CqAttr asked = new CqAttr().size(100).waitObj(WaitObj.FD).waitCond(CqWaitCond.THRESHOLD)
                .flags(Fi.FI_AFFINITY).signalingVector(3);
        UtilCompletionQueue cq = open(asked);
        CqAttr got = cq.attr();
        assertEquals(128, got.size());
        assertEquals(CqFormat.CONTEXT, got.format());
        assertEquals(WaitObj.FD, got.waitObj());
        assertEquals(CqWaitCond.THRESHOLD, got.waitCond());
        assertEquals(Fi.FI_AFFINITY, got.flags());
        assertEquals(3, got.signalingVector());
        assertEquals(100, asked.size(), "the caller's attributes are not changed");
        got.size(7);
        assertEquals(128, cq.attr().size(), "attr() is a copy");
        assertSame("cq-context", cq.context());
    }

    @Test
    void flagsOtherThanAffinityAreRejected() {
        FabricException e = assertThrows(FabricException.class,
                () -> new UtilCompletionQueue(new CqAttr().flags(Fi.FI_AFFINITY | Fi.FI_SEND), null));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains(Long.toHexString(Fi.FI_SEND)), e.getMessage());
    }

    @Test
    void r6ReserveFailsWithEagainWhenTheCqCouldNotHoldTheCompletion() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(4));
        for (int i = 0; i < 4; i++) {
            assertEquals(0, cq.reserve(), "reserve " + i);
        }
        assertEquals(-Errno.EAGAIN, cq.reserve());
        cq.unreserve();
        assertEquals(0, cq.reserve(), "unreserve gave the room back");
        for (int i = 0; i < 4; i++) {
            cq.complete(i, 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        }
        assertEquals(-Errno.EAGAIN, cq.reserve(), "full of completions");
        CqEntry[] buf = entries(2);
        assertEquals(2, cq.read(buf, 2));
        assertEquals(0, cq.reserve(), "reading made room");
        assertEquals(0, cq.reserve());
        assertEquals(-Errno.EAGAIN, cq.reserve());
        assertFalse(cq.isOverrun(), "a refused post is not an overrun");
    }

    @Test
    void r6UnsolicitedCompletionsOverrunAFullCq() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(4));
        assertEquals(0, cq.reserve(), "a post in flight keeps its room");
        for (int i = 0; i < 3; i++) {
            assertTrue(cq.completeUnsolicited(i, Fi.FI_REMOTE_CQ_DATA, 0, null, 0, i, 0, Fi.FI_ADDR_NOTAVAIL));
        }
        assertFalse(cq.isOverrun());
        assertFalse(cq.completeUnsolicited(99, 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
        assertFalse(cq.completeUnsolicitedError(98, 0, 0, null, 0, 0, 0, 0, Errno.EIO, 0, null, 0,
                Fi.FI_ADDR_NOTAVAIL));
        assertTrue(cq.isOverrun());
        // fi_cq(3): an overrun CQ "may not be used to report additional completions"
        cq.complete("reserved", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);

        CqEntry[] buf = entries(8);
        assertEquals(3, cq.read(buf, 8), "every valid entry first, none written after the overrun");
        assertEquals(0, buf[0].context());
        assertEquals(2, buf[2].context());
        assertEquals(-Errno.EOVERRUN, cq.read(buf, 8));
        assertEquals(-Errno.EOVERRUN, cq.read(buf, 0));
        CqErrEntry e = new CqErrEntry();
        for (int i = 0; i < 2; i++) {
            assertEquals(1, cq.readErr(e, 0));
            assertEquals(Errno.EOVERRUN, e.err(), "readErr call " + i);
        }
        assertTrue(cq.hasEvents());

        assertEquals(-Errno.EOVERRUN, cq.reserve(), "posts are refused, for good, once overrun (R6)");
        assertFalse(cq.completeUnsolicited("later", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL),
                "nothing more is queued although the reads made room");
        cq.completeError("reserved-error", 0, 0, null, 0, 0, 0, 0, Errno.EIO, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
        assertEquals(-Errno.EOVERRUN, cq.read(buf, 8), "overrun until closed");
        assertEquals(1, cq.readErr(e, 0));
        assertEquals(Errno.EOVERRUN, e.err(), "no error completion after the overrun either");
    }

    @Test
    void r6ErrorsQueuedBeforeAnOverrunAreStillReported() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(2));
        assertTrue(cq.completeUnsolicitedError("e", 0, 0, null, 0, 0, 0, 0, Errno.EIO, 0, null, 0,
                Fi.FI_ADDR_NOTAVAIL));
        assertTrue(cq.completeUnsolicited("a", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
        assertFalse(cq.completeUnsolicited("lost", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
        assertEquals(-Errno.EAVAIL, cq.read(entries(2), 2));
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertEquals(Errno.EIO, e.err());
        assertEquals("e", e.context());
        assertEquals(1, cq.read(entries(2), 2));
        assertEquals(-Errno.EOVERRUN, cq.read(entries(2), 2));
    }

    // ------------------------------------------------------------------ formats

    @ParameterizedTest
    @EnumSource(CqFormat.class)
    void onlyTheFieldsOfTheFormatAreCopied(CqFormat format) throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().format(format));
        ByteBuffer b = ByteBuffer.allocateDirect(16);
        assertEquals(0, cq.reserve());
        cq.complete("ctx", Fi.FI_RECV | Fi.FI_TAGGED, 12, b, 3, 0xDA7AL, 0x7A6L, 5);
        CqEntry[] buf = entries(1);
        buf[0].set("stale", -1, -1, ByteBuffer.allocate(1), -1, -1, -1);
        assertEquals(1, cq.read(buf, 1));
        CqEntry e = buf[0];
        CqFormat f = format == CqFormat.UNSPEC ? CqFormat.CONTEXT : format;
        assertEquals(f, cq.attr().format());
        assertEquals("ctx", e.context());
        boolean msg = f != CqFormat.CONTEXT;
        boolean data = f == CqFormat.DATA || f == CqFormat.TAGGED;
        assertEquals(msg ? Fi.FI_RECV | Fi.FI_TAGGED : 0, e.flags());
        assertEquals(msg ? 12 : 0, e.len());
        if (data) {
            assertSame(b, e.buf());
        } else {
            assertNull(e.buf());
        }
        assertEquals(data ? 3 : 0, e.bufOffset());
        assertEquals(data ? 0xDA7AL : 0, e.data());
        assertEquals(f == CqFormat.TAGGED ? 0x7A6L : 0, e.tag());
    }

    // ------------------------------------------------------------------ R10

    @Test
    void r10ReadFromReportsEachSender() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.UNSPEC);
        long[] senders = {7, Fi.FI_ADDR_NOTAVAIL, 9};
        for (int i = 0; i < 3; i++) {
            assertEquals(0, cq.reserve());
            cq.complete(i, Fi.FI_RECV, 1, null, 0, 0, 0, senders[i]);
        }
        long[] src = new long[4];
        CqEntry[] buf = entries(4);
        assertEquals(2, cq.readFrom(buf, 2, src));
        assertEquals(7, src[0]);
        assertEquals(Fi.FI_ADDR_NOTAVAIL, src[1]);
        assertEquals(1, cq.sreadFrom(buf, 4, src, 0, -1));
        assertEquals(9, src[0]);
        assertEquals(2, buf[0].context());
    }

    // ------------------------------------------------------------------ bad arguments

    @Test
    void badArgumentsAreEinvalAndConsumeNothing() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.UNSPEC);
        post(cq, "kept");
        CqEntry[] buf = entries(4);
        CqEntry[] holey = entries(4);
        holey[2] = null;
        assertEquals(-Errno.EINVAL, cq.read(null, 1));
        assertEquals(-Errno.EINVAL, cq.read(null, 0));
        assertEquals(-Errno.EINVAL, cq.read(buf, -1));
        assertEquals(-Errno.EINVAL, cq.read(buf, 5));
        assertEquals(-Errno.EINVAL, cq.read(holey, 3));
        assertEquals(-Errno.EINVAL, cq.readFrom(buf, 4, new long[3]));
        assertEquals(-Errno.EINVAL, cq.readFrom(buf, 4, null));
        assertEquals(-Errno.EINVAL, cq.sread(holey, 4, 0, -1));
        assertEquals(-Errno.EINVAL, cq.sread(buf, 5, 0, -1));
        assertEquals(-Errno.EINVAL, cq.sreadFrom(buf, 2, new long[1], 0, -1));
        assertEquals(-Errno.EINVAL, cq.readErr(null, 0));
        assertEquals(1, cq.read(holey, 2), "a null entry beyond count is fine");
        assertEquals("kept", holey[0].context(), "nothing was consumed by the bad calls");
    }

    // ------------------------------------------------------------------ R9

    @Test
    void r9CloseWhileBoundIsEbusyAndChangesNothing() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        cq.retain();
        post(cq, "a");
        FabricException e = assertThrows(FabricException.class, cq::close);
        assertEquals(Errno.EBUSY, e.errno());
        assertTrue(cq.isOpen());
        assertEquals(1, cq.read(entries(1), 1), "still usable");
        cq.release();
        cq.close();
        assertFalse(cq.isOpen());
        cq.close(); // closing twice does nothing
    }

    @Test
    void r9DataPathOnAClosedCqIsEbadfAndLateCompletionsAreDropped() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.FD);
        assertEquals(0, cq.reserve());
        post(cq, "lost");
        cq.close();
        CqEntry[] buf = entries(2);
        assertEquals(-Errno.EBADF, cq.read(buf, 2));
        assertEquals(-Errno.EBADF, cq.read(buf, 0));
        assertEquals(-Errno.EBADF, cq.readFrom(buf, 2, new long[2]));
        assertEquals(-Errno.EBADF, cq.readErr(new CqErrEntry(), 0));
        assertEquals(-Errno.EBADF, cq.sread(buf, 2, 0, -1));
        assertEquals(-Errno.EBADF, cq.sreadFrom(buf, 2, new long[2], 0, -1));
        assertEquals(-Errno.EBADF, cq.signal());
        assertEquals(-Errno.EBADF, cq.reserve());
        // A provider completing a post that was in flight: dropped, no exception.
        cq.complete("late", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        cq.completeError("late", 0, 0, null, 0, 0, 0, 0, Errno.EIO, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
        assertFalse(cq.completeUnsolicited("late", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, cq::getWait).errno());
        assertThrows(FabricException.class, cq::retain);
    }

    @Test
    void closeWakesABlockedReader() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.UNSPEC);
        Async<Integer> reader = async("reader", () -> cq.sread(entries(1), 1, 0, -1));
        letBlock(reader.thread);
        cq.close();
        assertEquals(-Errno.EBADF, reader.get("sread across close"));
    }

    // ------------------------------------------------------------------ R15

    @Test
    void r15DepartedCqStaysReadableThenAnswersEnodev() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.UNSPEC);
        post(cq, "a");
        postError(cq, "cancelled", Errno.ECANCELED);
        cq.depart();
        assertTrue(cq.isDeparted());
        CqEntry[] buf = entries(4);
        assertEquals(1, cq.read(buf, 4));
        assertEquals(-Errno.EAVAIL, cq.read(buf, 4));
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertEquals(Errno.ECANCELED, e.err());
        assertEquals(-Errno.ENODEV, cq.read(buf, 4));
        assertEquals(-Errno.ENODEV, cq.read(buf, 0));
        assertEquals(-Errno.ENODEV, cq.readErr(e, 0));
        assertEquals(-Errno.ENODEV, cq.sread(buf, 4, 0, -1), "a blocking read of a drained departed CQ returns");
        assertEquals(Errno.ENODEV, assertThrows(FabricException.class, cq::getWait).errno());
    }

    @Test
    void r15ProviderMayStillFlushIntoADepartedCq() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(2));
        assertEquals(0, cq.reserve());
        cq.depart();
        assertEquals(0, cq.reserve(), "room that is free may be taken while departing");
        assertEquals(-Errno.ENODEV, cq.reserve(), "departed and full");
        cq.completeError("p1", 0, 0, null, 0, 0, 0, 0, Errno.ECANCELED, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
        cq.completeError("p2", 0, 0, null, 0, 0, 0, 0, Errno.ECANCELED, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
        CqErrEntry e = new CqErrEntry();
        assertEquals(1, cq.readErr(e, 0));
        assertEquals("p1", e.context());
        assertEquals(1, cq.readErr(e, 0));
        assertEquals("p2", e.context());
        assertEquals(-Errno.ENODEV, cq.read(entries(1), 1));
    }

    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "MUTEX_COND", "FD", "YIELD"})
    void r15DepartureWakesABlockedReader(WaitObj w) throws Exception {
        UtilCompletionQueue cq = open(w);
        Async<Integer> reader = async("reader", () -> cq.sread(entries(1), 1, 0, -1));
        letBlock(reader.thread);
        cq.depart();
        assertEquals(-Errno.ENODEV, reader.get("sread across departure"));
    }

    @Test
    void r15DepartedCqIsReadableOnItsFd() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.FD);
        WaitObject.Fd fd = (WaitObject.Fd) cq.getWait();
        try (Selector selector = Selector.open()) {
            fd.channel().register(selector, SelectionKey.OP_READ);
            assertEquals(0, selector.selectNow());
            cq.depart();
            assertEquals(1, selector.select(TimeUnit.SECONDS.toMillis(BOUND_S)),
                    "a selector-driven application must come and learn -ENODEV");
        }
    }

    // ------------------------------------------------------------------ manual progress, Pollable

    @Test
    void readsDriveAttachedManualProgress() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        AtomicInteger steps = new AtomicInteger();
        AtomicInteger toWrite = new AtomicInteger(2);
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "test-progress", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                steps.incrementAndGet();
                if (toWrite.getAndDecrement() > 0) {
                    post(cq, "progressed");
                    return 1;
                }
                return 0;
            }

            @Override
            public void wakeup() {
            }
        });
        try {
            assertEquals(-Errno.EAGAIN, cq.read(entries(1), 1), "not attached: nothing drives it");
            assertEquals(0, steps.get());
            cq.attachProgress(engine);
            assertEquals(0, cq.read(entries(1), 0), "R1: read(buf, 0) drives progress");
            assertEquals(1, steps.get());
            CqEntry[] buf = entries(4);
            assertEquals(2, cq.read(buf, 4), "the queued entry and the one this read's progress wrote");
            assertEquals("progressed", buf[1].context());
            assertEquals(2, steps.get());
            assertFalse(cq.hasEvents());
            assertEquals(3, steps.get(), "hasEvents drives progress");
            cq.readErr(new CqErrEntry(), 0);
            assertEquals(4, steps.get(), "readErr drives progress");
            cq.detachProgress(engine);
            cq.read(buf, 4);
            assertEquals(4, steps.get(), "detached: no longer driven");
        } finally {
            engine.close();
        }
    }

    @Test
    void hasEventsReportsEntriesErrorsAndOverrun() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(1));
        assertFalse(cq.hasEvents());
        assertSame(cq.waitSupport(), cq.waitSupport());
        post(cq, "a");
        assertTrue(cq.hasEvents());
        assertEquals(1, cq.read(entries(1), 1));
        assertFalse(cq.hasEvents());
        postError(cq, "e", Errno.EIO);
        assertTrue(cq.hasEvents());
        assertEquals(1, cq.readErr(new CqErrEntry(), 0));
        assertFalse(cq.hasEvents());
        assertTrue(cq.completeUnsolicited("u", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
        assertFalse(cq.completeUnsolicited("v", 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL));
        assertEquals(1, cq.read(entries(1), 1));
        assertTrue(cq.hasEvents(), "overrun");
    }

    @Test
    void deferredCompletionsWakeReadersOncePerBatch() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.UNSPEC);
        CqEntry[] buf = entries(8);
        Async<Integer> reader = async("reader", () -> cq.sread(buf, 8, 0, -1));
        letBlock(reader.thread);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, cq.reserve());
            cq.completeDeferred(i, 0, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        }
        cq.wakeReaders();
        int n = reader.get("sread after a deferred batch");
        assertTrue(n >= 1 && n <= 3, "n " + n);
        assertEquals(0, buf[0].context());
    }

    @Test
    void tryWaitSeesTheQueue() throws Exception {
        UtilCompletionQueue cq = open(WaitObj.FD);
        assertEquals(0, TryWait.tryWait(cq));
        post(cq, "a");
        assertEquals(-Errno.EAGAIN, TryWait.tryWait(cq));
    }

    @Test
    void contextsComeBackByIdentity() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr());
        Object ctx = new Object();
        post(cq, ctx);
        CqEntry[] buf = entries(1);
        assertEquals(1, cq.read(buf, 1));
        assertSame(ctx, buf[0].context());
    }

    @Test
    void ringWrapsAroundManyTimes() throws Exception {
        UtilCompletionQueue cq = open(new CqAttr().size(8).format(CqFormat.TAGGED));
        CqEntry[] buf = entries(5);
        long[] src = new long[5];
        long next = 0;
        long expected = 0;
        for (int round = 0; round < 1000; round++) {
            int writes = 1 + round % 8;
            for (int i = 0; i < writes && cq.reserve() == 0; i++) {
                cq.complete(null, 0, 0, null, 0, 0, next, next);
                next++;
            }
            int n = cq.readFrom(buf, 1 + round % 5, src);
            for (int i = 0; i < n; i++) {
                assertEquals(expected, buf[i].tag());
                assertEquals(expected, src[i]);
                expected++;
            }
        }
        int n;
        while ((n = cq.read(buf, 5)) > 0) {
            for (int i = 0; i < n; i++) {
                assertEquals(expected++, buf[i].tag());
            }
        }
        assertEquals(next, expected);
        assertEquals(-Errno.EAGAIN, n);
    }
}
