package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The data path allocates nothing per operation in steady state (docs/API.md "Conventions": the data path never allocates: 0 B/op): round trips of send/recv, inject, a delivery-complete sendMsg, tagged messages,
 * fragmented messages, target-side RMA write/read and atomics, and one-sided RMA into
 * shareable memory, and messages from a sender not in the receiver's AV (FI_SOURCE), with
 * manual progress on one thread, measured with
 * {@code ThreadMXBean.getThreadAllocatedBytes}.
 */
@Timeout(60)
class ShmAllocationTest {
    private static final int WARMUP = 3000;
    private static final int ROUNDS = 3000;
    private final CqEntry[] entries = {new CqEntry()};

    @ParameterizedTest
    @ValueSource(ints = {8, 4096, 40_000})
    void roundTripsAllocateNothing(int size) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(mx.isThreadAllocatedMemorySupported());
        mx.setThreadAllocatedMemoryEnabled(true);
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmalloc-");
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            long toA = b.insert(a.ep.getName());
            ByteBuffer tx = ByteBuffer.allocateDirect(size);
            ByteBuffer rx = ByteBuffer.allocateDirect(size);
            ByteBuffer small = ByteBuffer.allocateDirect(8);
            ByteBuffer plain = ByteBuffer.allocateDirect(size);
            MemoryRegion plainMr = b.domain.register(plain, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 11, 0, null);
            ByteBuffer shared = b.domain.allocateBuffer(size).order(ByteOrder.nativeOrder());
            MemoryRegion sharedMr = b.domain.register(shared, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 12, 0, null);
            ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            Msg dc = new Msg().buffer(tx, null).addr(toB).context("dc");
            RmaMsg w = new RmaMsg();
            w.buffer(tx, null).addr(toB).context("w");
            w.rma(0, size, 11);
            Object ctx = "ctx";
            Run run = new Run(a, b, toA, toB, tx, rx, small, result, dc, w, ctx);
            run.go(WARMUP);
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            run.go(ROUNDS);
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            // A few bytes may come from the JDK's lazily grown internals; per operation it is 0.
            assertTrue(allocated < 4096, allocated + " bytes allocated over " + ROUNDS + " rounds of "
                    + size + "-byte operations");
            sharedMr.close();
            plainMr.close();
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    /**
     * R10 with FI_SOURCE: messages from a sender that is not in the receiver's AV allocate
     * nothing either (the miss is remembered per peer until the AV changes); once the receiver
     * inserts the sender, the next message reports its fi_addr.
     */
    @org.junit.jupiter.api.Test
    void messagesFromASenderNotInTheAvAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmalloc-");
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName()); // b never inserts a
            ByteBuffer tx = ByteBuffer.allocateDirect(64);
            ByteBuffer rx = ByteBuffer.allocateDirect(64);
            long[] from = {0};
            Object ctx = "ctx";
            for (int i = 0; i < WARMUP; i++) {
                oneMessage(a, b, toB, tx, rx, from, ctx);
            }
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < ROUNDS; i++) {
                oneMessage(a, b, toB, tx, rx, from, ctx);
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            assertTrue(allocated < 4096, allocated + " bytes allocated over " + ROUNDS
                    + " messages from a sender not in the AV");
            org.junit.jupiter.api.Assertions.assertEquals(Fi.FI_ADDR_NOTAVAIL, from[0], "an unknown sender");
            long toA = b.insert(a.ep.getName());
            oneMessage(a, b, toB, tx, rx, from, ctx);
            org.junit.jupiter.api.Assertions.assertEquals(toA, from[0], "the AV changed: the sender is found");
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    private void oneMessage(ShmTestBed a, ShmTestBed b, long toB, ByteBuffer tx, ByteBuffer rx, long[] from, Object ctx) {
        check(b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
        check(a.ep.send(tx, null, toB, ctx));
        await(a.txCq, b.rxCq);
        long spins = 0;
        long start = System.nanoTime();
        int rc;
        while ((rc = b.rxCq.readFrom(entries, 1, from)) != 1) {
            if (rc != -io.jofi.Errno.EAGAIN) {
                fail("readFrom returned " + rc);
            }
            if ((++spins & 0xFFFF) == 0 && System.nanoTime() - start > 10_000_000_000L) {
                fail("no completion within 10 s");
            }
        }
    }

    private final class Run {
        final ShmTestBed a;
        final ShmTestBed b;
        final long toA;
        final long toB;
        final ByteBuffer tx;
        final ByteBuffer rx;
        final ByteBuffer small;
        final ByteBuffer result;
        final Msg dc;
        final RmaMsg w;
        final Object ctx;

        Run(ShmTestBed a, ShmTestBed b, long toA, long toB, ByteBuffer tx, ByteBuffer rx, ByteBuffer small,
            ByteBuffer result, Msg dc, RmaMsg w, Object ctx) {
            this.a = a;
            this.b = b;
            this.toA = toA;
            this.toB = toB;
            this.tx = tx;
            this.rx = rx;
            this.small = small;
            this.result = result;
            this.dc = dc;
            this.w = w;
            this.ctx = ctx;
        }

        void go(int n) {
            for (int i = 0; i < n; i++) {
                check(b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
                check(a.ep.send(tx, null, toB, ctx));
                await(b.rxCq, a.txCq);
                await(a.txCq, b.rxCq);
                check(a.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
                check(b.ep.inject(small, toA));
                await(a.rxCq, b.rxCq);
                check(b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
                check(a.ep.sendMsg(dc, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
                await(b.rxCq, a.txCq);
                await(a.txCq, b.rxCq);
                check(b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
                check(a.ep.tsend(tx, null, toB, 9, ctx)); // a plain receive does not take a tagged message
                check(b.ep.trecv(rx, null, Fi.FI_ADDR_UNSPEC, 9, 0, ctx));
                await(a.txCq, b.rxCq);
                await(b.rxCq, a.txCq);
                check(b.ep.cancel(ctx));
                awaitError(b.rxCq, a.txCq);
                check(a.ep.writeMsg(w, Fi.FI_COMPLETION));
                await(a.txCq, b.rxCq);
                check(a.ep.read(rx, null, toB, 0, 11, ctx));
                await(a.txCq, b.rxCq);
                check(a.ep.fetchAtomic(1, result, null, toB, 0, 11, Fi.FI_SUM, ctx));
                await(a.txCq, b.rxCq);
                check(a.ep.write(tx, null, toB, 0, 12, ctx));
                await(a.txCq, b.rxCq);
                check(a.ep.atomic(1, toB, 0, 12, Fi.FI_SUM, ctx));
                await(a.txCq, b.rxCq);
            }
        }
    }

    private static void check(int rc) {
        if (rc != 0) {
            fail("post returned " + rc);
        }
    }

    /** Reads {@code cq} until one completion, driving {@code other} too (both sides progress). */
    private void await(CompletionQueue cq, CompletionQueue other) {
        long spins = 0;
        long start = System.nanoTime();
        while (true) {
            int rc = cq.read(entries, 1);
            if (rc == 1) {
                return;
            }
            if (rc != -io.jofi.Errno.EAGAIN) {
                fail("read returned " + rc);
            }
            other.read(entries, 0);
            if ((++spins & 0xFFFF) == 0 && System.nanoTime() - start > 10_000_000_000L) {
                fail("no completion within 10 s");
            }
        }
    }

    private final io.jofi.CqErrEntry err = new io.jofi.CqErrEntry();

    private void awaitError(CompletionQueue cq, CompletionQueue other) {
        long spins = 0;
        long start = System.nanoTime();
        while (true) {
            int rc = cq.read(entries, 1);
            if (rc == -io.jofi.Errno.EAVAIL) {
                cq.readErr(err, 0);
                return;
            }
            if (rc == 1) {
                fail("a success where an error was expected");
            }
            other.read(entries, 0);
            if ((++spins & 0xFFFF) == 0 && System.nanoTime() - start > 10_000_000_000L) {
                fail("no error completion within 10 s");
            }
        }
    }
}
