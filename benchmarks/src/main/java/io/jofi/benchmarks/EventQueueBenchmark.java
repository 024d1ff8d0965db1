package io.jofi.benchmarks;

import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.WaitObj;
import io.jofi.spi.util.UtilEventQueue;
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
 * Event queue write → read round trips on one thread: the provider side ({@code post}, as a
 * connection event would arrive) and the application side ({@code write}, {@code read},
 * {@code read} with {@code FI_PEEK}). The EQ is the control path; what matters here is that
 * it allocates nothing per event ({@code -prof gc}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EventQueueBenchmark {

    @Param({"NONE", "UNSPEC", "FD"})
    public String waitObj;

    private UtilEventQueue eq;
    private final EqEntry in = new EqEntry();
    private final EqEntry out = new EqEntry();
    private final Object context = new Object();
    private final byte[] payload = new byte[16];

    @Setup(Level.Trial)
    public void open() throws FabricException {
        eq = new UtilEventQueue(new EqAttr().size(1024).flags(Fi.FI_WRITE).waitObj(WaitObj.valueOf(waitObj)), null);
        in.event(Fi.FI_NOTIFY).context(context).data(42).payload(payload);
    }

    @TearDown(Level.Trial)
    public void close() throws FabricException {
        eq.close();
    }

    /** Provider side: one posted event read back by the application. */
    @Benchmark
    public int postThenRead() {
        eq.post(Fi.FI_NOTIFY, null, context, 7, null, null, 0);
        return eq.read(out, 0);
    }

    /** Application side: fi_eq_write of an event with a 16-byte payload, then fi_eq_read. */
    @Benchmark
    public int writeThenRead() {
        eq.write(in, 0);
        return eq.read(out, 0);
    }

    /** A peek followed by the read that removes the same event (R8). */
    @Benchmark
    public int writePeekRead() {
        eq.write(in, 0);
        eq.read(out, Fi.FI_PEEK);
        return eq.read(out, 0);
    }
}
