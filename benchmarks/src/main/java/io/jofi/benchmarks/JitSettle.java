package io.jofi.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The pause a benchmark takes between its untimed and its timed iterations so that the JIT
 * is done: it waits until the compiler has compiled nothing for {@value #QUIET_MS} ms (at most
 * {@value #MAX_MS} ms). The compilations that untimed iterations queue would otherwise run
 * during the timed ones — on the measured process's core when it is pinned, taking it from
 * the spinning thread for milliseconds at a time (a mean far above the median). The same
 * settling as {@code ./jofi pingpong}'s ({@code PerfCommand.awaitQuietCompiler}).
 */
final class JitSettle {
    /** Compiler silence that counts as settled. */
    static final long QUIET_MS = 200;
    /** The longest pause. */
    static final long MAX_MS = 5_000;

    private JitSettle() {
    }

    /**
     * Waits until the JIT is quiet (see the class comment); returns at once when the JVM does
     * not report compilation time.
     *
     * @return the milliseconds waited
     */
    static long awaitQuietCompiler() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return 0;
        }
        long last = jit.getTotalCompilationTime();
        try {
            while ((System.nanoTime() - start) / 1_000_000L < MAX_MS) {
                Thread.sleep(QUIET_MS);
                long now = jit.getTotalCompilationTime();
                if (now == last) {
                    break;
                }
                last = now;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return (System.nanoTime() - start) / 1_000_000L;
    }
}
