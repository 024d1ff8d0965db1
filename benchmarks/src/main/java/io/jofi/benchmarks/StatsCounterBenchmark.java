package io.jofi.benchmarks;

import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileDescriptor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one live-counter update ({@link StatsCounter#increment}, {@link StatsCounter#max})
 * in the process's counters file, against a plain field of the heap: what a counter on the data
 * path adds per message (the budget: 2 % of a 64 B round). Run
 * {@code java -jar benchmarks/target/benchmarks.jar StatsCounterBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class StatsCounterBenchmark {
    private CounterGroup group;
    private StatsCounter counter;
    private StatsCounter mark;
    private long field;
    private long level;

    @Setup
    public void setUp() {
        group = new CounterGroup(StatsFile.process(), StatsFileDescriptor.TYPE_OTHER, "benchmark");
        counter = group.counter("increments");
        mark = group.counter("high-water mark");
    }

    @TearDown
    public void tearDown() {
        group.close();
    }

    /** The baseline: a plain field of the heap, incremented. */
    @Benchmark
    public long heapField() {
        return ++field;
    }

    @Benchmark
    public void increment() {
        counter.increment();
    }

    /** A high-water mark that does not rise (the data path's usual case): one load. */
    @Benchmark
    public void maxNotRising() {
        mark.max(0);
    }

    /** {@code maxShared} that does not rise: one acquire load. */
    @Benchmark
    public void maxSharedNotRising() {
        mark.maxShared(0);
    }
}
