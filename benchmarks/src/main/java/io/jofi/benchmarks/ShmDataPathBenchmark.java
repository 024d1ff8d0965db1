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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The shm provider's data path in one JVM (docs/API.md "Conventions": the data path never allocates: JMH {@code -prof gc} 0 B/op), on the two endpoints of a {@link ShmPair} (manual progress, driven by the benchmark
 * thread's CQ reads). One operation is one message delivered:
 * <ul>
 * <li>{@code sendRecv}: post a receive at B, {@code send} from A, read B's receive completion
 *     and A's send completion.</li>
 * <li>{@code window64}: 64 receives, 64 sends, then all 128 completions (score per message).</li>
 * <li>{@code injectWindow64}: 64 receives, 64 {@code inject}s, then the 64 receive completions
 *     (score per message): what {@code ./jofi bw} does up to the inject size, in one thread,
 *     so the score is the provider's CPU cost per streamed message without the cross-core
 *     transfers of the two-process run.</li>
 * </ul>
 * {@code senderInAv=false} ({@code -p senderInAv=false}) measures a receiver that does not know
 * the sender. {@code inject} is {@link ShmInjectBenchmark}. The data path must allocate nothing:
 * {@code -prof gc} shows {@code gc.alloc.rate.norm} ≈ 0 B/op. Needs the shm provider on the
 * class path; run {@code java -jar benchmarks/target/benchmarks.jar Shm -prof gc -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ShmDataPathBenchmark {
    private static final int WINDOW = 64;

    @Param({"64", "4096", "65536"})
    public int size;

    /** Whether B's AV holds A (the sender is known to the receiver); see {@link ShmPair}. */
    @Param({"true"})
    public boolean senderInAv;

    private ShmPair pair;
    private ByteBuffer tx;
    private final ByteBuffer[] rx = new ByteBuffer[WINDOW];
    private final Object context = new Object();

    @Setup(Level.Trial)
    public void setUp() throws FabricException {
        pair = new ShmPair(WINDOW, senderInAv);
        tx = ByteBuffer.allocateDirect(size);
        ByteBuffer rxMemory = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < WINDOW; i++) {
            rx[i] = rxMemory.duplicate(); // one view per receive in flight: the provider owns it until completion
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (pair != null) {
            pair.close();
        }
    }

    /** One message: receive posted, sent, both completions read. */
    @Benchmark
    public void sendRecv() {
        ShmPair p = pair;
        ShmPair.check(p.b.ep.recv(rx[0], null, Fi.FI_ADDR_UNSPEC, context), "recv");
        int rc;
        while ((rc = p.a.ep.send(tx, null, p.toB, context)) != 0) {
            p.retry(rc, "send");
        }
        p.reap(p.b.rxCq, p.a.txCq, 1);
        p.reap(p.a.txCq, p.b.rxCq, 1);
    }

    /** A window of 64 messages; the score counts messages. */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public void window64() {
        ShmPair p = pair;
        for (int i = 0; i < WINDOW; i++) {
            ShmPair.check(p.b.ep.recv(rx[i], null, Fi.FI_ADDR_UNSPEC, context), "recv");
        }
        for (int i = 0; i < WINDOW; i++) {
            int rc;
            while ((rc = p.a.ep.send(tx, null, p.toB, context)) != 0) {
                p.retry(rc, "send");
            }
        }
        p.reap(p.b.rxCq, p.a.txCq, WINDOW);
        p.reap(p.a.txCq, p.b.rxCq, WINDOW);
    }

    /** A window of 64 injected messages (no send completions); the score counts messages. */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public void injectWindow64() {
        ShmPair p = pair;
        for (int i = 0; i < WINDOW; i++) {
            ShmPair.check(p.b.ep.recv(rx[i], null, Fi.FI_ADDR_UNSPEC, context), "recv");
        }
        for (int i = 0; i < WINDOW; i++) {
            int rc;
            while ((rc = p.a.ep.inject(tx, p.toB)) != 0) {
                p.retry(rc, "inject");
            }
        }
        p.reap(p.b.rxCq, p.a.txCq, WINDOW);
    }
}
