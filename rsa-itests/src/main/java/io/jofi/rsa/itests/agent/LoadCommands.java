package io.jofi.rsa.itests.agent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.jofi.rsa.itests.echo.EchoService;

/**
 * Many concurrent callers through the imported echo proxy: a bounded load that accounts for every
 * call (hot swap), slow calls left pending (peer killed), and the benchmark's timed loop.
 */
final class LoadCommands {
    /** How long past its own deadline a caller may take before it counts as pending (hung). */
    private static final long JOIN_GRACE_MILLIS = 90_000;
    /** Latency samples kept per benchmark caller. */
    private static final int SAMPLES_PER_CALLER = 1 << 18;

    private final ImportedEcho echo;

    LoadCommands(ImportedEcho echo) {
        this.echo = echo;
    }

    /**
     * {@code load THREADS MILLIS SIZE}: THREADS callers echo SIZE bytes for MILLIS. Answers
     * {@code issued succeeded failed pending} (a call is issued once a proxy was there to take it),
     * whether a call succeeded after the last failure, and the distinct failures seen.
     */
    String load(String[] arguments) throws InterruptedException {
        int threads = Integer.parseInt(arguments[0]);
        long millis = Long.parseLong(arguments[1]);
        byte[] payload = Payloads.of(Integer.parseInt(arguments[2]));
        AtomicLong issued = new AtomicLong();
        AtomicLong succeeded = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong lastFailure = new AtomicLong();
        AtomicLong lastSuccess = new AtomicLong();
        Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
        long deadline = System.nanoTime() + millis * 1_000_000;
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread caller = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    EchoService proxy;
                    try {
                        proxy = echo.current();
                    } catch (IllegalStateException noProxy) {
                        pause();
                        continue;
                    }
                    issued.incrementAndGet();
                    try {
                        Payloads.check(payload, proxy.echo(payload));
                        succeeded.incrementAndGet();
                        lastSuccess.set(System.nanoTime());
                    } catch (RuntimeException e) {
                        failed.incrementAndGet();
                        lastFailure.set(System.nanoTime());
                        if (failures.size() < 8) {
                            failures.computeIfAbsent(shorten(Failure.describe(e)), key -> new AtomicLong()).incrementAndGet();
                        }
                        pause();
                    }
                }
            }, "jofi-rsa-load-" + t);
            caller.start();
            callers.add(caller);
        }
        joinAll(callers, millis + JOIN_GRACE_MILLIS);
        long pending = issued.get() - succeeded.get() - failed.get();
        boolean recovered = failed.get() == 0 || lastSuccess.get() > lastFailure.get();
        return "issued=" + issued + " succeeded=" + succeeded + " failed=" + failed + " pending=" + pending
                + " recovered=" + recovered + " failures=" + failures;
    }

    /**
     * {@code pending THREADS MILLIS}: THREADS callers each make one call that the service holds
     * for MILLIS; answers how they ended and the wall-clock millisecond the last one ended.
     */
    String pending(String[] arguments) throws InterruptedException {
        int threads = Integer.parseInt(arguments[0]);
        long millis = Long.parseLong(arguments[1]);
        byte[] payload = Payloads.of(16);
        EchoService proxy = echo.current();
        AtomicLong succeeded = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong lastDone = new AtomicLong();
        Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread caller = new Thread(() -> {
                try {
                    proxy.slow(payload, millis);
                    succeeded.incrementAndGet();
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                    failures.computeIfAbsent(shorten(Failure.describe(e)), key -> new AtomicLong()).incrementAndGet();
                }
                lastDone.accumulateAndGet(System.currentTimeMillis(), Math::max);
            }, "jofi-rsa-pending-" + t);
            caller.start();
            callers.add(caller);
        }
        joinAll(callers, millis + JOIN_GRACE_MILLIS);
        long pending = threads - succeeded.get() - failed.get();
        return "succeeded=" + succeeded + " failed=" + failed + " pending=" + pending + " lastDoneEpochMs=" + lastDone
                + " failures=" + failures;
    }

    /**
     * {@code bench THREADS MILLIS SIZE [CONTENDER]}: THREADS callers echo SIZE bytes for MILLIS
     * (through the proxy of one benchmark contender); answers the calls, calls per second and the
     * p50/p99 latency in microseconds. Any failure fails the run.
     */
    String bench(String[] arguments) throws InterruptedException {
        int threads = Integer.parseInt(arguments[0]);
        long millis = Long.parseLong(arguments[1]);
        byte[] payload = Payloads.of(Integer.parseInt(arguments[2]));
        EchoService proxy = arguments.length > 3 ? echo.contender(arguments[3], 30_000) : echo.current();
        long[][] samples = new long[threads][SAMPLES_PER_CALLER];
        int[] counts = new int[threads];
        AtomicLong calls = new AtomicLong();
        Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
        List<Thread> callers = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + millis * 1_000_000;
        for (int t = 0; t < threads; t++) {
            int caller = t;
            Thread thread = new Thread(() -> {
                long[] mine = samples[caller];
                try {
                    long now = System.nanoTime();
                    while (now < deadline) {
                        byte[] back = proxy.echo(payload);
                        long after = System.nanoTime();
                        if (back.length != payload.length) {
                            throw new IllegalStateException("echo returned " + back.length + " bytes of " + payload.length);
                        }
                        if (counts[caller] < mine.length) {
                            mine[counts[caller]++] = after - now;
                        }
                        calls.incrementAndGet();
                        now = after;
                    }
                } catch (RuntimeException e) {
                    failures.computeIfAbsent(shorten(Failure.describe(e)), key -> new AtomicLong()).incrementAndGet();
                }
            }, "jofi-rsa-bench-" + t);
            thread.start();
            callers.add(thread);
        }
        joinAll(callers, millis + JOIN_GRACE_MILLIS);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!failures.isEmpty()) {
            throw new IllegalStateException("benchmark calls failed: " + failures);
        }
        long[] all = merge(samples, counts);
        Arrays.sort(all);
        return String.format("calls=%d rate=%.0f p50us=%.1f p99us=%.1f", calls.get(), calls.get() / seconds,
                percentile(all, 0.50) / 1000.0, percentile(all, 0.99) / 1000.0);
    }

    private static long[] merge(long[][] samples, int[] counts) {
        long[] all = new long[Arrays.stream(counts).sum()];
        int at = 0;
        for (int t = 0; t < samples.length; t++) {
            System.arraycopy(samples[t], 0, all, at, counts[t]);
            at += counts[t];
        }
        return all;
    }

    private static long percentile(long[] sorted, double fraction) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * fraction))];
    }

    private static void joinAll(List<Thread> threads, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        for (Thread thread : threads) {
            thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String shorten(String text) {
        return text.length() <= 240 ? text : text.substring(0, 240) + "...";
    }
}
