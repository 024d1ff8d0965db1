package io.jofi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link CapturedRun}'s table rows and its comparison with another program's table. */
class CapturedRunTest {
    private static final String HEADER = "bytes   iters   total       time     MB/sec    usec/xfer   Mxfers/sec\n";
    private static final CapturedRun RUN = new CapturedRun(0, HEADER
            + "64      10      1.2k        0.00s     12.34       5.19       0.19\n"
            + "1k      10      20k         0.00s     99.00      10.34       0.10\n", "");

    @Test
    void rowsAreTheTrimmedLinesBelowTheHeader() {
        assertEquals(List.of("64      10      1.2k        0.00s     12.34       5.19       0.19",
                "1k      10      20k         0.00s     99.00      10.34       0.10"), RUN.rows());
    }

    @Test
    void theSameSizesIterationsAndTotalsAgreeWhateverTheTimes() {
        assertNull(RUN.tableMismatch(List.of("provider tcp", "connected", HEADER.trim(),
                "64      10      1.2k        0.01s      1.00      50.00       0.02",
                "1k      10      20k         0.01s      9.00      99.00       0.01", "done OK")));
    }

    @Test
    void anotherIterationCountOrAMissingRowIsAMismatch() {
        String iters = RUN.tableMismatch(List.of("64      11      1.2k        0.00s 1 1 1", "1k      10      20k  0.00s 1 1 1"));
        assertTrue(iters != null && iters.contains("row 0"), iters);
        String missing = RUN.tableMismatch(List.of("64      10      1.2k        0.00s 1 1 1"));
        assertTrue(missing != null && missing.startsWith("rows: 2 here, 1 there"), missing);
        assertTrue(new CapturedRun(1, "", "failed").tableMismatch(List.of()) != null, "no rows on either side is no agreement");
    }
}
