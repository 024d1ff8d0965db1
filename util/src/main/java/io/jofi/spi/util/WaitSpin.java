package io.jofi.spi.util;

import java.util.concurrent.TimeUnit;

/**
 * How long a blocking read polls its queue before it sleeps (spin-then-park), from the system
 * property {@code jofi.wait.spinMicros}: 0 sleeps at once; the default, {@value #DEFAULT_MICROS} µs,
 * covers the round trip of a loopback ping-pong (benchmarks/results/waits-*.md), so that such a
 * reader is never parked and woken, while a reader that waits longer costs at most that much CPU
 * per wait. Read when a queue opens; a value that is not a number, or negative, is the default.
 */
final class WaitSpin {
    /** The system property. */
    static final String PROPERTY = "jofi.wait.spinMicros";
    /** The default spin, in microseconds. */
    static final long DEFAULT_MICROS = 50;
    /** No spin is longer than this (a typo must not turn every wait into a busy loop). */
    static final long MAX_MICROS = 10_000;

    private WaitSpin() {
    }

    /** The spin in effect, in nanoseconds. */
    static long nanos() {
        String v = System.getProperty(PROPERTY);
        long micros = DEFAULT_MICROS;
        if (v != null) {
            try {
                long m = Long.parseLong(v.trim());
                micros = m < 0 ? DEFAULT_MICROS : Math.min(m, MAX_MICROS);
            } catch (NumberFormatException e) {
                micros = DEFAULT_MICROS;
            }
        }
        return TimeUnit.MICROSECONDS.toNanos(micros);
    }
}
