package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitError;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Addresses;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Stopped peers (provider-tcp/README.md "Failure model"): a peer that is alive but stopped ({@code SIGSTOP}) — its kernel still
 * acknowledges TCP, so no keepalive probe fails and no reset comes — left pending operations
 * waiting for ever. With the progress timeout (lowered to 1 s here) an operation that waits for
 * the stopped peer fails with {@code ETIMEDOUT} and the connection ends ({@code FI_SHUTDOWN}
 * with the reason); an idle connection to the stopped peer (nothing pending) is left alone.
 * The peer is a real child JVM, stopped with {@code kill -STOP}, killed afterwards.
 */
@Timeout(90)
class TcpStoppedPeerTest {
    private static final String PROP = "jofi.tcp.progressTimeout";
    private static final int TIMEOUT_MS = 1000;

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void anOperationWaitingForAStoppedPeerTimesOut(Progress mode) throws Exception {
        System.setProperty(PROP, Integer.toString(TIMEOUT_MS));
        TcpTestBed bed;
        try {
            bed = new TcpTestBed(mode);
        } finally {
            System.clearProperty(PROP);
        }
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        int port = Addresses.fromSockaddr(bed.pep.getName()).getPort();
        Process child = new ProcessBuilder(java, "-Xmx64m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                StoppablePeerChild.class.getName(), Integer.toString(port))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (bed) {
            bed.acceptServer(null, ep -> { });
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
            assertEquals("ready", out.readLine());
            Msg m = new Msg().buffer(ByteBuffer.wrap(new byte[100]), null).context("alive");
            assertEquals(0, bed.server.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            assertEquals("alive", awaitCompletion(bed.serverCq).context(), "the live peer acks");

            stop(child);
            // idle with the peer stopped: nothing pending, nothing to time out
            TcpTestBed.assertNothing(bed.serverCq, 2 * TIMEOUT_MS);
            EqEntry none = new EqEntry();
            assertEquals(-Errno.EAGAIN, bed.serverEq.read(none, 0), "no FI_SHUTDOWN for an idle connection");

            long t0 = System.nanoTime();
            m.context("stopped");
            assertEquals(0, bed.server.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            CqErrEntry e = awaitError(bed.serverCq);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("stopped", e.context());
            assertEquals(Errno.ETIMEDOUT, e.err());
            assertEquals(Errno.ETIMEDOUT, e.provErrno());
            String why = new String(e.errData(), 0, e.errDataSize(), StandardCharsets.UTF_8);
            assertTrue(why.startsWith("no progress from "), why);
            assertTrue(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + 5_000, "timed out after " + ms + " ms");
            EqEntry down = awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
            assertEquals(why, new String(down.payload(), 0, down.payloadLength(), StandardCharsets.UTF_8));
        } finally {
            new ProcessBuilder("kill", "-CONT", Long.toString(child.pid())).start().waitFor();
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void stop(Process p) throws Exception {
        Process k = new ProcessBuilder("kill", "-STOP", Long.toString(p.pid())).start();
        assertEquals(0, k.waitFor(), "kill -STOP");
        // /proc says T (stopped) once the signal took effect
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            String stat = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/" + p.pid() + "/stat")),
                    StandardCharsets.US_ASCII);
            if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("T")) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the child did not stop");
    }
}
