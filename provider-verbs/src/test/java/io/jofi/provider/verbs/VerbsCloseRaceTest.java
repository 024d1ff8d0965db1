package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import io.jofi.conformance.ConformanceFixture;
import io.jofi.conformance.EndpointPair;
import io.jofi.conformance.PairSpec;
import io.jofi.conformance.PeerSide;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Closing a verbs MSG endpoint while other threads post on it, and while its peer disconnects:
 * the endpoint's teardown frees the native staging memory (work requests, SGEs, bounce area,
 * registrations, the queue pair and CQ), so every post, every poll of the native CQ and every
 * CM event handler must either run entirely before it or see the endpoint closed and touch
 * nothing. A violation shows as a JVM crash, an exception out of a data-path call, or a return
 * code other than success, {@code EAGAIN} and the closed/disconnected answers.
 *
 * <p>Per round: a connected pair; on each side threads post sends, receives (registered,
 * unregistered direct and heap buffers), injects, RMA writes and reads and atomics, and a
 * drainer reads both CQs (the progress of {@code Progress.MANUAL}). Once every poster has
 * posted {@link #MIN_POSTS} operations (counted, not timed) one endpoint is closed (twice: the
 * second close does nothing) — side a under its own posters, or its peer b — and then the
 * other one, whose posters meanwhile race the disconnect on the CM thread. Every thread must
 * end, within a generous bound, on
 * {@code EBADF} (closed) or {@code ENOTCONN} (disconnected). {@code ROUNDS} rounds per case
 * ({@code -Djofi.verbs.closeRaceRounds}).
 *
 * <p>Needs a verbs device: skipped with "verbs unavailable: …" elsewhere; runs in the
 * soft-RoCE VM ({@code provider-verbs/vm/run-tests}).
 */
class VerbsCloseRaceTest {
    private static final int ROUNDS = Integer.getInteger("jofi.verbs.closeRaceRounds", 8);
    private static final int MIN_POSTS = 64;
    /** Bound of every wait (the guest runs 5–20× slower than a host): a hang fails, it never blocks the run. */
    private static final long BOUND_MS = 60_000;

    private enum Closer {
        /** The posting side's endpoint is closed under its own posters. */
        LOCAL,
        /** The peer closes (disconnects); the posting side is then closed while its posters still run. */
        PEER
    }

    @BeforeEach
    void verbsAvailable() {
        ProviderInfo verbs = Fabrics.standalone().providers().stream()
                .filter(p -> p.name().equals("verbs")).findFirst().orElse(null);
        Assumptions.assumeTrue(verbs != null, "verbs unavailable: the provider is not registered");
        Assumptions.assumeTrue(verbs.state() == ProviderState.AVAILABLE, "verbs unavailable: " + verbs.reason());
    }

    @Test
    void closeUnderConcurrentPostsAutoProgress() throws Exception {
        rounds(Progress.AUTO, Closer.LOCAL);
    }

    @Test
    void closeUnderConcurrentPostsManualProgress() throws Exception {
        rounds(Progress.MANUAL, Closer.LOCAL);
    }

    @Test
    void peerDisconnectUnderConcurrentPostsAutoProgress() throws Exception {
        rounds(Progress.AUTO, Closer.PEER);
    }

    @Test
    void peerDisconnectUnderConcurrentPostsManualProgress() throws Exception {
        rounds(Progress.MANUAL, Closer.PEER);
    }

    private static void rounds(Progress progress, Closer closer) throws Exception {
        for (int r = 0; r < ROUNDS; r++) {
            round(progress, closer, r);
        }
    }

    private static void round(Progress progress, Closer closer, int round) throws Exception {
        try (ConformanceFixture fx = new ConformanceFixture(Fabrics.standalone(), "verbs", EpType.MSG, progress,
                BOUND_MS)) {
            EndpointPair pair = fx.openPair(new PairSpec(Fi.FI_MSG | Fi.FI_RMA | Fi.FI_ATOMIC));
            PeerSide a = pair.a();
            PeerSide b = pair.b();
            // b's region that a's RMA and atomics target (8-byte aligned for the atomics)
            ByteBuffer target = ByteBuffer.allocateDirect(4096);
            MemoryRegion targetMr = fx.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, "target");

            String label = progress + "/" + closer + " round " + round;
            Run run = new Run(label);
            // a: the side closed under its posters (LOCAL), or left by its peer (PEER)
            run.poster("a-send", a, pooled((n, buf) -> sendOps(a, n, buf)));
            run.poster("a-rma", a, pooled((n, buf) -> rmaOps(a, targetMr, n, buf)));
            run.poster("a-recv", a, pooled((n, buf) -> recvOps(a, n, buf)));
            // b: keeps a's sends and receives moving, and is disconnected under its own posters
            run.poster("b-send", b, pooled((n, buf) -> sendOps(b, n, buf)));
            run.poster("b-recv", b, pooled((n, buf) -> recvOps(b, n, buf)));
            run.drainer("a-drain", a);
            run.drainer("b-drain", b);
            run.start();

            assertTrue(run.started.await(BOUND_MS, TimeUnit.MILLISECONDS),
                    label + ": the posters did not each post " + MIN_POSTS + " operations: " + run.counts());
            // the other side's posters race the DISCONNECTED event on the CM thread, and then its
            // own close: both endpoints are closed under running posters
            PeerSide first = closer == Closer.LOCAL ? a : b;
            PeerSide second = closer == Closer.LOCAL ? b : a;
            fx.close(first.ep());
            fx.close(first.ep()); // a second close is harmless
            fx.close(second.ep());
            run.awaitPostersEnd();
            run.stopDrainers();
            // AUTO: a throw on the provider's progress thread (a poll of a torn-down CQ) stops it
            Throwable engineFailure = ((VerbsDomain) fx.domain()).engine().failure();
            if (engineFailure != null) {
                run.failures.add("the progress thread failed: " + engineFailure);
            }
            if (!run.failures.isEmpty()) {
                fail(label + ": " + run.failures);
            }
            assertEquals(Errno.EBADF, -a.ep().send(ByteBuffer.allocate(1), null, a.peer(), null),
                    "a send on a closed endpoint answers EBADF");
        }
    }

    // ------------------------------------------------------------------------------- operations

    /** One operation of a poster: its return code (0, or a negative errno). */
    @FunctionalInterface
    private interface Op {
        int post(int n) throws FabricException;
    }

    /** An operation given its number and the direct buffer to use (from the poster's own pool). */
    @FunctionalInterface
    private interface PooledOp {
        int post(int n, ByteBuffer direct) throws FabricException;
    }

    /**
     * Each poster cycles through a few unregistered direct buffers of its own (the
     * registration-cache path of {@code LocalBuffers}, with hits and misses).
     */
    private static Op pooled(PooledOp op) {
        ByteBuffer[] pool = new ByteBuffer[6];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = ByteBuffer.allocateDirect(256);
        }
        return n -> op.post(n, pool[n % pool.length].clear());
    }

    private static int sendOps(PeerSide s, int n, ByteBuffer direct) throws FabricException {
        switch (n % 4) {
            case 0:
                return s.ep().send(direct.limit(64), null, s.peer(), "send");
            case 1:
                return s.ep().inject(ByteBuffer.allocate(16), s.peer());
            case 2:
                return s.ep().sendData(ByteBuffer.allocate(32), null, n, s.peer(), "senddata");
            default:
                return s.ep().send(ByteBuffer.allocate(48), null, s.peer(), "heap-send");
        }
    }

    private static int recvOps(PeerSide s, int n, ByteBuffer direct) throws FabricException {
        if ((n & 1) == 0) {
            return s.ep().recv(direct, null, Fi.FI_ADDR_UNSPEC, "recv");
        }
        return s.ep().recv(ByteBuffer.allocate(256), null, Fi.FI_ADDR_UNSPEC, "heap-recv");
    }

    private static int rmaOps(PeerSide s, MemoryRegion target, int n, ByteBuffer direct) throws FabricException {
        long addr = target.address();
        long key = target.key();
        switch (n % 4) {
            case 0:
                return s.ep().write(direct.limit(128), null, s.peer(), addr + 64, key, "write");
            case 1:
                return s.ep().read(ByteBuffer.allocate(128), null, s.peer(), addr + 256, key, "read");
            case 2:
                return s.ep().atomic(1, s.peer(), addr, key, Fi.FI_SUM, "atomic");
            default:
                return s.ep().fetchAtomic(1, ByteBuffer.allocate(8), null, s.peer(), addr + 8, key, Fi.FI_SUM,
                        "fetch");
        }
    }

    // ------------------------------------------------------------------------------- threads

    /** The threads of one round and what they saw. */
    private static final class Run {
        final String label;
        final List<Thread> posters = new ArrayList<>();
        final List<Thread> drainers = new ArrayList<>();
        final List<int[]> postCounts = new ArrayList<>();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        final AtomicBoolean draining = new AtomicBoolean(true);
        CountDownLatch started;

        Run(String label) {
            this.label = label;
        }

        void poster(String name, PeerSide side, Op op) {
            int[] count = new int[1];
            postCounts.add(count);
            posters.add(new Thread(() -> post(name, side, op, count), "close-race-" + name));
        }

        void drainer(String name, PeerSide side) {
            drainers.add(new Thread(() -> {
                CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
                CqErrEntry err = new CqErrEntry();
                try {
                    while (draining.get()) {
                        drain(side.txCq(), entries, err);
                        drain(side.rxCq(), entries, err);
                        Thread.onSpinWait();
                    }
                } catch (Throwable t) {
                    failures.add(name + " threw " + t); // e.g. a poll of a torn-down CQ
                }
            }, "close-race-" + name));
        }

        void start() {
            started = new CountDownLatch(posters.size());
            drainers.forEach(Thread::start);
            posters.forEach(Thread::start);
        }

        private void post(String name, PeerSide side, Op op, int[] count) {
            CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
            CqErrEntry err = new CqErrEntry();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * BOUND_MS);
            boolean counted = false;
            try {
                for (int n = 0; ; n++) {
                    int rc = op.post(n);
                    if (rc == 0) {
                        count[0]++;
                        if (!counted && count[0] >= MIN_POSTS) {
                            counted = true;
                            started.countDown();
                        }
                    } else if (rc == -Errno.EAGAIN) {
                        drain(side.txCq(), entries, err);
                        drain(side.rxCq(), entries, err);
                    } else if (rc == -Errno.EBADF || rc == -Errno.ENOTCONN) {
                        if (!counted) {
                            failures.add(name + " ended (" + Errno.strerror(-rc) + ") after " + count[0]
                                    + " posts, before the close");
                            started.countDown();
                        }
                        return; // closed or disconnected: the answers this test expects
                    } else {
                        failures.add(name + " post " + n + " returned " + rc + " (" + Errno.strerror(-rc) + ")");
                        return;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        failures.add(name + " still posting " + 4 * BOUND_MS + " ms on: the close was not seen");
                        return;
                    }
                }
            } catch (Throwable t) {
                failures.add(name + " threw " + t);
            } finally {
                if (!counted) {
                    started.countDown();
                }
            }
        }

        private static void drain(CompletionQueue cq, CqEntry[] entries, CqErrEntry err) {
            int rc = cq.read(entries, entries.length);
            if (rc == -Errno.EAVAIL) {
                cq.readErr(err, 0); // flushed work requests (ECANCELED) and the like: expected here
            }
        }

        String counts() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < posters.size(); i++) {
                sb.append(posters.get(i).getName()).append('=').append(postCounts.get(i)[0]).append(' ');
            }
            return sb.toString().trim();
        }

        void awaitPostersEnd() {
            for (Thread t : posters) {
                assertDoesNotThrow(() -> t.join(4 * BOUND_MS));
            }
        }

        void stopDrainers() throws InterruptedException {
            for (Thread t : posters) {
                if (t.isAlive()) {
                    failures.add(t.getName() + " did not end within " + 4 * BOUND_MS + " ms");
                }
            }
            draining.set(false);
            for (Thread t : drainers) {
                t.join(BOUND_MS);
                if (t.isAlive()) {
                    failures.add(t.getName() + " did not end");
                }
            }
        }
    }
}
