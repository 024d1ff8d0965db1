package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * shm specifics beyond the conformance kit, in one JVM: local-only {@code getInfo},
 * {@code FI_COMMIT_COMPLETE} into a file-backed region (one-sided and target-side),
 * {@code FI_RMA_EVENT} remote counters for both RMA paths, {@code FI_DIRECTED_RECV}, and the
 * endpoint's control-path answers.
 */
@Timeout(60)
class ShmEndpointTest {
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmep-");
    }

    @AfterAll
    static void remove() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    private static Info rdm() {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        return hints;
    }

    /** getInfo matches this host only: no node, localhost, loopback, the host name; another host is ENODATA saying why. */
    @Test
    void getInfoMatchesOnlyThisHost() throws Exception {
        ShmProvider p = new ShmProvider().directory(dir);
        for (String node : new String[] {null, "localhost", "127.0.0.1", "::1",
                java.net.InetAddress.getLocalHost().getHostName()}) {
            assertTrue(!p.getInfo(node, null, 0, rdm()).isEmpty(), "shm offers itself for node " + node);
        }
        FabricException e = assertThrows(FabricException.class, () -> p.getInfo("192.0.2.1", null, 0, rdm()));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("192.0.2.1") && e.getMessage().contains("not this host"), e.getMessage());
        Info info = p.getInfo(null, null, 0, rdm()).get(0);
        assertEquals(io.jofi.AddrFormat.ADDR_STR, info.addrFormat());
        assertEquals(0, info.caps() & Fi.FI_SOURCE_ERR, "FI_SOURCE_ERR only when asked for (it changes R10's answer)");
        assertTrue(info.epAttr().maxMsgSize() >= 16 << 20);
        assertTrue(info.txAttr().injectSize() >= 64);
        assertEquals(8, info.domainAttr().cqDataSize());
        Info withErr = rdm();
        withErr.caps(Fi.FI_MSG | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR);
        assertTrue((p.getInfo(null, null, 0, withErr).get(0).caps() & Fi.FI_SOURCE_ERR) != 0);
    }

    /** getName before enable is EOPBADSTATE; after, fi_shm://<pid>-<domain>-<endpoint>. */
    @Test
    void nameIsKnownOnceEnabled() throws Exception {
        try (ShmTestBed bed = new ShmTestBed(dir, Progress.MANUAL)) {
            assertTrue(bed.name().startsWith("fi_shm://" + ProcessHandle.current().pid() + "-"), bed.name());
            assertTrue(Files.exists(io.jofi.provider.shm.ring.ShmRegion.regionPath(dir,
                    bed.name().substring(ShmNames.SCHEME.length()))), "the region file exists while enabled");
            io.jofi.Endpoint fresh = bed.domain.endpoint(bed.ep instanceof ShmEndpoint ? rdmInfo(bed) : null, null);
            FabricException e = assertThrows(FabricException.class, fresh::getName);
            assertEquals(Errno.EOPBADSTATE, e.errno());
            fresh.close();
        }
    }

    private static Info rdmInfo(ShmTestBed bed) throws FabricException {
        return bed.provider.getInfo(null, null, 0, rdm()).get(0);
    }

    /**
     * R11 FI_COMMIT_COMPLETE: a write into a region backed by a file on disk is in the file
     * (read back through the file, not the mapping) when the write completes — one-sided
     * (Domain.mapFile) and target-side (a mapping the application made itself).
     */
    @Test
    void commitCompleteMakesWritesDurable(@TempDir Path disk) throws Exception {
        Path file = disk.resolve("durable.bin");
        Files.write(file, new byte[8192]);
        try (ShmTestBed a = new ShmTestBed(dir, Progress.AUTO); ShmTestBed b = new ShmTestBed(dir, Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            ByteBuffer shared = b.domain.mapFile(file, 0, 4096);
            MemoryRegion direct = b.domain.register(shared, Fi.FI_REMOTE_WRITE, 0, 31, 0, null);
            MappedByteBuffer own;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                own = ch.map(FileChannel.MapMode.READ_WRITE, 4096, 4096);
            }
            MemoryRegion targetSide = b.domain.register(own, Fi.FI_REMOTE_WRITE, 0, 32, 0, null);
            for (long key : new long[] {31, 32}) {
                ByteBuffer src = ShmCrossProcessTest.pattern(512, (int) key);
                RmaMsg m = new RmaMsg();
                m.buffer(src, null).addr(toB).context("commit-" + key);
                m.rma(100, 512, key);
                a.post(() -> a.ep.writeMsg(m, Fi.FI_COMMIT_COMPLETE | Fi.FI_COMPLETION), "write " + key);
                assertEquals("commit-" + key, a.completion(a.txCq, "the committed write").context());
            }
            byte[] onDisk = Files.readAllBytes(file);
            for (int i = 0; i < 512; i++) {
                assertEquals((byte) (31 + i), onDisk[100 + i], "one-sided committed byte " + i);
                assertEquals((byte) (32 + i), onDisk[4096 + 100 + i], "target-side committed byte " + i);
            }
            direct.close();
            targetSide.close();
        }
    }

    /** FI_RMA_EVENT: the target's FI_REMOTE_WRITE / FI_REMOTE_READ counters count both RMA paths. */
    @Test
    void remoteCountersCountBothPaths() throws Exception {
        Counter[] c = new Counter[2];
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL);
             ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL, Fi.FI_RMA_EVENT, bed -> {
                 c[0] = bed.domain.openCounter(new CounterAttr(), null);
                 c[1] = bed.domain.openCounter(new CounterAttr(), null);
                 bed.ep.bind(c[0], Fi.FI_REMOTE_WRITE);
                 bed.ep.bind(c[1], Fi.FI_REMOTE_READ);
             })) {
            long toB = a.insert(b.ep.getName());
            ByteBuffer plain = ByteBuffer.allocateDirect(256);
            ByteBuffer shared = b.domain.allocateBuffer(256);
            MemoryRegion m1 = b.domain.register(plain, Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_READ, 0, 41, 0, null);
            MemoryRegion m2 = b.domain.register(shared, Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_READ, 0, 42, 0, null);
            for (long key : new long[] {41, 42}) {
                a.post(() -> a.ep.write(ShmCrossProcessTest.pattern(16, 1), null, toB, 0, key, "w"), "write");
                drive(a, b, "write to " + key);
                a.post(() -> a.ep.read(ByteBuffer.allocateDirect(16), null, toB, 0, key, "r"), "read");
                drive(a, b, "read of " + key);
            }
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            while ((c[0].read() != 2 || c[1].read() != 2) && System.nanoTime() < deadline) {
                b.rxCq.read(new CqEntry[0], 0);
            }
            assertEquals(2, c[0].read(), "remote writes counted at the target (target-side and one-sided)");
            assertEquals(2, c[1].read(), "remote reads counted at the target");
            m1.close();
            m2.close();
            b.ep.close(); // the counters are bound to it (R9)
            c[0].close();
            c[1].close();
        }
    }

    private static void drive(ShmTestBed a, ShmTestBed b, String what) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
        while (a.txCq.read(one, 1) != 1) {
            b.rxCq.read(new CqEntry[0], 0);
            assertTrue(System.nanoTime() < deadline, what + " within 20 s");
        }
    }

    /** FI_DIRECTED_RECV: a receive for one sender does not take another sender's message. */
    @Test
    void directedReceiveTakesOnlyItsSender() throws Exception {
        try (ShmTestBed r = new ShmTestBed(dir, Progress.AUTO, Fi.FI_DIRECTED_RECV, null);
             ShmTestBed s1 = new ShmTestBed(dir, Progress.AUTO); ShmTestBed s2 = new ShmTestBed(dir, Progress.AUTO)) {
            long from1 = r.insert(s1.ep.getName());
            long from2 = r.insert(s2.ep.getName());
            long to1 = s1.insert(r.ep.getName());
            long to2 = s2.insert(r.ep.getName());
            ByteBuffer buf2 = ByteBuffer.allocateDirect(8);
            r.post(() -> r.ep.recv(buf2, null, from2, "for-2"), "recv from s2");
            s1.post(() -> s1.ep.send(ShmCrossProcessTest.pattern(8, 1), null, to1, "s1"), "send s1");
            s1.completion(s1.txCq, "s1's send");
            s2.post(() -> s2.ep.send(ShmCrossProcessTest.pattern(8, 2), null, to2, "s2"), "send s2");
            CqEntry e = r.completion(r.rxCq, "the directed receive");
            assertEquals("for-2", e.context());
            ShmCrossProcessTest.assertPattern(buf2, 8, 2, "s2's message, not s1's");
            ByteBuffer buf1 = ByteBuffer.allocateDirect(8);
            r.post(() -> r.ep.recv(buf1, null, from1, "for-1"), "recv from s1");
            assertEquals("for-1", r.completion(r.rxCq, "s1's waiting message").context());
            ShmCrossProcessTest.assertPattern(buf1, 8, 1, "s1's message");
        }
    }

    /** A send to an address whose endpoint does not exist fails at once with EHOSTUNREACH. */
    @Test
    void sendToNobodyIsHostUnreachable() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL)) {
            long nobody = a.insert(ShmNames.address("1-1-99999"));
            assertEquals(-Errno.EHOSTUNREACH, a.ep.send(ShmCrossProcessTest.pattern(8, 0), null, nobody, "x"));
            assertEquals(io.jofi.spi.util.ReceivePosting.DEFAULT_MIN_MULTI_RECV,
                    a.ep.getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV), "default FI_OPT_MIN_MULTI_RECV");
        }
    }

    /** A peer endpoint that closes with an operation pending towards it: the operation fails with ECONNRESET. */
    @Test
    void closedPeerFailsPendingOperations() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.AUTO); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            io.jofi.Msg m = new io.jofi.Msg().buffer(ShmCrossProcessTest.pattern(16, 0), null).addr(toB).context("dc");
            a.post(() -> a.ep.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "sendMsg");
            b.ep.close(); // never progressed: the message was not delivered
            io.jofi.CqErrEntry e = a.error(a.txCq, "the send to a closed endpoint");
            assertEquals("dc", e.context());
            assertEquals(Errno.ECONNRESET, e.err());
            // later operations to the gone peer complete with the same error (an entry, not a bare errno: provider-shm/README.md "Failure model")
            assertEquals(0, a.ep.send(ShmCrossProcessTest.pattern(8, 0), null, toB, "late"), "a later post is accepted");
            io.jofi.CqErrEntry late = a.error(a.txCq, "a later send to the gone peer");
            assertEquals("late", late.context());
            assertEquals(Errno.ECONNRESET, late.err());
            assertEquals(-Errno.ECONNRESET, a.ep.inject(ShmCrossProcessTest.pattern(8, 0), toB),
                    "an inject has no completion: refused with the errno");
        }
    }

    /**
     * FI_TRANSMIT_COMPLETE to a peer that took the message and then closed (fabtests' finalize:
     * the peer receives, closes at once): the message was delivered, so the send completes with
     * success, also when the sender's life check of the peer only runs after the close; a
     * message the closing peer never took still fails with ECONNRESET. (Before: both failed
     * with ECONNRESET, as jofi pingpong's finalize did now and then in ShmPerfCommandsTest.)
     */
    @Test
    void transmitCompleteToAPeerThatTookTheMessageAndClosedSucceeds() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL);
             ShmTestBed c = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            long toC = a.insert(c.ep.getName());
            ByteBuffer into = ByteBuffer.allocateDirect(16);
            assertEquals(0, b.ep.recv(into, null, Fi.FI_ADDR_UNSPEC, "rb"));
            io.jofi.Msg m = new io.jofi.Msg().buffer(ShmCrossProcessTest.pattern(4, 0), null).addr(toB).context("tc");
            a.post(() -> a.ep.sendMsg(m, Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION), "sendMsg to b");
            io.jofi.Msg mc = new io.jofi.Msg().buffer(ShmCrossProcessTest.pattern(4, 0), null).addr(toC).context("lost");
            a.post(() -> a.ep.sendMsg(mc, Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION), "sendMsg to c");
            // a does not progress until both peers closed: its life check comes after the closes
            assertEquals("rb", b.completion(b.rxCq, "b's receive").context());
            b.ep.close(); // took the message, then went away
            c.ep.close(); // never progressed: the message was not delivered
            java.util.Map<Object, Integer> outcome = new java.util.HashMap<>(); // context -> 0 or its errno
            CqEntry[] one = {new CqEntry()};
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            while (outcome.size() < 2 && System.nanoTime() < deadline) {
                int rc = a.txCq.read(one, 1);
                if (rc == 1) {
                    outcome.put(one[0].context(), 0);
                } else if (rc == -Errno.EAVAIL) {
                    io.jofi.CqErrEntry e = new io.jofi.CqErrEntry();
                    assertEquals(1, a.txCq.readErr(e, 0));
                    outcome.put(e.context(), e.err());
                }
            }
            assertEquals(java.util.Map.of("tc", 0, "lost", Errno.ECONNRESET), outcome,
                    "the send b took succeeds (before: ECONNRESET); the one c never took fails");
        }
    }

    /**
     * A peer that sent messages and then closed: every message it published before it went is
     * delivered, also those beyond what one progress pass drains (the pass's liveness check
     * finds the peer gone: before, its records still in the ring were dropped with it — the
     * finalize message jofi pingpong's client then waited 60 s for).
     */
    @Test
    void messagesAPeerSentBeforeItClosedAreDelivered() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            int count = 600; // more than two progress passes drain
            ByteBuffer into = ByteBuffer.allocateDirect(8 * count);
            for (int i = 0; i < count; i++) {
                assertEquals(0, a.ep.recv(into.slice(8 * i, 8), null, Fi.FI_ADDR_UNSPEC, i));
            }
            long toB = a.insert(b.ep.getName());
            long toA = b.insert(a.ep.getName());
            // something towards b awaits b's life check, so a's first pass looks at b
            io.jofi.Msg m = new io.jofi.Msg().buffer(ShmCrossProcessTest.pattern(4, 0), null).addr(toB).context("tc");
            a.post(() -> a.ep.sendMsg(m, Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION), "sendMsg to b");
            for (int i = 0; i < count; i++) {
                int n = i;
                b.post(() -> b.ep.inject(ShmCrossProcessTest.pattern(8, n), toA), "inject " + i);
            }
            b.ep.close();
            for (int i = 0; i < count; i++) {
                assertEquals(i, a.completion(a.rxCq, "message " + i + " of the closed peer").context());
            }
            assertEquals(Errno.ECONNRESET, a.error(a.txCq, "the send b never took").err());
        }
    }

    /**
     * fi_inject(3): the buffer may be reused once the call returns. An inject towards a peer
     * with nothing queued is copied into the peer's ring straight from the caller's buffer;
     * one that finds the ring full stays queued, and must then carry what the buffer held at
     * the call, not what the caller wrote into it since (one buffer, rewritten after every
     * inject, as a streaming application does).
     */
    @Test
    void anInjectQueuedBehindAFullRingCarriesWhatTheBufferHeldAtTheCall() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            int size = 4096;
            int count = 600; // several times what b's 1 MiB ring and its bounce slots hold
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < count; i++) {
                ByteBuffer p = ShmCrossProcessTest.pattern(size, i);
                buf.clear().put(p).flip();
                a.post(() -> a.ep.inject(buf, toB), "inject " + i);
            }
            assertTrue(ShmCountersTest.value(a.ep, "ring-full waits") > 0, "some injects found the ring full");
            CqEntry[] one = {new CqEntry()};
            CqEntry[] none = new CqEntry[0];
            for (int i = 0; i < count; i++) {
                ByteBuffer into = ByteBuffer.allocateDirect(size);
                b.post(() -> b.ep.recv(into, null, Fi.FI_ADDR_UNSPEC, null), "recv " + i);
                long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
                while (b.rxCq.read(one, 1) != 1) {
                    a.txCq.read(none, 0); // a's progress pushes what waits for room
                    assertTrue(System.nanoTime() < deadline, "message " + i + " within 20 s");
                }
                assertEquals(ShmCrossProcessTest.pattern(size, i), into.clear(), "message " + i + " as injected");
            }
        }
    }

    /**
     * R13 for a receive that took a message still arriving in fragments: it is cancelled, and
     * the message, once whole, goes to the next receive intact.
     */
    @Test
    void cancelOfAReceiveWaitingForFragments() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            int n = 8 << 20; // far more than b's ring and bounce slots hold: it arrives in parts
            ByteBuffer src = ShmCrossProcessTest.pattern(n, 9);
            a.post(() -> a.ep.send(src, null, toB, "big"), "send of 8 MiB");
            b.rxCq.read(new CqEntry[0], 0); // b drains what is there: the message is unexpected, partial
            ByteBuffer first = ByteBuffer.allocateDirect(n);
            b.post(() -> b.ep.recv(first, null, io.jofi.Fi.FI_ADDR_UNSPEC, "first"), "recv");
            assertEquals(0, b.ep.cancel("first"), "cancel of the receive waiting for the rest");
            io.jofi.CqErrEntry e = b.error(b.rxCq, "the cancelled receive");
            assertEquals("first", e.context());
            assertEquals(Errno.ECANCELED, e.err());
            ByteBuffer second = ByteBuffer.allocateDirect(n);
            b.post(() -> b.ep.recv(second, null, io.jofi.Fi.FI_ADDR_UNSPEC, "second"), "recv again");
            CqEntry[] one = {new CqEntry()};
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            while (b.rxCq.read(one, 1) != 1) {
                a.txCq.read(new CqEntry[0], 0);
                assertTrue(System.nanoTime() < deadline, "the message within 20 s");
            }
            assertEquals("second", one[0].context());
            assertEquals(n, one[0].len());
            ShmCrossProcessTest.assertPattern(second, n, 9, "the message, whole");
            a.completion(a.txCq, "the send");
        }
    }

    /**
     * A corrupt own ring (docs/SHM-LAYOUT.md "Bad input, faults, security") with a message half received: when the endpoint's own ring fails, the
     * receive a fragmented message is being placed into completes with {@code EIO} like every
     * other pending receive (it was dropped without a completion, its CQ room never returned).
     */
    @Test
    void aReceiveBeingFilledFailsWhenTheOwnRingFails() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            int n = 8 << 20; // far more than b's ring and bounce slots hold: it arrives in parts
            ByteBuffer dst = ByteBuffer.allocateDirect(n);
            b.post(() -> b.ep.recv(dst, null, io.jofi.Fi.FI_ADDR_UNSPEC, "filling"), "recv");
            a.post(() -> a.ep.send(ShmCrossProcessTest.pattern(n, 3), null, toB, "big"), "send of 8 MiB");
            b.rxCq.read(new CqEntry[0], 0); // b drains what is there: the receive matched, partly filled
            ((ShmEndpoint) b.ep).failOwnRingNow();
            io.jofi.CqErrEntry e = b.error(b.rxCq, "the receive being filled");
            assertEquals("filling", e.context());
            assertEquals(Errno.EIO, e.err());
        }
    }

    /**
     * Atomics on a heap-buffer target (the target-side plain path) and on a misaligned address;
     * the result comes back in host order without the caller's buffer order being changed.
     */
    @Test
    void atomicsOnHeapAndMisalignedTargets() throws Exception {
        try (ShmTestBed a = new ShmTestBed(dir, Progress.AUTO); ShmTestBed b = new ShmTestBed(dir, Progress.AUTO)) {
            long toB = a.insert(b.ep.getName());
            ByteBuffer heap = ByteBuffer.allocate(64);
            MemoryRegion mr = b.domain.register(heap, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 51, 0, null);
            ByteBuffer shared = b.domain.allocateBuffer(64);
            MemoryRegion smr = b.domain.register(shared, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 52, 0, null);
            ByteBuffer result = ByteBuffer.allocateDirect(8); // big-endian, on purpose
            for (long key : new long[] {51, 52}) {
                for (int addr : new int[] {8, 13}) {
                    for (int i = 0; i < 3; i++) {
                        a.post(() -> a.ep.fetchAtomic(5, result, null, toB, addr, key, Fi.FI_SUM, "sum"), "fetchAtomic");
                        a.completion(a.txCq, "sum " + i);
                        assertEquals(java.nio.ByteOrder.BIG_ENDIAN, result.order(), "the caller's buffer order is untouched");
                        long v = result.duplicate().order(java.nio.ByteOrder.nativeOrder()).getLong(0);
                        assertEquals(5L * i, v, "old value (host order) of sum " + i + ", key " + key + ", addr " + addr);
                    }
                }
            }
            mr.close();
            smr.close();
        }
    }
}
