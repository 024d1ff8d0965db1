package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Fabrics;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An MSG endpoint closed while the connection-management thread reads an rdma_cm event of its
 * connect crashes nothing: librdmacm's {@code rdma_get_cm_event} works on the event's id's queue
 * pair (a {@code REJECTED} moves it to the error state; on InfiniBand and RoCE the active side's
 * {@code CONNECT_RESPONSE} moves it to RTR and RTS) without a lock of its own, and a queue pair
 * the close destroyed meanwhile was used after it was freed — the JVM crashed in libibverbs
 * (siw0, 2026-12-07: rxm's crossed connects close the losing connect while the peer's reject of
 * it arrives). The provider now destroys a queue pair only between event reads.
 *
 * <p>The window is a few instructions wide; the {@code cm_event_delay.c} shim (LD_PRELOAD)
 * widens it to {@link #DELAY_MS} by sleeping in every {@code ibv_modify_qp} of the CM thread, and
 * a child JVM ({@link CmEventCloseRaceChild}) sweeps its closes across it. Before the fix the
 * reject case crashed the child on rxe0 and siw0, the connect-response case on rxe0 (exit 134,
 * SIGSEGV in {@code ibv_modify_qp}); iWARP has no connect-response step, so that case passes on
 * siw0 either way.
 *
 * <p>Needs a verbs device and the shim, which {@code provider-verbs/vm/run-tests} compiles on the
 * host and injects into the VM: skipped with a message elsewhere.
 */
@Timeout(300)
class VerbsCmEventCloseRaceTest {
    private static final Path SHIM = Path.of(System.getProperty("jofi.verbs.cmDelayShim", "libjofi_cm_delay.so"));
    private static final int DELAY_MS = 100;
    private static final int ROUNDS = Integer.getInteger("jofi.verbs.cmRaceRounds", 24);

    @BeforeEach
    void verbsAndTheShim() {
        ProviderInfo verbs = Fabrics.standalone().providers().stream()
                .filter(p -> p.name().equals("verbs")).findFirst().orElse(null);
        Assumptions.assumeTrue(verbs != null, "verbs unavailable: the provider is not registered");
        Assumptions.assumeTrue(verbs.state() == ProviderState.AVAILABLE, "verbs unavailable: " + verbs.reason());
        Assumptions.assumeTrue(Files.isRegularFile(SHIM), "no " + SHIM.toAbsolutePath()
                + ": provider-verbs/vm/run-tests compiles src/test/c/cm_event_delay.c (needs gcc and libibverbs-dev)");
    }

    @Test
    void closingWhileTheRejectIsReadCrashesNothing() throws Exception {
        runChild("REJECT");
    }

    @Test
    void closingWhileTheConnectResponseIsReadCrashesNothing() throws Exception {
        runChild("ACCEPT");
    }

    private static void runChild(String answer) throws IOException, InterruptedException {
        Path log = Files.createTempFile("cm-race-" + answer, ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:ErrorFile=" + log + ".hs_err_%p", "-cp", System.getProperty("java.class.path"),
                    CmEventCloseRaceChild.class.getName(), answer, Integer.toString(ROUNDS),
                    Integer.toString(DELAY_MS)))
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("LD_PRELOAD", SHIM.toAbsolutePath().toString());
            pb.environment().put("JOFI_CM_DELAY_MS", Integer.toString(DELAY_MS));
            Process p = pb.start();
            boolean ended = p.waitFor(240, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly().waitFor();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            System.out.print(out);
            assertTrue(ended, "the child did not end within 240 s:\n" + out);
            assertEquals(0, p.exitValue(), "the child's exit status (134: it crashed)\n" + out);
            assertTrue(out.contains("CmEventCloseRaceChild: done"), out);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
