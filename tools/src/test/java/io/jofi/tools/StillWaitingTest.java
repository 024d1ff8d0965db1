package io.jofi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link StillWaiting}: a long step is told about after its first delay and then at each interval; a short one never. */
class StillWaitingTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String said() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aLongStepIsToldAboutUntilItEnds() throws Exception {
        try (StillWaiting w = StillWaiting.start(err, "x: waiting, %d s so far", 100, 100)) {
            Thread.sleep(1_150);
        }
        String said = said();
        long lines = said.lines().count();
        assertTrue(lines >= 2 && lines <= 11, said);
        assertTrue(said.lines().allMatch(l -> l.matches("x: waiting, [01] s so far")), said);
        assertTrue(said.contains("x: waiting, 1 s so far"), said);
        Thread.sleep(300);
        assertEquals(lines, said().lines().count(), "no notice after the step ended");
    }

    @Test
    void aStepThatEndsInTimeSaysNothing() throws Exception {
        try (StillWaiting w = StillWaiting.start(err, "x: waiting, %d s so far", 500, 100)) {
            Thread.sleep(20);
        }
        Thread.sleep(700);
        assertEquals("", said());
    }
}
