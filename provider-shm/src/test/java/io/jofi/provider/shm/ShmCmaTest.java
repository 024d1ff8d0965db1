package io.jofi.provider.shm;

import static io.jofi.provider.shm.ShmCrossProcessTest.assertPattern;
import static io.jofi.provider.shm.ShmCrossProcessTest.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.TaggedMsg;
import io.jofi.provider.shm.cma.CrossMemoryAttach;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Large messages by cross-memory attach between two endpoints of this JVM (process_vm_readv
 * of one's own pid takes the same path as between processes; {@link ShmCmaCrossProcessTest}
 * proves it across JVMs): the probe, 1 MiB and odd sizes, iovecs, heap receive buffers,
 * truncation, unexpected-then-posted, multi-receive, tagged PEEK/CLAIM/DISCARD, CMA off
 * (threshold 0 and a failed probe: the bounce path still carries everything), a hostile
 * record with a bad address, and no allocation per message.
 */
@Timeout(60)
class ShmCmaTest {
    private static final int MIB = 1 << 20;
    /** The CMA threshold these tests exercise, set on their own test beds (the default's value today). */
    static final int THRESHOLD = 32 << 10;
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        assertTrue(CrossMemoryAttach.available(), String.valueOf(CrossMemoryAttach.unavailableReason()));
        dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmcma-");
    }

    @AfterAll
    static void remove() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    /** A test bed whose provider sends by CMA from {@link #THRESHOLD} up. */
    private static ShmTestBed bed(Progress progress) throws FabricException {
        return new ShmTestBed(new ShmProvider().directory(dir).cmaThreshold(THRESHOLD), progress);
    }

    /** Sends {@code out} to {@code b}, which receives into {@code in}; both complete. */
    private static CqEntry transfer(ShmTestBed a, ShmTestBed b, long toB, ByteBuffer out, ByteBuffer in, String what) {
        Object ctx = "r-" + what;
        b.post(() -> b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, ctx), "recv " + what);
        a.post(() -> a.ep.send(out, null, toB, "s-" + what), "send " + what);
        CqEntry e = b.completion(b.rxCq, "receive of " + what);
        assertSame(ctx, e.context());
        assertEquals("s-" + what, a.completion(a.txCq, "send of " + what).context());
        return e;
    }

    /** The first qualifying message probes (and goes by bounce); then 1 MiB and odd sizes go by CMA, intact. */
    @Test
    void largeMessagesGoByCmaOnceTheProbeSucceeded() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO); ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            ByteBuffer first = pattern(MIB, 1);
            ByteBuffer in = ByteBuffer.allocateDirect(MIB + 7);
            transfer(a, b, toB, first, in, "the first");
            assertPattern(in, MIB, 1, "the first 1 MiB (bounce path)");
            assertEquals(0, ShmCountersTest.value(a.ep, "CMA messages sent"), "the message that started the probe took the bounce path");
            awaitCmaOn(a, toB);
            int[] sizes = {MIB, THRESHOLD, MIB + 7, 1_000_003, 40_000};
            for (int k = 0; k < sizes.length; k++) {
                int n = sizes[k];
                ByteBuffer out = pattern(n, 3 * k);
                in.clear();
                CqEntry e = transfer(a, b, toB, out, in, "size " + n);
                assertEquals(n, e.len());
                assertPattern(in, n, 3 * k, n + " bytes by CMA");
            }
            assertEquals(sizes.length, ShmCountersTest.value(a.ep, "CMA messages sent"));
            assertEquals(sizes.length, ShmCountersTest.value(b.ep, "CMA messages read"));
            // below the threshold: not CMA (this said 32 << 10 - 1, which is 16 KiB: the edge went untested)
            in.clear();
            transfer(a, b, toB, pattern(THRESHOLD - 1, 9), in, "below the threshold");
            assertPattern(in, THRESHOLD - 1, 9, "one byte below the threshold, by bounce slot");
            assertEquals(sizes.length, ShmCountersTest.value(a.ep, "CMA messages sent"));
        }
    }

    /** Sender iovecs (a slice at an offset too) into two receive iovecs, one of them a heap buffer. */
    @Test
    void iovecsAndHeapReceiveBuffers() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO); ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            warmUp(a, b, toB);
            int total = 300_000;
            ByteBuffer whole = pattern(total, 5);
            ByteBuffer p0 = whole.duplicate().position(0).limit(100_000).slice();
            ByteBuffer p1 = whole.duplicate().position(100_000).limit(100_001);
            ByteBuffer p2 = whole.duplicate().position(100_001).limit(total);
            Msg m = new Msg().iov(0, p0, null).iov(1, p1, null).iov(2, p2, null).iovCount(3).addr(toB).context("iov");
            ByteBuffer heap = ByteBuffer.allocate(150_000 + 10).position(10);
            ByteBuffer direct = ByteBuffer.allocateDirect(200_000);
            Msg r = new Msg().iov(0, heap, null).iov(1, direct, null).iovCount(2).context("riov");
            b.post(() -> b.ep.recvMsg(r, Fi.FI_COMPLETION), "recvMsg");
            a.post(() -> a.ep.sendMsg(m, Fi.FI_COMPLETION), "sendMsg");
            CqEntry e = b.completion(b.rxCq, "the iovec message");
            assertEquals(total, e.len());
            assertEquals("iov", a.completion(a.txCq, "sendMsg").context());
            for (int i = 0; i < 150_000; i++) {
                assertEquals((byte) (5 + i), heap.get(10 + i), "heap byte " + i);
            }
            for (int i = 0; i < total - 150_000; i++) {
                assertEquals((byte) (5 + 150_000 + i), direct.get(i), "direct byte " + i);
            }
            assertEquals(1, ShmCountersTest.value(a.ep, "CMA messages sent"));
            // a heap send buffer is not CMA (there is no address to read it at): bounce, intact
            ByteBuffer heapOut = ByteBuffer.allocate(100_000);
            for (int i = 0; i < heapOut.capacity(); i++) {
                heapOut.put(i, (byte) (i * 7));
            }
            ByteBuffer in = ByteBuffer.allocateDirect(100_000);
            transfer(a, b, toB, heapOut, in, "heap source");
            assertEquals(heapOut, in.clear());
            assertEquals(1, ShmCountersTest.value(a.ep, "CMA messages sent"));
        }
    }

    /** R12: a CMA message into a smaller buffer is ETRUNC (len placed, olen dropped); the send completes. */
    @Test
    void truncation() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO); ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            warmUp(a, b, toB);
            ByteBuffer in = ByteBuffer.allocateDirect(64 << 10);
            b.post(() -> b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "small"), "recv");
            a.post(() -> a.ep.send(pattern(100 << 10, 4), null, toB, "big"), "send");
            CqErrEntry e = b.error(b.rxCq, "the truncated receive");
            assertEquals(Errno.ETRUNC, e.err());
            assertEquals(64 << 10, e.len());
            assertEquals(36 << 10, e.olen());
            assertPattern(in, 64 << 10, 4, "the part that fit");
            assertEquals("big", a.completion(a.txCq, "the truncated send").context(), "the sender completes");
            assertEquals(1, ShmCountersTest.value(a.ep, "CMA messages sent"));
        }
    }

    /** A CMA message without a receive keeps only its descriptor; the send completes once a receive takes it. */
    @Test
    void unexpectedThenPosted() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO); ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            warmUp(a, b, toB);
            ByteBuffer out = pattern(MIB, 8);
            a.post(() -> a.ep.send(out, null, toB, "early"), "send");
            CqEntry[] one = {new CqEntry()};
            long deadline = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < deadline) {
                assertEquals(-Errno.EAGAIN, a.txCq.read(one, 1), "no send completion while nothing read the message");
                Thread.onSpinWait();
            }
            ByteBuffer in = ByteBuffer.allocateDirect(MIB);
            b.post(() -> b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "late"), "recv");
            assertEquals("late", b.completion(b.rxCq, "the late receive").context());
            assertEquals("early", a.completion(a.txCq, "the send").context());
            assertPattern(in, MIB, 8, "read when the receive came");
            assertEquals(1, ShmCountersTest.value(b.ep, "CMA messages read"));
        }
    }

    /** FI_MULTI_RECV: CMA messages land one after another in the buffer. */
    @Test
    void multiReceive() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO); ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            warmUp(a, b, toB);
            ByteBuffer multi = ByteBuffer.allocateDirect(250_000);
            b.post(() -> b.ep.recvMsg(new Msg().buffer(multi, null).context("multi"), Fi.FI_MULTI_RECV | Fi.FI_COMPLETION),
                    "multi recv");
            for (int k = 0; k < 2; k++) {
                int seed = 20 + k;
                a.post(() -> a.ep.send(pattern(100_000, seed), null, toB, "m"), "send");
                a.completion(a.txCq, "send " + k);
                CqEntry e = b.completion(b.rxCq, "message " + k);
                assertEquals(100_000, e.len());
                assertSame(multi, e.buf());
                assertEquals(100_000 * k, e.bufOffset());
                ByteBuffer at = multi.duplicate().position(100_000 * k).slice();
                assertPattern(at, 100_000, seed, "message " + k + " in the multi-receive buffer");
            }
            assertEquals(2, ShmCountersTest.value(b.ep, "CMA messages read"));
        }
    }

    /** Tagged: FI_PEEK | FI_CLAIM then FI_CLAIM reads the message; FI_PEEK | FI_DISCARD drops one and its sender completes. */
    @Test
    void taggedPeekClaimDiscard() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO); ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            warmUp(a, b, toB);
            a.post(() -> a.ep.tsend(pattern(200_000, 11), null, toB, 0x71, "t1"), "tsend 1");
            a.post(() -> a.ep.tsend(pattern(50_000, 12), null, toB, 0x72, "t2"), "tsend 2");
            Object claim = "claim";
            TaggedMsg peek = new TaggedMsg();
            peek.tag(0x71).ignore(0).addr(Fi.FI_ADDR_UNSPEC).context(claim);
            CqEntry e = peekUntilFound(b, peek, Fi.FI_PEEK | Fi.FI_CLAIM);
            assertEquals(200_000, e.len(), "FI_PEEK reports the CMA message's length");
            ByteBuffer in = ByteBuffer.allocateDirect(200_000);
            TaggedMsg take = new TaggedMsg();
            take.buffer(in, null).tag(0x71).ignore(0).context(claim);
            b.post(() -> b.ep.trecvMsg(take, Fi.FI_CLAIM | Fi.FI_COMPLETION), "FI_CLAIM");
            CqEntry got = b.completion(b.rxCq, "the claimed message");
            assertEquals(200_000, got.len());
            assertPattern(in, 200_000, 11, "the claimed message");
            assertEquals("t1", a.completion(a.txCq, "the claimed send").context());
            TaggedMsg drop = new TaggedMsg();
            drop.tag(0x72).ignore(0).addr(Fi.FI_ADDR_UNSPEC).context("drop");
            peekUntilFound(b, drop, Fi.FI_PEEK | Fi.FI_DISCARD);
            assertEquals("t2", a.completion(a.txCq, "the discarded send").context(), "a discarded CMA message is ACKed");
            assertEquals(1, ShmCountersTest.value(b.ep, "CMA messages read"));
        }
    }

    private static CqEntry peekUntilFound(ShmTestBed b, TaggedMsg m, long flags) {
        long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
        while (true) {
            b.post(() -> b.ep.trecvMsg(m, flags | Fi.FI_COMPLETION), "peek");
            CqEntry[] one = {new CqEntry()};
            int rc;
            while ((rc = b.rxCq.read(one, 1)) == -Errno.EAGAIN) {
                assertTrue(System.nanoTime() < deadline, "no peek answer");
            }
            if (rc == 1) {
                return one[0];
            }
            CqErrEntry err = new CqErrEntry();
            assertEquals(1, b.rxCq.readErr(err, 0));
            assertEquals(Errno.ENOMSG, err.err(), "not there yet");
            assertTrue(System.nanoTime() < deadline, "the message never became peekable");
        }
    }

    /** cmaThreshold 0 on the receiver: its region does not offer CMA, the sender never sends any; all still arrives. */
    @Test
    void cmaOffStillCarriesEverything() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO);
             ShmTestBed b = new ShmTestBed(new ShmProvider().directory(dir).cmaThreshold(0), Progress.AUTO);
             ShmTestBed c = new ShmTestBed(new ShmProvider().directory(dir).cmaThreshold(0), Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            long cToA = c.insert(a.ep.getName());
            for (int k = 0; k < 3; k++) {
                ByteBuffer in = ByteBuffer.allocateDirect(MIB);
                transfer(a, b, toB, pattern(MIB, k), in, "to a receiver without CMA " + k);
                assertPattern(in, MIB, k, "bounce path " + k);
                in.clear();
                transfer(c, a, cToA, pattern(MIB, k + 1), in, "from a sender without CMA " + k);
                assertPattern(in, MIB, k + 1, "bounce path back " + k);
            }
            assertFalse(ShmTestHooks.cmaOnTowards(a.ep, toB));
            assertTrue(ShmTestHooks.cmaReasonTowards(a.ep, toB).contains("does not offer CMA"), ShmTestHooks.cmaReasonTowards(a.ep, toB));
            assertEquals(0, ShmCountersTest.value(a.ep, "CMA messages sent"));
            assertEquals(0, ShmCountersTest.value(c.ep, "CMA messages sent"));
        }
    }

    /** A probe that fails (the peer reads another value than announced) turns CMA off towards that peer: bounce path. */
    @Test
    void aFailedProbeFallsBackToBounce() throws Exception {
        try (ShmTestBed a = new ShmTestBed(new ShmProvider().directory(dir).cmaThreshold(THRESHOLD).cmaProbeFault(true), Progress.AUTO);
             ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            for (int k = 0; k < 3; k++) {
                ByteBuffer in = ByteBuffer.allocateDirect(MIB);
                transfer(a, b, toB, pattern(MIB, k), in, "after a failed probe " + k);
                assertPattern(in, MIB, k, "bounce path " + k);
            }
            assertFalse(ShmTestHooks.cmaOnTowards(a.ep, toB));
            // the probe's answer is handled by a's progress, which may come after the transfers
            // went by bounce: wait for it (bounded) rather than racing it
            String why = ShmTestHooks.cmaReasonTowards(a.ep, toB);
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            while (why == null && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                why = ShmTestHooks.cmaReasonTowards(a.ep, toB);
            }
            assertNotNull(why, "the failed probe's reason was never recorded");
            assertTrue(why.contains("probe") && why.contains("errno " + Errno.EIO), why);
            assertEquals(0, ShmCountersTest.value(a.ep, "CMA messages sent"));
        }
    }

    /**
     * A hostile record: a CMA message whose iovec points at an unmapped address. The receive
     * completes with EFAULT, nothing crashes, and the endpoint keeps working with its real peer.
     */
    @Test
    void aBadAddressIsAnErrorCompletionAndTheEndpointKeepsWorking() throws Exception {
        try (ShmTestBed a = bed(Progress.AUTO); ShmTestBed b = bed(Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            ByteBuffer in = ByteBuffer.allocateDirect(MIB);
            b.post(() -> b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "victim"), "recv");
            try (RingLink hostile = RingLink.map(dir, ShmNames.nameOf(b.ep.getName()))) {
                int at;
                long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
                while ((at = hostile.claim(ShmRecordDescriptor.HEADER + ShmRecordDescriptor.CMA_IOV)) < 0) {
                    assertTrue(System.nanoTime() < deadline, "no room in the ring");
                }
                ByteBuffer r = hostile.buffer();
                r.putInt(at + ShmRecordDescriptor.KIND_FLAGS, ShmRecordDescriptor.MSG | ShmRecordDescriptor.CMA
                        | ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST);
                r.putInt(at + ShmRecordDescriptor.STATUS, 1);
                r.putLong(at + ShmRecordDescriptor.SENDER_PID, ProcessHandle.current().pid());
                r.putLong(at + ShmRecordDescriptor.SENDER_SEQ, (977L << 32) | 1);
                r.putLong(at + ShmRecordDescriptor.TOKEN, 5);
                r.putLong(at + ShmRecordDescriptor.C, 4096);
                r.putLong(at + ShmRecordDescriptor.HEADER, 4096); // page 1: never mapped
                r.putLong(at + ShmRecordDescriptor.HEADER + 8, 4096);
                hostile.publish(at);
            }
            CqErrEntry e = b.error(b.rxCq, "the receive of the hostile message");
            assertEquals("victim", e.context());
            assertEquals(Errno.EFAULT, e.err());
            in.clear();
            for (int k = 0; k < 3; k++) {
                transfer(a, b, toB, pattern(MIB, k), in, "after the hostile record " + k);
                assertPattern(in, MIB, k, "message " + k + " after the hostile record");
                in.clear();
            }
            // the probe that turns CMA on towards b is answered through b's and a's progress and
            // may come after the first transfers went by bounce: go on (bounded) until it has
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            for (int k = 3; ShmCountersTest.value(a.ep, "CMA messages sent") < 2 && System.nanoTime() < deadline; k++) {
                transfer(a, b, toB, pattern(MIB, k), in, "after the hostile record " + k);
                assertPattern(in, MIB, k, "message " + k + " after the hostile record");
                in.clear();
            }
            assertTrue(ShmCountersTest.value(a.ep, "CMA messages sent") >= 2, "CMA keeps working");
        }
    }

    /** Steady state: CMA messages (sender and receiver, manual progress on one thread) allocate nothing. */
    @Test
    void cmaMessagesAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        try (ShmTestBed a = bed(Progress.MANUAL); ShmTestBed b = bed(Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            ByteBuffer out = pattern(256 << 10, 3);
            ByteBuffer in = ByteBuffer.allocateDirect(256 << 10);
            CqEntry[] one = {new CqEntry()};
            Object ctx = "c";
            for (int i = 0; i < 2000; i++) {
                oneManual(a, b, toB, out, in, one, ctx);
            }
            // the least of a few rounds: under load the JIT may still be compiling the loop in the
            // first (interpreted or C1 code allocates what C2's escape analysis removes)
            long allocated = Long.MAX_VALUE;
            for (int round = 0; round < 5 && allocated >= 4096; round++) {
                long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
                for (int i = 0; i < 2000; i++) {
                    oneManual(a, b, toB, out, in, one, ctx);
                }
                allocated = Math.min(allocated, mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before);
            }
            assertTrue(allocated < 4096, allocated + " bytes allocated over 2000 CMA messages (the least of 5 rounds)");
            assertTrue(ShmCountersTest.value(a.ep, "CMA messages sent") >= 2 * 2000 - 2, "they went by CMA: " + ShmCountersTest.value(a.ep, "CMA messages sent"));
        }
    }

    /**
     * The same through 64 views of one send and one receive buffer used in turn (as fabtests'
     * bw does, one view per outstanding operation): the address of each view is remembered,
     * not looked up (and a weak reference made) per message.
     */
    @Test
    void cmaMessagesThroughManyBufferViewsAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        try (ShmTestBed a = bed(Progress.MANUAL); ShmTestBed b = bed(Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            ByteBuffer out = pattern(64 << 10, 5);
            ByteBuffer in = ByteBuffer.allocateDirect(64 << 10);
            ByteBuffer[] outs = new ByteBuffer[64];
            ByteBuffer[] ins = new ByteBuffer[64];
            for (int i = 0; i < 64; i++) {
                outs[i] = out.duplicate();
                ins[i] = in.duplicate();
            }
            CqEntry[] one = {new CqEntry()};
            Object ctx = "c";
            for (int i = 0; i < 2000; i++) {
                oneManual(a, b, toB, outs[i & 63], ins[i & 63].clear(), one, ctx);
            }
            long allocated = Long.MAX_VALUE; // the least of a few rounds, as above
            for (int round = 0; round < 5 && allocated >= 4096; round++) {
                long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
                for (int i = 0; i < 2000; i++) {
                    oneManual(a, b, toB, outs[i & 63], ins[i & 63].clear(), one, ctx);
                }
                allocated = Math.min(allocated, mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before);
            }
            assertTrue(allocated < 4096, allocated + " bytes allocated over 2000 CMA messages through 64 views (the least of 5 rounds)");
            assertTrue(ShmCountersTest.value(a.ep, "CMA messages sent") >= 2 * 2000 - 2, "they went by CMA: " + ShmCountersTest.value(a.ep, "CMA messages sent"));
        }
    }

    private static void oneManual(ShmTestBed a, ShmTestBed b, long toB, ByteBuffer out, ByteBuffer in, CqEntry[] one,
                                  Object ctx) {
        assertEquals(0, b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, ctx));
        assertEquals(0, a.ep.send(out, null, toB, ctx));
        boolean got = false;
        boolean sent = false;
        long spins = 0;
        while (!got || !sent) {
            if (!got) {
                int rc = b.rxCq.read(one, 1);
                if (rc != 1 && rc != -Errno.EAGAIN) {
                    fail("rx read " + rc); // the message is built only on failure: no allocation per call
                }
                got = rc == 1;
            }
            if (!sent) {
                int rc = a.txCq.read(one, 1);
                if (rc != 1 && rc != -Errno.EAGAIN) {
                    fail("tx read " + rc);
                }
                sent = rc == 1;
            }
            if (++spins > 50_000_000L) {
                fail("the message did not complete");
            }
        }
    }

    /** One qualifying message: starts the probe; then CMA comes on (its answer may follow the message's completion). */
    private static void warmUp(ShmTestBed a, ShmTestBed b, long toB) {
        ByteBuffer in = ByteBuffer.allocateDirect(64 << 10);
        transfer(a, b, toB, pattern(64 << 10, 0), in, "warm-up");
        awaitCmaOn(a, toB);
    }

    /** Waits (bounded, progress AUTO) until the probe's answer turned CMA on towards {@code toB}. */
    static void awaitCmaOn(ShmTestBed a, long toB) {
        long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
        while (!ShmTestHooks.cmaOnTowards(a.ep, toB)) {
            assertTrue(ShmTestHooks.cmaReasonTowards(a.ep, toB) == null, "CMA off: " + ShmTestHooks.cmaReasonTowards(a.ep, toB));
            assertTrue(System.nanoTime() < deadline, "the probe was not answered within 20 s");
            a.txCq.read(new CqEntry[0], 0);
            Thread.onSpinWait();
        }
    }
}
