package io.jofi.benchmarks;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.Fi;
import io.jofi.FabricException;
import io.jofi.spi.util.UtilCompletionQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Throughput of {@link UtilCompletionQueue}, the hot path every provider shares, counted in
 * completions:
 * <ul>
 * <li>{@code writeRead}: one thread writes {@code batch} completions (reserve + complete, or
 *     reserve + completeDeferred and one wake per batch) and reads them back in one call —
 *     the manual-progress pattern, where the application's read runs the provider's progress
 *     that writes the completions. Score = completions per second.</li>
 * <li>{@code read64}: the read side alone, a batch of 64 from a CQ refilled (untimed) before
 *     each call.</li>
 * <li>{@code oneProducer} / {@code twoProducers}: producer threads write while one reader
 *     reads in batches of {@code batch}; the {@code completionsRead} and
 *     {@code completionsWritten} counters are completions per second (the primary score counts
 *     benchmark-method calls, including those that found nothing to do).</li>
 * </ul>
 * Run: {@code java -jar benchmarks/target/benchmarks.jar CompletionQueue -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CompletionQueueBenchmark {

    /** Contexts written with each completion: real objects, as an application's would be. */
    private static final Object[] CONTEXTS = new Object[64];

    static {
        for (int i = 0; i < CONTEXTS.length; i++) {
            CONTEXTS[i] = new Object();
        }
    }

    // ------------------------------------------------------------------ one thread

    /** A CQ and a reader's entries for the single-thread write→read loop. */
    @State(Scope.Thread)
    public static class SingleThread {
        /** {@code true}: completeDeferred + one wakeReaders per batch (verbs); false: complete each (tcp, shm). */
        @Param({"false", "true"})
        public boolean deferred;

        UtilCompletionQueue cq;
        CqEntry[] entries;

        @Setup(Level.Trial)
        public void open() throws FabricException {
            cq = new UtilCompletionQueue(new CqAttr().size(1024).format(CqFormat.DATA), null);
            entries = newEntries(64);
        }

        @TearDown(Level.Trial)
        public void close() throws FabricException {
            cq.close();
        }
    }

    /** Writes {@code batch} completions and reads them back; one op = one completion. */
    @Benchmark
    @OperationsPerInvocation(64)
    public int writeRead64(SingleThread s) {
        return writeRead(s, 64);
    }

    /** As {@link #writeRead64} with batches of 1 (write one, read one). */
    @Benchmark
    public int writeRead1(SingleThread s) {
        return writeRead(s, 1);
    }

    private static int writeRead(SingleThread s, int batch) {
        UtilCompletionQueue cq = s.cq;
        if (s.deferred) {
            for (int i = 0; i < batch; i++) {
                cq.reserve();
                cq.completeDeferred(CONTEXTS[i], Fi.FI_RECV, i, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            }
            cq.wakeReaders();
        } else {
            for (int i = 0; i < batch; i++) {
                cq.reserve();
                cq.complete(CONTEXTS[i], Fi.FI_RECV, i, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            }
        }
        return cq.read(s.entries, batch);
    }

    /** A CQ refilled with 64 completions before every invocation, so that only the read is timed. */
    @State(Scope.Thread)
    public static class Filled {
        UtilCompletionQueue cq;
        CqEntry[] entries;

        @Setup(Level.Trial)
        public void open() throws FabricException {
            cq = new UtilCompletionQueue(new CqAttr().size(1024).format(CqFormat.DATA), null);
            entries = newEntries(64);
        }

        /** Untimed (JMH subtracts Level.Invocation fixtures; over 64 completions its timestamps cost &lt; 1 ns each). */
        @Setup(Level.Invocation)
        public void fill() {
            for (int i = 0; i < 64; i++) {
                cq.reserve();
                cq.completeDeferred(CONTEXTS[i], Fi.FI_RECV, i, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            }
        }

        @TearDown(Level.Trial)
        public void close() throws FabricException {
            cq.close();
        }
    }

    /** The read side alone: one read of a batch of 64; one op = one completion. */
    @Benchmark
    @OperationsPerInvocation(64)
    public int read64(Filled f) {
        return f.cq.read(f.entries, 64);
    }

    // ------------------------------------------------------------------ producer and reader threads

    /** The CQ the threads of one group share. */
    @State(Scope.Group)
    public static class Shared {
        @Param({"1", "64"})
        public int batch;

        UtilCompletionQueue cq;

        @Setup(Level.Trial)
        public void open() throws FabricException {
            cq = new UtilCompletionQueue(new CqAttr().size(4096).format(CqFormat.DATA), null);
        }

        @TearDown(Level.Trial)
        public void close() throws FabricException {
            cq.close();
        }
    }

    /** Completions read per second (reported as a secondary result). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class ReadCounter {
        public long completionsRead;
        CqEntry[] entries = newEntries(64);

        @Setup(Level.Iteration)
        public void reset() {
            completionsRead = 0;
        }
    }

    /** Completions written per second (reported as a secondary result). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class WriteCounter {
        public long completionsWritten;
        int next;

        @Setup(Level.Iteration)
        public void reset() {
            completionsWritten = 0;
        }
    }

    @Benchmark
    @Group("oneProducer")
    @GroupThreads(1)
    public void oneProducerWrite(Shared s, WriteCounter w) {
        produce(s, w);
    }

    @Benchmark
    @Group("oneProducer")
    @GroupThreads(1)
    public int oneProducerRead(Shared s, ReadCounter r) {
        return consume(s, r);
    }

    @Benchmark
    @Group("twoProducers")
    @GroupThreads(2)
    public void twoProducersWrite(Shared s, WriteCounter w) {
        produce(s, w);
    }

    @Benchmark
    @Group("twoProducers")
    @GroupThreads(1)
    public int twoProducersRead(Shared s, ReadCounter r) {
        return consume(s, r);
    }

    private static void produce(Shared s, WriteCounter w) {
        UtilCompletionQueue cq = s.cq;
        if (cq.reserve() == 0) {
            int i = w.next++ & 63;
            cq.complete(CONTEXTS[i], Fi.FI_RECV, i, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            w.completionsWritten++;
        } else {
            Blackhole.consumeCPU(16); // full: give the reader a moment rather than hammer the credits
        }
    }

    private static int consume(Shared s, ReadCounter r) {
        int n = s.cq.read(r.entries, s.batch);
        if (n > 0) {
            r.completionsRead += n;
        }
        return n;
    }

    static CqEntry[] newEntries(int n) {
        CqEntry[] e = new CqEntry[n];
        for (int i = 0; i < n; i++) {
            e[i] = new CqEntry();
        }
        return e;
    }
}
