package io.jofi.provider.shm.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.conformance.StatsConformance;
import io.jofi.tools.Commands;
import io.jofi.tools.CommandContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs {@link StatsConformance} against shm: {@code jofi stat} reads a child JVM's shm counters. */
class ShmStatsConformanceTest extends StatsConformance {
    @Override
    protected String provider() {
        return "shm";
    }

    @Override
    protected String stat(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Commands.run("stat", List.of(args), new CommandContext(null, null,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }
}
