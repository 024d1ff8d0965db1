package io.jofi.benchmarks;

import io.jofi.FabricException;
import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The shm provider's smallest message path: {@code injectRecv} posts a receive at B,
 * {@code inject}s 64 bytes from A (no send completion, fi_msg(3) {@code fi_inject}) and reads
 * B's receive completion, on a {@link ShmPair} (manual progress), with and without A in B's
 * AV ({@code senderInAv}). Must allocate nothing
 * ({@code -prof gc}: 0 B/op). Run with {@code java -jar benchmarks/target/benchmarks.jar Shm -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ShmInjectBenchmark {
    private static final int SIZE = 64;

    /** Whether B's AV holds A (the sender is known to the receiver); see {@link ShmPair}. */
    @Param({"true", "false"})
    public boolean senderInAv;

    private ShmPair pair;
    private final ByteBuffer tx = ByteBuffer.allocateDirect(SIZE);
    private final ByteBuffer rx = ByteBuffer.allocateDirect(SIZE);
    private final Object context = new Object();

    @Setup(Level.Trial)
    public void setUp() throws FabricException {
        pair = new ShmPair(1, senderInAv);
        if (pair.injectSize < SIZE) {
            throw new IllegalStateException("the shm inject size " + pair.injectSize + " is below " + SIZE + " bytes");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (pair != null) {
            pair.close();
        }
    }

    /** One 64-byte message sent with {@code inject}. */
    @Benchmark
    public void injectRecv() {
        ShmPair p = pair;
        ShmPair.check(p.b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, context), "recv");
        int rc;
        while ((rc = p.a.ep.inject(tx, p.toB)) != 0) {
            p.retry(rc, "inject");
        }
        p.reap(p.b.rxCq, p.a.txCq, 1);
    }
}
