package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.spi.util.ProgressEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Provide;
import net.jqwik.api.Property;
import net.jqwik.api.Tag;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * docs/SHM-LAYOUT.md "Bad input, faults, security", as a property: whichever file of two
 * endpoints is truncated (each side's region, registration table and shareable buffer), at
 * whatever length and moment, under two-way traffic (messages, delivery-complete sends, direct
 * and target-served writes and reads), in AUTO and MANUAL progress on either side: no data-path
 * call throws, every operation posted completes exactly once (success or error entry), and
 * both domains' progress goes on. The default run is a few tries (seconds); the long variant
 * is tagged {@code soak}.
 */
class ShmTruncationPropertyTest {
    /** Files of one side that a try may truncate. */
    enum Victim { REGION, TABLE, BUFFER }

    private static final int BUFFER = 64 << 10;
    private static final long SHARED_KEY = 11;
    private static final long PRIVATE_KEY = 12;

    @Property(tries = 6, seed = "31")
    void truncatingAMappedFileUnderTrafficNeverThrowsNorLoses(@ForAll Victim victim, @ForAll boolean initiatorSide,
            @ForAll("modes") Progress us, @ForAll("modes") Progress them, @ForAll @DoubleRange(min = 0, max = 1) double where,
            @ForAll @IntRange(min = 0, max = 60) int afterMillis) throws Exception {
        oneTry(victim, initiatorSide, us, them, where, afterMillis);
    }

    @Property(tries = 300)
    @Tag("soak")
    void longRun(@ForAll Victim victim, @ForAll boolean initiatorSide, @ForAll("modes") Progress us, @ForAll("modes") Progress them,
            @ForAll @DoubleRange(min = 0, max = 1) double where, @ForAll @IntRange(min = 0, max = 200) int afterMillis)
            throws Exception {
        oneTry(victim, initiatorSide, us, them, where, afterMillis);
    }

    @Provide
    Arbitrary<Progress> modes() {
        return Arbitraries.of(Progress.AUTO, Progress.MANUAL);
    }

    private static void oneTry(Victim victim, boolean initiatorSide, Progress usMode, Progress themMode, double where,
            int afterMillis) throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmtruncprop-");
        try (ShmTestBed a = new ShmTestBed(dir, usMode); ShmTestBed b = new ShmTestBed(dir, themMode)) {
            ByteBuffer aShared = a.domain.allocateBuffer(BUFFER).order(ByteOrder.nativeOrder());
            ByteBuffer bShared = b.domain.allocateBuffer(BUFFER).order(ByteOrder.nativeOrder());
            ByteBuffer bPrivate = ByteBuffer.allocateDirect(BUFFER);
            try (MemoryRegion m1 = a.domain.register(aShared, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, SHARED_KEY, 0, null);
                 MemoryRegion m2 = b.domain.register(bShared, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, SHARED_KEY, 0, null);
                 MemoryRegion m3 = b.domain.register(bPrivate, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, PRIVATE_KEY, 0,
                         null)) {
                long toB = a.insert(b.ep.getName());
                long toA = b.insert(a.ep.getName());
                Traffic ab = new Traffic(a, toB, "a");
                Traffic ba = new Traffic(b, toA, "b");
                Path file = victimFile(dir, initiatorSide ? a : b, victim);
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(afterMillis);
                do {
                    ab.step();
                    ba.step();
                } while (System.nanoTime() < deadline);
                ShmTruncatedPeerTest.truncateByAnotherProcess(file, (long) (Files.size(file) * where) & ~7L);
                long more = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                while (System.nanoTime() < more) {
                    ab.step();
                    ba.step();
                }
                ab.finish();
                ba.finish();
                for (ShmTestBed bed : List.of(a, b)) {
                    ProgressEngine engine = ((ShmDomain) bed.domain).engine();
                    assertTrue(engine.isRunning(), "progress goes on: " + engine.failure());
                    if (engine.thread() != null && !engine.isManual()) {
                        assertTrue(engine.thread().isAlive(), "the AUTO progress thread lives");
                    }
                }
                ShmTruncatedPeerTest.applicationCode(); // a fault still pending surfaces here
            }
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    private static Path victimFile(Path dir, ShmTestBed side, Victim victim) throws Exception {
        String name = side.name().substring(ShmNames.SCHEME.length());
        return switch (victim) {
            case REGION -> dir.resolve(ShmNames.regionFile(name));
            case TABLE -> dir.resolve(ShmNames.tableOf(name));
            case BUFFER -> {
                String prefix = ShmNames.tableOf(name).replace(".mr", ".buf");
                try (Stream<Path> files = Files.list(dir)) {
                    yield files.filter(f -> f.getFileName().toString().startsWith(prefix)).findFirst()
                            .orElseThrow(() -> new AssertionError("no buffer file " + prefix + "* in " + dir));
                }
            }
        };
    }

    /** One side's traffic towards the other: posts of every kind, each counted until it completes once. */
    private static final class Traffic {
        private final ShmTestBed bed;
        private final long peer;
        private final String prefix;
        private final Map<Object, Integer> completions = new HashMap<>();
        private final List<Object> posted = new ArrayList<>();
        private final ByteBuffer out = ShmCrossProcessTest.pattern(4096, 3);
        private final ByteBuffer in = ByteBuffer.allocateDirect(4096);
        private final CqEntry[] one = {new CqEntry()};
        private int n;

        Traffic(ShmTestBed bed, long peer, String prefix) {
            this.bed = bed;
            this.peer = peer;
            this.prefix = prefix;
        }

        void step() {
            String ctx = prefix + n;
            int kind = n++ % 6;
            int len = 64 << (n % 7);
            ByteBuffer b = out.duplicate().limit(Math.min(len, 4096));
            IntSupplier op = switch (kind) {
                case 0 -> () -> bed.ep.send(b, null, peer, ctx);
                case 1 -> () -> bed.ep.sendMsg(new io.jofi.Msg().buffer(b, null).addr(peer).context(ctx),
                        Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION);
                case 2 -> () -> bed.ep.write(b, null, peer, 0, SHARED_KEY, ctx);
                case 3 -> () -> bed.ep.write(b, null, peer, 0, PRIVATE_KEY, ctx);
                case 4 -> () -> bed.ep.read(in.duplicate().limit(256), null, peer, 0, PRIVATE_KEY, ctx);
                default -> () -> bed.ep.recv(in.duplicate(), null, Fi.FI_ADDR_UNSPEC, ctx);
            };
            int rc = call(op, "post " + ctx);
            if (rc == 0) {
                posted.add(ctx);
            } else {
                assertTrue(rc < 0, "post " + ctx + " answered " + rc);
            }
            read(bed.txCq);
            read(bed.rxCq);
        }

        private void read(CompletionQueue cq) {
            while (true) {
                int rc = call(() -> cq.read(one, 1), "cq.read");
                if (rc == 1) {
                    completions.merge(one[0].context(), 1, Integer::sum);
                } else if (rc == -Errno.EAVAIL) {
                    CqErrEntry e = new CqErrEntry();
                    assertEquals(1, call(() -> cq.readErr(e, 0), "cq.readErr"));
                    completions.merge(e.context(), 1, Integer::sum);
                } else {
                    assertEquals(-Errno.EAGAIN, rc, "cq.read");
                    return;
                }
            }
        }

        /** Every post completed exactly once (receives: at most once, the peer may have sent fewer), bounded. */
        void finish() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline && missing() > 0) {
                read(bed.txCq);
                read(bed.rxCq);
            }
            for (Object ctx : posted) {
                int times = completions.getOrDefault(ctx, 0);
                boolean receive = Integer.parseInt(((String) ctx).substring(1)) % 6 == 5;
                assertTrue(receive ? times <= 1 : times == 1, ctx + " completed " + times + " times");
            }
            for (Map.Entry<Object, Integer> e : completions.entrySet()) {
                assertTrue(posted.contains(e.getKey()), "a completion nobody posted: " + e.getKey());
            }
        }

        private int missing() {
            int m = 0;
            for (Object ctx : posted) {
                boolean receive = Integer.parseInt(((String) ctx).substring(1)) % 6 == 5;
                if (!receive && !completions.containsKey(ctx)) {
                    m++;
                }
            }
            return m;
        }

        private static int call(IntSupplier call, String what) {
            try {
                return call.getAsInt();
            } catch (Throwable t) {
                throw new AssertionError(what + " threw", t);
            }
        }
    }
}
