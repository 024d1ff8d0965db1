package io.jofi.benchmarks;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongUnaryOperator;

/**
 * Measures what the live counters cost a data path by running it with statistics on and off
 * in one JVM, alternated every few milliseconds: the comparison this host's drift cannot blur.
 *
 * <p>Why: on a shared 2-core VM the same single-threaded benchmark runs at 0.5–1.1 M ops/s from
 * one second to the next, so JMH runs of the two settings in separate JVMs (the former compare-stats.sh)
 * differ by more than the 2 % budget whatever the counters cost. Here each setting is a copy of
 * the whole provider stack in a class loader of its own ({@code StatsCounter.ON} is a
 * {@code static final} read when its loader first initialises it: one loader sees
 * {@code jofi.stats=true}, the other {@code false}, and the JIT folds each copy's constant
 * separately). The two copies run in short windows, one after the other, in an order that
 * alternates (AB, BA, ...), so drift slower than a window pair falls on both alike; each pair
 * gives a ratio A/B, and the median of those ratios is the cost, with a distribution-free 95 %
 * interval (the order statistics around the median).
 *
 * <p>A control: both settings {@code true} (or both {@code false}) must give a ratio of 1 within
 * the interval; that run shows what the method can resolve here.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.jofi.benchmarks.StatsCostInOneJvm \
 *     shm 64 true false [pairs=400] [window-ms=20] [warm-up-s=15]
 * </pre>
 * Workloads ({@link StatsCostWorkload}): {@code shm} ({@code ShmDataPathBenchmark.sendRecv}),
 * {@code tcp-msg} and {@code tcp-rdm} (a receive, a send and both completions over a
 * {@link TcpPair}), each at the size given. {@code benchmarks/stats-cost.sh} runs it in several
 * JVMs (copies differ by a few per cent however they are set: where the JIT and mmap put
 * things). A benchmark, not a test.
 */
public final class StatsCostInOneJvm {
    private StatsCostInOneJvm() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: StatsCostInOneJvm shm|tcp-msg|tcp-rdm SIZE STATS_A STATS_B "
                    + "[PAIRS=400] [WINDOW_MS=20] [WARMUP_S=15]");
            System.exit(2);
        }
        String bench = args[0];
        int size = Integer.parseInt(args[1]);
        String settingA = setting(args[2]);
        String settingB = setting(args[3]);
        int pairs = args.length > 4 ? Integer.parseInt(args[4]) : 400;
        long window = (args.length > 5 ? Long.parseLong(args[5]) : 20) * 1_000_000L;
        long warmUp = (args.length > 6 ? Long.parseLong(args[6]) : 15) * 1_000_000_000L;

        URL jar = StatsCostInOneJvm.class.getProtectionDomain().getCodeSource().getLocation();
        try (Copy a = new Copy(jar, bench, size, settingA); Copy b = new Copy(jar, bench, size, settingB)) {
            long end = System.nanoTime() + warmUp;
            while (System.nanoTime() < end) {
                a.run(window);
                b.run(window);
            }
            double[] ratios = new double[pairs];
            double sumA = 0;
            double sumB = 0;
            for (int i = 0; i < pairs; i++) {
                double ra;
                double rb;
                if ((i & 1) == 0) {
                    ra = a.run(window);
                    rb = b.run(window);
                } else {
                    rb = b.run(window);
                    ra = a.run(window);
                }
                sumA += ra;
                sumB += rb;
                ratios[i] = ra / rb;
            }
            Arrays.sort(ratios);
            // The median's distribution-free 95 % interval: ranks n/2 -+ 1.96 sqrt(n)/2.
            int half = (int) Math.ceil(1.96 * Math.sqrt(pairs) / 2);
            double lo = ratios[Math.max(0, pairs / 2 - half)];
            double hi = ratios[Math.min(pairs - 1, pairs / 2 + half)];
            System.out.printf(Locale.ROOT, "%s %d B, stats %s vs %s: %d window pairs of %d ms%n", bench, size, settingA,
                    settingB, pairs, window / 1_000_000);
            System.out.printf(Locale.ROOT, "  ops/s  A %.0f  B %.0f (mean of the windows)%n", sumA / pairs, sumB / pairs);
            System.out.printf(Locale.ROOT, "  A/B per window pair: median %+.2f %%, 95 %% interval [%+.2f %%, %+.2f %%],"
                            + " quartiles [%+.2f %%, %+.2f %%]%n", pct(ratios[pairs / 2]), pct(lo), pct(hi),
                    pct(ratios[pairs / 4]), pct(ratios[3 * pairs / 4]));
        }
    }

    private static double pct(double ratio) {
        return (ratio - 1) * 100;
    }

    private static String setting(String s) {
        if (!s.equals("true") && !s.equals("false")) {
            throw new IllegalArgumentException("a statistics setting is true or false, not " + s);
        }
        return s;
    }

    /** One copy of the provider stack with its statistics setting, and its workload. */
    private static final class Copy implements AutoCloseable {
        private final URLClassLoader loader;
        private final LongUnaryOperator workload;
        private final Path statsDir;

        Copy(URL jar, String bench, int size, String stats) throws Exception {
            loader = new URLClassLoader(new URL[] {jar}, ClassLoader.getPlatformClassLoader());
            // Each copy keeps its own counters file (both "on" in the control run: two files) and
            // its own shm regions (their names count from 1 in each copy), in a tmpfs as usual.
            Path shm = Path.of("/dev/shm");
            statsDir = Files.isDirectory(shm) ? Files.createTempDirectory(shm, "jofi-stats-cost")
                    : Files.createTempDirectory("jofi-stats-cost");
            Thread t = Thread.currentThread();
            ClassLoader previous = t.getContextClassLoader();
            String previousStats = System.getProperty("jofi.stats");
            String previousDir = System.getProperty("jofi.stats.dir");
            String previousShmDir = System.getProperty("jofi.shm.directory");
            try {
                t.setContextClassLoader(loader); // the providers' ServiceLoader looks here
                System.setProperty("jofi.stats", stats);
                System.setProperty("jofi.stats.dir", statsDir.toString());
                System.setProperty("jofi.shm.directory", statsDir.toString());
                // Initialise the counters class now, under this copy's setting.
                Class.forName("io.jofi.spi.util.stats.StatsCounter", true, loader);
                workload = (LongUnaryOperator) loader.loadClass(StatsCostWorkload.class.getName())
                        .getConstructor(String.class, int.class).newInstance(bench, size);
            } finally {
                restore("jofi.stats", previousStats);
                restore("jofi.stats.dir", previousDir);
                restore("jofi.shm.directory", previousShmDir);
                t.setContextClassLoader(previous);
            }
        }

        /** Runs the workload for about {@code nanos}: operations a second (a window ends on a whole batch). */
        double run(long nanos) {
            Thread t = Thread.currentThread();
            ClassLoader previous = t.getContextClassLoader();
            t.setContextClassLoader(loader);
            try {
                long start = System.nanoTime();
                long ops = workload.applyAsLong(nanos);
                return ops * 1e9 / (System.nanoTime() - start);
            } finally {
                t.setContextClassLoader(previous);
            }
        }

        @Override
        public void close() throws Exception {
            try {
                ((AutoCloseable) workload).close();
                loader.close();
            } finally {
                try (var files = Files.list(statsDir)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.delete(f);
                    }
                }
                Files.delete(statsDir);
            }
        }

        private static void restore(String key, String value) {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        }
    }
}
