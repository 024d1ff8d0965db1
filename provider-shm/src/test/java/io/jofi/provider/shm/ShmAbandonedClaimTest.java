package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Progress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/SHM-LAYOUT.md "A producer that claims and dies": a real child process ({@link ClaimAndDieMain})
 * dies inside its claim of our ring — after its CAS of the tail, before its store of the length —
 * and another sender's messages, claimed behind the dead claim, must still arrive once the stall
 * timeout (1 s) has passed. Before, the receiver never skipped the claim whose length word stays
 * 0, and every peer's messages to it stopped for good.
 */
@Timeout(60)
class ShmAbandonedClaimTest {
    private static final int MESSAGES = 20;
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        dir = Files.createTempDirectory(base, "shmclaim-");
    }

    @AfterAll
    static void removeDirectory() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    @ParameterizedTest(name = "{0} stored, {1} progress")
    @CsvSource({"cas, AUTO", "header, AUTO", "cas, MANUAL", "header, MANUAL"})
    void messagesBehindAClaimWhoseProducerDiedArrive(String stage, Progress progress) throws Exception {
        try (ShmTestBed receiver = new ShmTestBed(dir, progress); ShmTestBed sender = new ShmTestBed(dir, progress)) {
            long to = sender.insert((receiver.name() + "\0").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            // a first message, so that the receiver knows the sender (and is past its first drain)
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            receiver.post(() -> receiver.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r0"), "recv 0");
            sender.post(() -> sender.ep.send(ShmCrossProcessTest.pattern(64, 0), null, to, "s0"), "send 0");
            sender.completion(sender.txCq, "send 0");
            receiver.completion(receiver.rxCq, "message 0");

            String region = receiver.name().substring(ShmNames.SCHEME.length());
            Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                    ClaimAndDieMain.class.getName(), dir.toString(), region, stage, "64"))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the claiming child ended");
            String out = new String(child.getInputStream().readAllBytes()).trim();
            assertTrue(out.startsWith("CLAIMED "), "the child claimed and died: " + out);

            long start = System.nanoTime();
            ByteBuffer[] bufs = new ByteBuffer[MESSAGES];
            for (int i = 1; i <= MESSAGES; i++) {
                ByteBuffer b = bufs[i - 1] = ByteBuffer.allocateDirect(64);
                String ctx = "r" + i;
                receiver.post(() -> receiver.ep.recv(b, null, Fi.FI_ADDR_UNSPEC, ctx), "recv " + i);
                int seed = i;
                sender.post(() -> sender.ep.send(ShmCrossProcessTest.pattern(64, seed), null, to, "s" + seed), "send " + i);
            }
            for (int i = 1; i <= MESSAGES; i++) {
                sender.completion(sender.txCq, "send " + i);
            }
            for (int i = 1; i <= MESSAGES; i++) {
                CqEntry e = receiver.completion(receiver.rxCq, "message " + i + " behind the dead claim");
                assertEquals("r" + i, e.context(), "in order");
                assertEquals(ShmCrossProcessTest.pattern(64, i), bufs[i - 1].clear(), "message " + i + " intact");
            }
            long took = System.nanoTime() - start;
            assertTrue(took < TimeUnit.SECONDS.toNanos(10), "within the stall timeout and a little: " + took / 1_000_000 + " ms");
        }
    }
}
