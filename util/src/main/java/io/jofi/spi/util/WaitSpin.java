package io.jofi.spi.util;

import java.util.concurrent.TimeUnit;

/**
 * How long a blocking read polls its queue before it parks (spin-then-park), from the system
 * property {@code jofi.wait.spinMicros}; default {@value #DEFAULT_MICROS}: park at once. A spin
 * pays only when the answer comes within it and a core is free for the spinning thread besides the
 * progress threads that bring the answer: on the 2-core host of benchmarks/results/waits-sread.md a
 * 50 µs spin cost 2-3 times the CPU per sread round trip (tcp MSG and RDM, shm) and won no latency, so
 * it is off unless asked for (e.g. a host with cores to spare and a peer that answers within
 * microseconds). Read when a queue opens; a value that is not a number, or negative, is the
 * default; at most {@value #MAX_MICROS}.
 */
final class WaitSpin {
    /** The system property. */
    static final String PROPERTY = "jofi.wait.spinMicros";
    /** The default spin, in microseconds. */
    static final long DEFAULT_MICROS = 0;
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
