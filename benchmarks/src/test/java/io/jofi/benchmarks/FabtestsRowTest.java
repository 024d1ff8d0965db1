package io.jofi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The raw baselines' median line: the compare scripts divide JOFI's median by it, so it must
 * use the rank rule of {@code ./jofi pingpong --percentiles} (the ⌈n/2⌉-th smallest round,
 * halved: one way) and the line's form the scripts parse ({@code SIZE lat p50 X}).
 */
class FabtestsRowTest {

    private static String medianLine(int size, long... roundTripsNanos) {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            FabtestsRow.printMedian(size, roundTripsNanos);
        } finally {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8).trim();
    }

    @Test
    void anEvenCountTakesTheLowerMiddleRoundHalved() {
        // sorted: 1000 2000 3000 9000 ns; the 2nd smallest round trip, 2 µs, is 1 µs one way
        String[] f = medianLine(64, 9000, 1000, 3000, 2000).split("\\s+");
        assertEquals("64", f[0]);
        assertEquals("lat", f[1]);
        assertEquals("p50", f[2]);
        assertEquals("1.00", f[3]);
    }

    @Test
    void anOddCountTakesTheMiddleRound() {
        // sorted: 5000 7000 100000 ns; the 2nd, 7 µs, is 3.5 µs one way (the outlier moves nothing)
        assertEquals("3.50", medianLine(4096, 7000, 5000, 100_000).split("\\s+")[3]);
    }

    @Test
    void oneRoundIsItsOwnMedian() {
        assertEquals("0.25", medianLine(1, 500).split("\\s+")[3]);
    }
}
