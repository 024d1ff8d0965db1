package io.jofi.provider.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.conformance.ConformanceFixture;
import io.jofi.conformance.EndpointPair;
import io.jofi.conformance.PairSpec;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/API.md "Conventions": the data path never allocates: 100 000 send/receive round trips on a
 * connected verbs MSG pair, and on a pair of RDM endpoints (per-peer RC connections, a shared
 * receive queue, FI_SOURCE lookups), with manual progress and registered buffers, measured with
 * {@code ThreadMXBean.getThreadAllocatedBytes} around the loop after a warm-up (the
 * data path, completion polling included, runs on this thread); and 100 000 RMA writes and
 * reads (each awaited) on both endpoint types, RDM's over the peer's connection by fi_addr.
 * Skipped with "verbs unavailable: …" without an active RDMA port.
 */
class VerbsAllocationTest {
    private static final int WARMUP = 20_000;
    private static final int OPS = 100_000;

    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @ParameterizedTest
    @EnumSource(value = EpType.class, names = {"MSG", "RDM"})
    void sendAndReceiveAllocateNothingPerOperation(EpType type) throws FabricException {
        try (ConformanceFixture fx = new ConformanceFixture(Fabrics.standalone(), "verbs", type,
                Progress.MANUAL, 20_000)) {
            EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG));
            ByteBuffer sbuf = ByteBuffer.allocateDirect(64);
            ByteBuffer rbuf = ByteBuffer.allocateDirect(64);
            MemoryRegion smr = fx.register(sbuf, Fi.FI_SEND, "s");
            MemoryRegion rmr = fx.register(rbuf, Fi.FI_RECV, "r");
            CqEntry[] entries = {new CqEntry()};
            Object ctx = new Object();
            loop(p, sbuf, smr, rbuf, rmr, entries, ctx, WARMUP);
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
            loop(p, sbuf, smr, rbuf, rmr, entries, ctx, OPS);
            long after = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
            double perOp = (after - before) / (double) OPS;
            System.out.printf("verbs %s allocation: %d bytes over %d round trips (%.3f bytes per round trip)%n",
                    type, after - before, OPS, perOp);
            assertTrue(perOp < 1.0, "bytes allocated per send/receive round trip: " + perOp);
        }
    }

    @ParameterizedTest
    @EnumSource(value = EpType.class, names = {"MSG", "RDM"})
    void rmaWriteAndReadAllocateNothingPerOperation(EpType type) throws FabricException {
        try (ConformanceFixture fx = new ConformanceFixture(Fabrics.standalone(), "verbs", type,
                Progress.MANUAL, 20_000)) {
            EndpointPair p = fx.openPair(new PairSpec(Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ
                    | Fi.FI_REMOTE_WRITE));
            // soft-iWARP fails a write (or its zero-length flush read) with IBV_WC_GENERAL_ERR after a
            // few hundred to a few thousand write/read pairs, on MSG and RDM endpoints alike
            // (2026-11-22, siw0 in the VM: write 645 on MSG, write 1620 on RDM); not an
            // allocation question, and open (README "Limits")
            org.junit.jupiter.api.Assumptions.assumeTrue(p.a().info().domainAttr().cqDataSize() > 0,
                    "iWARP (" + p.a().info().domainAttr().name() + "): long RMA loops end in IBV_WC_GENERAL_ERR on"
                    + " soft-iWARP (README \"Limits\")");
            ByteBuffer local = ByteBuffer.allocateDirect(64);
            ByteBuffer target = ByteBuffer.allocateDirect(64);
            MemoryRegion lmr = fx.register(local, Fi.FI_READ | Fi.FI_WRITE, "local");
            MemoryRegion tmr = fx.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, "target");
            CqEntry[] entries = {new CqEntry()};
            Object ctx = new Object();
            rmaLoop(p, local, lmr, tmr, entries, ctx, WARMUP);
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
            rmaLoop(p, local, lmr, tmr, entries, ctx, OPS / 2);
            long after = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
            double perOp = (after - before) / (double) OPS;
            System.out.printf("verbs %s RMA allocation: %d bytes over %d writes and reads (%.3f bytes per operation)%n",
                    type, after - before, OPS, perOp);
            assertTrue(perOp < 1.0, "bytes allocated per RMA operation: " + perOp);
        }
    }

    /** {@code n} writes and {@code n} reads of 64 bytes, each awaited (no lambdas: they would allocate). */
    private static void rmaLoop(EndpointPair p, ByteBuffer local, MemoryRegion lmr, MemoryRegion tmr,
                                CqEntry[] entries, Object ctx, int n) {
        long peer = p.a().peer();
        for (int i = 0; i < n; i++) {
            int rc;
            while ((rc = p.a().ep().write(local, lmr, peer, tmr.address(), tmr.key(), ctx)) == -Errno.EAGAIN) {
                p.a().txCq().read(entries, 0);
            }
            if (rc != 0) {
                throw new AssertionError("write returned " + rc);
            }
            try {
                await(p.a().txCq(), entries);
            } catch (AssertionError e) {
                throw new AssertionError("write " + i + ": " + e.getMessage(), e);
            }
            while ((rc = p.a().ep().read(local, lmr, peer, tmr.address(), tmr.key(), ctx)) == -Errno.EAGAIN) {
                p.a().txCq().read(entries, 0);
            }
            if (rc != 0) {
                throw new AssertionError("read returned " + rc);
            }
            await(p.a().txCq(), entries);
        }
    }

    private static void loop(EndpointPair p, ByteBuffer sbuf, MemoryRegion smr, ByteBuffer rbuf, MemoryRegion rmr,
                             CqEntry[] entries, Object ctx, int n) {
        // no lambdas here: a capturing lambda would allocate per iteration and hide the provider's share
        long peer = p.a().peer();
        for (int i = 0; i < n; i++) {
            int rc;
            while ((rc = p.b().ep().recv(rbuf, rmr, Fi.FI_ADDR_UNSPEC, ctx)) == -Errno.EAGAIN) {
                p.b().rxCq().read(entries, 0);
            }
            if (rc != 0) {
                throw new AssertionError("recv returned " + rc);
            }
            while ((rc = p.a().ep().send(sbuf, smr, peer, ctx)) == -Errno.EAGAIN) {
                p.a().txCq().read(entries, 0);
            }
            if (rc != 0) {
                throw new AssertionError("send returned " + rc);
            }
            await(p.a().txCq(), entries);
            await(p.b().rxCq(), entries);
        }
    }

    private static void await(CompletionQueue cq, CqEntry[] entries) {
        int rc;
        long spins = 0;
        while ((rc = cq.read(entries, 1)) == -Errno.EAGAIN) {
            if (++spins > 2_000_000_000L) {
                throw new AssertionError("no completion");
            }
        }
        if (rc == -Errno.EAVAIL) {
            io.jofi.CqErrEntry e = new io.jofi.CqErrEntry();
            cq.readErr(e, 0);
            throw new AssertionError("error completion: " + e + " (" + Errno.strerror(e.err()) + ")");
        }
        if (rc != 1) {
            throw new AssertionError("cq read returned " + rc);
        }
    }
}
